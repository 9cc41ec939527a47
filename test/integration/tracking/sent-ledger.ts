// What a run dir's send state says MLflow acknowledged (the committed cursors), as point ids, and
// what its logs hold, read by the test's own regexes (not by the plugin's parsers): the two sides a
// counting proxy's record is checked against.
import { promises as fs } from 'fs';
import * as path from 'path';
import { trackingPaths } from '../../../core';
import { decodeRecords } from '../../../tracking-plugin/ingest/records';
import { acknowledged, pointId, resentAfterAck, type SentPoint } from './counting-proxy';

/** Ids of the points every committed cursor of `uri`'s state in `dir` points past. */
export async function committedIds(dir: string, uri: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const file = trackingPaths(dir).sendState(uri);
  const state = await fs.readFile(file, 'utf8').then(
    (t) =>
      JSON.parse(t) as {
        sent: Record<string, number>;
        parent_run_id?: string;
        rank_run_ids: Record<string, string>;
      },
    (e: NodeJS.ErrnoException) => {
      if (e.code === 'ENOENT') return undefined; // nothing committed yet
      throw e;
    },
  );
  if (!state) return ids;
  for (const [stream, bytes] of Object.entries(state.sent)) {
    // parent, rank-<R>, system-<R> (a rank's own GPU), node-<host> (a node's samples, on the parent)
    const m = /^(?:(parent)|(rank|system)-(\d+)|(node)-(.+))$/.exec(stream);
    if (!m) throw new Error(`unknown stream ${stream} in ${file}`);
    const spool = m[1]
      ? 'parent.jsonl'
      : m[2] === 'rank'
        ? `rank-${m[3]}.jsonl`
        : m[2] === 'system'
          ? `rank-${m[3]}.system.jsonl`
          : `node-${m[5]}.system.jsonl`;
    const runId = m[1] || m[4] ? state.parent_run_id : state.rank_run_ids[m[3]];
    if (!runId) throw new Error(`${file}: stream ${stream} has no run`);
    const buf = (await fs.readFile(path.join(dir, 'tracking', 'spool', spool))).subarray(0, bytes);
    for (const r of decodeRecords(buf, 0)) ids.add(pointId({ runId, ...r.point }));
  }
  return ids;
}

export interface LoggedPoint {
  key: string;
  step: number;
  timestamp: number;
  /** As MLflow's JSON carries it: a number, or "NaN". */
  value: number | string;
}

/** One log line read by a test's own regex: its step and metrics, or undefined for no metric line. */
export type LineReader = (line: string) => { step: number; metrics: [string, number | string][] } | undefined;

/** The jsonl protocol as the tests write it (compact JSON, numbers or "NaN"). */
export const jsonlReader: LineReader = (line) => {
  const m = /^\{"track_launch":1,"step":(\d+),"metrics":\{(.*)\}\}$/.exec(line);
  if (!m) return undefined;
  return {
    step: Number(m[1]),
    metrics: [...m[2].matchAll(/"([^"]+)":("NaN"|-?[0-9.e+-]+)/g)].map(([, k, v]) => [
      k,
      v === '"NaN"' ? 'NaN' : Number(v),
    ]),
  };
};

/** The polynomial example's line, `epoch 100, loss = 0.154, rank 0/3 (host).`; the `, rank ...`
 *  tail may be missing (a last line cut short when the job ended). */
export const polyReader: LineReader = (line) => {
  const m = /^epoch (\d+), loss = (-?\d+(?:\.\d+)?(?:e[-+]?\d+)?)(?:, rank \d+\/\d+ \([^()\s]+\)\.)?$/.exec(
    line,
  );
  return m ? { step: Number(m[1]), metrics: [['loss', Number(m[2])]] } : undefined;
};

/** A rank log and its .out.ts, read with the test's own regexes (jsonl unless `read` says otherwise).
 *  A line's time is its .out.ts line's, in whole ms (truncated); a line without one (a last line the
 *  job ended in the middle of) takes the time of the line before it, as docs/tracking.md says. */
export async function loggedPoints(
  dir: string,
  rank: number,
  read: LineReader = jsonlReader,
): Promise<LoggedPoint[]> {
  const out = (await fs.readFile(path.join(dir, 'logs', `rank-${rank}.out`), 'utf8')).split('\n');
  const ts = (await fs.readFile(path.join(dir, 'logs', `rank-${rank}.out.ts`), 'utf8')).split('\n');
  const points: LoggedPoint[] = [];
  let last: number | undefined;
  out.forEach((line, i) => {
    const t = /^(\d+)\.(\d{3})\d*$/.exec(ts[i] ?? '');
    if (t) last = Number(t[1]) * 1000 + Number(t[2]);
    const m = read(line);
    if (!m) return;
    if (last === undefined) throw new Error(`rank-${rank}.out line ${i + 1} has no time: ${ts[i]}`);
    for (const [key, value] of m.metrics) points.push({ key, step: m.step, timestamp: last, value });
  });
  return points;
}

