// From submit's options to a plan: validate, pick the executor and a free run dir, check the
// request against the partition (Slurm, unless --no-check). Nothing is written yet.
import * as fs from 'fs';
import { invalidOption, packageVersion } from '../../core';
import { chooseExecutor, makePlan, preflightCheck, validateSubmit } from '../../launcher';
import type { RawSubmitOptions, SubmitPlan } from '../../launcher';
import { tracking } from '../lazy';

export interface PlannedSubmission {
  plan: SubmitPlan;
  /** How the request fits the partition (Slurm, checked). */
  fit?: string;
}

/** runs/x-20261202-101112, else -2, -3, ... (prepareRunDir still claims it exclusively). */
function freeRunDir(dir: string): string {
  for (let i = 2, d = dir; ; d = `${dir}-${i++}`) if (!fs.existsSync(d)) return d;
}

export async function planSubmission(
  options: RawSubmitOptions & { executor?: string; check?: boolean },
  command: string[],
): Promise<PlannedSubmission> {
  const validated = validateSubmit(
    { ...options, command },
    { cwd: process.cwd(), now: new Date(), checkMetricsFormat: (f) => tracking().parserFor(f) },
  );
  // Two submissions in the same second get distinct default run dirs (an explicit --run-dir is taken as given).
  const spec = options.runDir ? validated : { ...validated, runDir: freeRunDir(validated.runDir) };
  if (spec.stage && !fs.existsSync(spec.stage)) {
    throw invalidOption('stage', spec.stage, 'give a file or directory that exists on the shared filesystem');
  }
  const executor = chooseExecutor(options.executor, (msg) => process.stderr.write(`track-launch: ${msg}\n`));
  const plan = makePlan(spec, { cwd: process.cwd(), version: packageVersion(), executor });
  if (executor !== 'slurm' || options.check === false) return { plan };
  const pre = await preflightCheck(spec);
  for (const w of pre.warnings) process.stderr.write(`track-launch: warning: ${w}\n`);
  return { plan, ...(pre.fit ? { fit: pre.fit } : {}) };
}
