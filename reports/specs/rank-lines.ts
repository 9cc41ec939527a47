// One line per rank, coloured by rank or (many ranks) by host, and a legend of ranks or of hosts; past
// MAX_HOST_LEGEND hosts, of the few hosts that stand out, the others grey and counted in one entry.
import type { MetricSeries } from '../model';
import { decimate } from '../stats/lttb';
import {
  LINE_POINTS,
  lineStyle,
  MANY_RANK_POINTS,
  MAX_HOST_LEGEND,
  MAX_RANK_LEGEND,
  rankColours,
} from './style';

/** Hosts named past MAX_HOST_LEGEND; the others' lines are OTHERS_GREY. */
export const NAMED_HOSTS = 5;
const OTHERS_GREY = '#b8b8b8';

export const rankLabel = (rank: number, host?: string) => (host ? `rank ${rank} (${host})` : `rank ${rank}`);

/** The legend label of each series: its rank, or (many ranks) its host on one rank in the middle of the host's. */
export function rankLabels(series: readonly MetricSeries[]): string[] {
  if (series.length <= MAX_RANK_LEGEND) return series.map((s) => rankLabel(s.rank, s.host));
  const byHost = new Map<string, number[]>();
  series.forEach((s, i) => byHost.set(s.host ?? '?', [...(byHost.get(s.host ?? '?') ?? []), i]));
  const labels: string[] = series.map(() => '');
  for (const [host, members] of byHost) {
    const ranks = members.map((i) => series[i].rank);
    labels[members[Math.floor((members.length - 1) / 2)]] =
      `${host} (${ranks.length} ranks: ${Math.min(...ranks)}-${Math.max(...ranks)})`;
  }
  return labels;
}

/** The last finite value of a line, or NaN. */
function lastValue(y: ArrayLike<number>): number {
  for (let i = y.length - 1; i >= 0; i--) if (Number.isFinite(y[i])) return y[i];
  return NaN;
}

/** The `n` hosts whose ranks end furthest from the others: each host's mean last value against the
 *  median over hosts (ties and hosts without values by name). */
export function standoutHosts(hosts: readonly string[], last: readonly number[], n: number): Set<string> {
  const sums = new Map<string, { sum: number; k: number }>();
  hosts.forEach((h, i) => {
    const a = sums.get(h) ?? { sum: 0, k: 0 };
    if (Number.isFinite(last[i])) sums.set(h, { sum: a.sum + last[i], k: a.k + 1 });
    else sums.set(h, a);
  });
  const means = [...sums].map(([h, { sum, k }]) => ({ h, m: k ? sum / k : NaN }));
  const finite = means
    .filter((e) => Number.isFinite(e.m))
    .map((e) => e.m)
    .sort((a, b) => a - b);
  const median = finite.length ? finite[Math.floor((finite.length - 1) / 2)] : 0;
  const away = (m: number) => (Number.isFinite(m) ? Math.abs(m - median) : -1);
  means.sort((a, b) => away(b.m) - away(a.m) || (a.h < b.h ? -1 : a.h > b.h ? 1 : 0));
  return new Set(means.slice(0, n).map((e) => e.h));
}

/** Datasets, one per rank; with many ranks, of MANY_RANK_POINTS each. */
export function rankDatasets(
  series: MetricSeries[],
  y: (s: MetricSeries) => { x: ArrayLike<number>; y: ArrayLike<number> },
) {
  const points = series.length > MAX_RANK_LEGEND ? MANY_RANK_POINTS : LINE_POINTS;
  const lines = series.map(y);
  const colours = rankColours(series);
  const labels = rankLabels(series);
  const hostOf = series.map((s) => s.host ?? '?');
  const hosts = new Set(hostOf);
  if (series.length > MAX_RANK_LEGEND && hosts.size > MAX_HOST_LEGEND) {
    // name the hosts that stand out (in their own colours), grey the rest and count them in one entry
    const named = standoutHosts(
      hostOf,
      lines.map((l) => lastValue(l.y)),
      NAMED_HOSTS,
    );
    const namedIdx = series.flatMap((_, i) => (named.has(hostOf[i]) ? [i] : []));
    const namedColours = rankColours(namedIdx.map((i) => series[i]));
    namedIdx.forEach((i, k) => (colours[i] = namedColours[k]));
    const others = series.flatMap((_, i) => (named.has(hostOf[i]) ? [] : [i]));
    for (const i of others) {
      colours[i] = OTHERS_GREY;
      labels[i] = '';
    }
    labels[others[0]] = `${hosts.size - named.size} other hosts (${others.length} ranks), grey`;
  }
  return series.map((_, i) => ({
    label: labels[i],
    data: decimate(lines[i].x, lines[i].y, points),
    ...lineStyle(colours[i]),
    // the named hosts' lines on top of the grey ones
    ...(colours[i] === OTHERS_GREY ? { order: 5 } : {}),
  }));
}