/** The parent's `K/mean`, `K/min`, `K/max` per step over the ranks that logged (K, step) (each
 *  rank's first point), stamped with the latest of their times: README's run layout, computed here. */
export function aggregatesOf(perRank: LoggedPoint[][]): LoggedPoint[] {
  const by = new Map<string, { key: string; step: number; points: LoggedPoint[] }>();
  for (const points of perRank) {
    const seen = new Set<string>();
    for (const p of points) {
      const id = `${p.key}\u0000${p.step}`;
      if (seen.has(id)) continue;
      seen.add(id);
      const g = by.get(id) ?? { key: p.key, step: p.step, points: [] };
      g.points.push(p);
      by.set(id, g);
    }
  }
  const out: LoggedPoint[] = [];
  for (const { key, step, points } of by.values()) {
    const timestamp = Math.max(...points.map((p) => p.timestamp));
    const nan = points.some((p) => typeof p.value !== 'number');
    const vs = points.map((p) => p.value as number);
    const agg = (f: () => number) => (nan ? 'NaN' : f());
    out.push(
      { key: `${key}/mean`, step, timestamp, value: agg(() => vs.reduce((a, b) => a + b, 0) / vs.length) },
      { key: `${key}/min`, step, timestamp, value: agg(() => Math.min(...vs)) },
      { key: `${key}/max`, step, timestamp, value: agg(() => Math.max(...vs)) },
    );
  }
  return out;
}

/** Expected points: id (run, key, step, timestamp) -> value. */
export type Expected = Map<string, number | string>;

export function expectedOf(runId: string, points: LoggedPoint[], into: Expected = new Map()): Expected {
  for (const p of points) {
    const id = pointId({ runId, ...p });
    if (into.has(id)) throw new Error(`the test expects ${readable(id)} twice`);
    into.set(id, p.value);
  }
  return into;
}

const readable = (id: string) => id.split('\u0000').join(' | ');

/** A sent value against the expected one: exact, but a mean within 1e-12 (the sum's last bits). */
function sameValue(id: string, got: unknown, want: number | string): boolean {
  if (typeof want === 'string' || typeof got !== 'number') return got === want;
  if (got === want) return true;
  return id.split('\u0000')[1].endsWith('/mean') && Math.abs(got - want) <= 1e-12 * Math.abs(want);
}

export interface SentAudit {
  /** Points a phase sent although a cursor committed before the phase began pointed past them. */
  resentAfterCommit: string[];
  /** Points sent again (by the phases audited) after a send of them was acknowledged, with the
   *  answers of their sends (a resend after a refusal or no answer is a retry, not counted). */
  sentTwice: string[];
  /** Expected points the server never acknowledged in the phases audited. */
  missing: string[];
  /** Points sent that the logs do not hold. */
  unexpected: string[];
  /** Points sent with another value than the logs say. */
  wrongValue: string[];
  /** How many points went out in requests the server acknowledged, in all. */
  sent: number;
}

/**
 * What a counting proxy saw, against the committed cursors before each phase (committedBefore[phase])
 * and the points the logs hold: in the phases `phases` (all when omitted) every expected point was
 * acknowledged exactly once with its value (sent again only after a refusal or no answer), and
 * nothing else was sent; no phase at all resent a committed point.
 * At most 5 of each kind are named.
 */
export function auditSent(
  sent: readonly SentPoint[],
  committedBefore: readonly Set<string>[],
  expected: Expected,
  phases?: readonly number[],
): SentAudit {
  const resentAfterCommit = sent
    .filter((p) => committedBefore[p.phase]?.has(pointId(p)))
    .map((p) => `phase ${p.phase}: ${readable(pointId(p))}`);
  const audited = phases ? sent.filter((p) => phases.includes(p.phase)) : sent;
  const acked = new Set<string>();
  const wrongValue: string[] = [];
  const unexpected: string[] = [];
  for (const p of audited) {
    const id = pointId(p);
    if (acknowledged(p.request)) acked.add(id);
    if (!expected.has(id)) unexpected.push(`phase ${p.phase}: ${readable(id)} = ${String(p.value)}`);
    else if (!sameValue(id, p.value, expected.get(id)!))
      wrongValue.push(`${readable(id)}: sent ${String(p.value)}, logged ${String(expected.get(id))}`);
  }
  return {
    resentAfterCommit: resentAfterCommit.slice(0, 5),
    sentTwice: resentAfterAck(audited)
      .map((r) => `${readable(r.id)} answered ${r.answers.join(', ')}`)
      .slice(0, 5),
    missing: [...expected.keys()]
      .filter((id) => !acked.has(id))
      .map(readable)
      .slice(0, 5),
    unexpected: unexpected.slice(0, 5),
    wrongValue: wrongValue.slice(0, 5),
    sent: audited.filter((p) => acknowledged(p.request)).length,
  };
}

/** The audit that passes: nothing resent, twice, missing, unexpected or wrong; `n` points acknowledged. */
export const clean = (n: number): SentAudit => ({
  resentAfterCommit: [],
  sentTwice: [],
  missing: [],
  unexpected: [],
  wrongValue: [],
  sent: n,
});
