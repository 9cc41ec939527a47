// The spool stage for system metrics: the new whole lines of a node file -> points -> spool text and
// the advanced cursor. Two kinds of stream read the same file, each with its own cursor: the node's
// stream (spool/node-<host>.system.jsonl, for the parent run: every figure once, per-node keys)
// and a rank's stream (spool/rank-R.system.jsonl: only that rank's GPU). Like spoolRank, the
// caller appends the text durably and then commits the cursor in state.json, so each sample
// becomes points once per stream.
import type { ResourceSample } from '../../core';
import { runPaths } from '../../core';
import type { MetricPoint } from '../types';
import { encodeRecords } from './records';
import type { SystemCursor } from './state';
import { linesToPoints, nodePoints, rankPoints } from '../system/points';
import { readBatch } from '../logs/reader';

export interface SystemStep {
  cursor: SystemCursor;
  points: number;
  data: string;
}

/** A hostname as a file name part: anything that could leave logs/ is not followed. */
const safeHost = (host: string) => host !== '' && !/[/\\\0]/.test(host) && host !== '.' && host !== '..';

/** A node's stream, for the parent run. Undefined when there is nothing new. */
export const spoolNode = (runDir: string, host: string, cur: SystemCursor | undefined) =>
  spoolFile(runDir, host, cur, (s, step) => nodePoints(s, host, step));

/** A rank's stream: its GPU (the one whose index is its local rank) from its node's samples;
 *  undefined when there is nothing new (no host or local rank known yet, no file, no new whole line).
 *  A rank on a node without GPUs advances its cursor and gets no points (docs/cluster.md). */
export function spoolSystem(
  runDir: string,
  host: string | undefined,
  cur: SystemCursor | undefined,
  localRank?: number,
): Promise<SystemStep | undefined> {
  if (host === undefined || localRank === undefined) return Promise.resolve(undefined);
  return spoolFile(runDir, host, cur, (s, step) => rankPoints(s, localRank, step));
}

async function spoolFile(
  runDir: string,
  host: string,
  cur: SystemCursor | undefined,
  toPoints: (s: ResourceSample, step: number) => MetricPoint[],
): Promise<SystemStep | undefined> {
  if (!safeHost(host)) return undefined;
  const file = runPaths(runDir).nodeResources(host);
  // Keyed by host: a requeued rank may land on another node; each file is read once, from where it stopped.
  const at = cur?.files[host] ?? { bytes: 0, lines: 0 };
  const lines = (await readBatch(runDir, file, at.bytes)).toLogLines(); // a missing file reads as empty
  if (lines.length === 0) return undefined;
  const points = linesToPoints(lines, at.lines, file, toPoints);
  const data = encodeRecords(points);
  const base = cur ?? { files: {}, spool: 0, points: 0 };
  return {
    cursor: {
      files: {
        ...base.files,
        [host]: { bytes: lines[lines.length - 1].end, lines: at.lines + lines.length },
      },
      spool: base.spool + Buffer.byteLength(data),
      points: base.points + points.length,
    },
    points: points.length,
    data,
  };
}
