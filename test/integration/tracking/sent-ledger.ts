// What a run dir's stage-2 state says MLflow acknowledged (the committed cursors), as point ids, and
// what its logs hold, read by the test's own regexes (not by the plugin's parsers): the two sides a
// counting proxy's record is checked against.
import { promises as fs } from 'fs';
import * as path from 'path';
import { trackingPaths } from '../../../core';
import { decodeRecords } from '../../../tracking-plugin/ingest/records';
import { pointId } from './counting-proxy';

/** Ids of the points every committed cursor of `uri`'s state in `dir` points past. */
export async function committedIds(dir: string, uri: string): Promise<Set<string>> {
  const ids = new Set<string>();
  const file = trackingPaths(dir).remote(uri);
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
    const m = /^(parent|rank|system)(?:-(\d+))?$/.exec(stream);
    if (!m) throw new Error(`unknown stream ${stream} in ${file}`);
    const spool =
      m[1] === 'parent'
        ? 'parent.jsonl'
        : m[1] === 'rank'
          ? `rank-${m[2]}.jsonl`
          : `rank-${m[2]}.system.jsonl`;
    const runId = m[1] === 'parent' ? state.parent_run_id : state.rank_run_ids[m[2]];
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

/** A jsonl-protocol rank log and its .out.ts, read with the test's own regexes. */
export async function loggedPoints(dir: string, rank: number): Promise<LoggedPoint[]> {
  const out = (await fs.readFile(path.join(dir, 'logs', `rank-${rank}.out`), 'utf8')).split('\n');
  const ts = (await fs.readFile(path.join(dir, 'logs', `rank-${rank}.out.ts`), 'utf8')).split('\n');
  const points: LoggedPoint[] = [];
  out.forEach((line, i) => {
    const m = /^\{"track_launch":1,"step":(\d+),"metrics":\{(.*)\}\}$/.exec(line);
    if (!m) return;
    const t = /^(\d+)\.(\d{3})\d*$/.exec(ts[i]);
    if (!t) throw new Error(`rank-${rank}.out.ts line ${i + 1} has no time: ${ts[i]}`);
    for (const kv of m[2].matchAll(/"([^"]+)":("NaN"|-?[0-9.e+-]+)/g))
      points.push({
        key: kv[1],
        step: Number(m[1]),
        timestamp: Number(t[1]) * 1000 + Number(t[2]),
        value: kv[2] === '"NaN"' ? 'NaN' : Number(kv[2]),
      });
  });
  return points;
}
