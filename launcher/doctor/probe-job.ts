// The shared-filesystem probe (effects): a temporary directory under the run directories' parent,
// a one-line batch job that writes into it from a compute node, the login node reading it back.
import { randomBytes } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { jobState, TrackLaunchError } from '../../core';
import type { JobStatus } from '../slurm/job-status';
import { SlurmClient } from '../slurm/client';
import { type ProcessRunner, runProcess } from '../slurm/run-process';
import { type DoctorCheck, fail, failFrom } from './check';
import { PROBE_CHECK, probeArgv, type ProbeJobOptions, type ProbeSeen, probeVerdict } from './probe-plan';
import { trackerVerdicts } from './probe-plan';

export interface ProbeOptions extends ProbeJobOptions {
  /** Where run directories go (the parent of --run-dir, ./runs by default). */
  parent: string;
  timeoutS: number;
  run?: ProcessRunner;
  pollMs?: number;
}

const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** The probe file's content, or undefined while it is not there (open, not stat: NFS caches misses). */
function readBack(file: string): string | undefined {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
}

/** The run-dir check; with `tracker`, once the node wrote, what --track job needs there (probe-plan.ts). */
export async function probeSharedDir(o: ProbeOptions): Promise<DoctorCheck[]> {
  const parent = path.resolve(o.parent);
  let dir: string;
  try {
    fs.mkdirSync(parent, { recursive: true, mode: 0o700 });
    dir = fs.mkdtempSync(path.join(parent, '.track-launch-doctor-')); // mode 0700
  } catch (err) {
    const why = `cannot create a directory in ${parent}: ${(err as Error).message}`;
    return [fail(PROBE_CHECK, `${why}; choose a --run-dir you can write to`, 'RUN_DIR')];
  }
  const slurm = new SlurmClient(o.run ?? runProcess);
  const token = randomBytes(12).toString('hex');
  let jobId: string | undefined;
  let last: JobStatus | undefined;
  try {
    jobId = (await slurm.submit(probeArgv(dir, token, o), parent)).jobId;
    const t0 = Date.now();
    let completedAt: number | undefined;
    let content: string | undefined;
    let asked = 0;
    for (;;) {
      content = readBack(path.join(dir, 'probe'));
      const waited = Date.now() - t0;
      if (content !== undefined || waited > o.timeoutS * 1000) break;
      if (Date.now() - asked > 2000) {
        asked = Date.now();
        last = await statusOrLast(slurm, jobId, last);
        if (last && jobState(last.state).final && last.state !== 'COMPLETED') break;
        if (last?.state === 'COMPLETED') completedAt ??= Date.now();
      }
      // NFS: a file another client wrote may take the attribute cache's time (up to ~60 s) to show
      if (completedAt !== undefined && Date.now() - completedAt > Math.min(60_000, o.timeoutS * 500)) break;
      await sleep(o.pollMs ?? 250);
    }
    const seen: ProbeSeen = {
      parent,
      jobId,
      token,
      waitedS: (Date.now() - t0) / 1000,
      ...(content !== undefined ? { content } : {}),
      ...(last ? { state: last.state, reason: last.reason, exitCode: last.exitCode, nodes: last.nodes } : {}),
    };
    const shared = probeVerdict(seen);
    const tracker = o.tracker && content !== undefined && shared.verdict === 'OK';
    return [shared, ...(tracker ? trackerVerdicts(content!, o.tracker!) : [])];
  } catch (err) {
    return [failFrom(PROBE_CHECK, err, jobId ? `probe job ${jobId}` : 'submitting the probe job')];
  } finally {
    if (jobId && !(last && jobState(last.state).final)) await cancelQuietly(slurm, jobId);
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** A scheduler that does not answer this once is asked again on the next poll. */
async function statusOrLast(
  slurm: SlurmClient,
  jobId: string,
  last?: JobStatus,
): Promise<JobStatus | undefined> {
  try {
    return await slurm.status(jobId);
  } catch (err) {
    if (err instanceof TrackLaunchError) return last;
    throw err;
  }
}

/** The probe is cancelled once it is no longer needed; a job already gone is no problem. */
async function cancelQuietly(slurm: SlurmClient, jobId: string): Promise<void> {
  try {
    await slurm.cancel(jobId);
  } catch (err) {
    if (!(err instanceof TrackLaunchError)) throw err;
    process.stderr.write(`track-launch: warning: could not cancel probe job ${jobId}: ${err.message}\n`);
  }
}
