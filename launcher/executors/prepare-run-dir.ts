// Lay out a new run directory for a plan (the script, the bootstrap copy, job.json) and start the
// job there: the one preparation both executors share, undone when the start fails.
import * as fs from 'fs';
import * as path from 'path';
import { createRunDir, createTaskDirs, sbatchDir, writeAtomic, writeJobRecord } from '../../core';
import { JobRecord, runPaths, TrackLaunchError } from '../../core';
import { jobRecordFor } from '../plan/job-record';
import { SubmitPlan } from '../plan/plan';
import type { BeforeSubmit } from './executor';

/** Prepare the plan's run directory, call `beforeSubmit` on it, then `start` the job; a start that
 *  fails undoes `beforeSubmit`'s work and removes exactly what was prepared (nothing ran: the same
 *  --run-dir can be used again). A run directory that already
 *  holds a job is refused, so nothing of an earlier run is overwritten. Everything is private to the
 *  user (0700 directories and scripts, 0600 files), whatever the umask. */
export async function startInRunDir<T>(
  plan: SubmitPlan,
  executor: JobRecord['executor'],
  now: Date,
  start: () => Promise<T>,
  beforeSubmit?: BeforeSubmit,
): Promise<T> {
  const p = runPaths(plan.spec.runDir);
  const undo = createRunDir(p.root);
  try {
    copyBootstrap(p.root, p.binDir);
    writeAtomic(p.root, plan.scriptPath, plan.script, 0o700);
    const record = jobRecordFor(plan, executor, now);
    writeJobRecord(p.root, record);
    // An array job: every task's run directory now, before any task can start (output, parameters).
    const grid = plan.spec.paramGrid;
    if (plan.spec.array)
      createTaskDirs(p.root, record, (task) => grid && { text: grid.sets[task], raw: grid.raw[task] });
    const undoBefore = await beforeSubmit?.(p.root);
    try {
      return await start();
    } catch (e) {
      try {
        await undoBefore?.();
      } catch (u) {
        throw alsoFailed(e, u);
      }
      throw e;
    }
  } catch (e) {
    undo();
    throw e;
  }
}

/** The start's error, saying also what undoing beforeSubmit's work left behind. */
function alsoFailed(e: unknown, undo: unknown): Error {
  const also = undo instanceof Error ? undo.message : String(undo);
  const message = `${e instanceof Error ? e.message : String(e)}; also: ${also}`;
  if (!(e instanceof TrackLaunchError)) return new Error(message, { cause: e });
  return new TrackLaunchError(e.code, message, { hint: e.hint, details: e.details, cause: e });
}

/** The bootstrap the nodes run, copied from this package's sbatch/ (read here: not the run dir). */
function copyBootstrap(root: string, binDir: string): void {
  const src = sbatchDir();
  for (const f of fs.readdirSync(src).filter((n) => n.endsWith('.sh')))
    writeAtomic(root, path.join(binDir, f), fs.readFileSync(path.join(src, f)), 0o700);
  // Regular .sh/.py files only: a stray __pycache__/ or editor file must not break every submit.
  const lib = fs
    .readdirSync(path.join(src, 'lib'), { withFileTypes: true })
    .filter((e) => e.isFile() && /\.(sh|py)$/.test(e.name));
  for (const e of lib)
    writeAtomic(root, path.join(binDir, 'lib', e.name), fs.readFileSync(path.join(src, 'lib', e.name)));
}
