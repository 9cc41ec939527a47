// One line per rank, coloured by rank or (many ranks) by host, and a legend of ranks or of hosts.
import type { MetricSeries } from '../model';
import { decimate } from '../stats/lttb';
import { LINE_POINTS, lineStyle, MANY_RANK_POINTS, MAX_RANK_LEGEND, rankColours } from './style';

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

/** Datasets, one per rank; with many ranks, of MANY_RANK_POINTS each. */
export function rankDatasets(
  series: MetricSeries[],
  y: (s: MetricSeries) => { x: ArrayLike<number>; y: ArrayLike<number> },
) {
  const points = series.length > MAX_RANK_LEGEND ? MANY_RANK_POINTS : LINE_POINTS;
  const colours = rankColours(series);
  const labels = rankLabels(series);
  return series.map((s, i) => {
    const { x, y: yy } = y(s);
    return { label: labels[i], data: decimate(x, yy, points), ...lineStyle(colours[i]) };
  });
}
