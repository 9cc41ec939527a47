// Stage 1 for system metrics: the new whole lines of the node file of a rank's host -> points ->
// spool text and the advanced cursor. Like spoolRank, the caller appends the text durably and
// then commits the cursor in state.json, so each sample becomes points once per rank run.
import { runPaths } from '../../core';
import { encodeRecords } from './records';
import { readLines } from './spool';
import type { SystemCursor } from './state';
import { linesToPoints } from '../system/points';

export interface SystemStep {
  cursor: SystemCursor;
  points: number;
  data: string;
}

export const newSystemCursor = (): SystemCursor => ({ files: {}, spool: 0, points: 0 });

/** A hostname as a file name part: anything that could leave logs/ is not followed. */
const safeHost = (host: string) => host !== '' && !/[/\\\0]/.test(host) && host !== '.' && host !== '..';

/** Undefined when there is nothing new (no host known yet, no file yet, no new whole line). */
export async function spoolSystem(
  runDir: string,
  host: string | undefined,
  cur: SystemCursor | undefined,
): Promise<SystemStep | undefined> {
  if (host === undefined || !safeHost(host)) return undefined;
  const file = runPaths(runDir).nodeResources(host);
  const at = cur?.files[host] ?? { bytes: 0, lines: 0 };
  const lines = await readLines(runDir, file, at.bytes); // a missing file reads as empty
  if (lines.length === 0) return undefined;
  const points = linesToPoints(lines, at.lines, file);
  const data = encodeRecords(points);
  const base = cur ?? newSystemCursor();
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
