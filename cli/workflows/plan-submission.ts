// From submit's options to a plan, nothing written yet: validate, pick the executor and a free run dir,
// check the request against the partition (Slurm, unless --no-check).
import * as fs from 'fs';
import * as path from 'path';
import { randomBytes } from 'crypto';
import { checkRunDirOwnership, invalidOption, packageVersion, registerSecret } from '../../core';
import { planStaging } from '../../data';
import { chooseExecutor, makePlan, MAX_GRID_BYTES, preflightCheck, validateSubmit } from '../../launcher';
import type { RawSubmitOptions, SubmitPlan } from '../../launcher';
import { tracking } from '../lazy';

const isFile = (f: string): boolean => fs.statSync(f, { throwIfNoEntry: false })?.isFile() ?? false;
const onPath = (program: string): boolean =>
  (process.env.PATH ?? '').split(path.delimiter).some((d) => {
    if (!d) return false;
    try {
      fs.accessSync(path.join(d, program), fs.constants.X_OK);
      return isFile(path.join(d, program));
    } catch {
      return false; // not in this PATH entry: try the next
    }
  });

/** The user's --run-dir (theirs and private when it exists), else the default with 6 random hex digits
 *  added, so that submissions in the same second never pick the same name. */
function chooseRunDir(given: unknown, resolved: string): string {
  if (given) {
    if (fs.lstatSync(resolved, { throwIfNoEntry: false })) checkRunDirOwnership(resolved);
    return resolved;
  }
  for (;;) {
    const d = `${resolved}-${randomBytes(3).toString('hex')}`;
    if (!fs.existsSync(d)) return d;
  }
}

/** A --param-grid file: small, and read once here (the plan carries its parameter sets). */
function readParamGrid(file: string): string {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st?.isFile()) throw invalidOption('param-grid', file, 'give a JSON-lines file that exists');
  if (st.size > MAX_GRID_BYTES)
    throw invalidOption(
      'param-grid',
      file,
      `it has ${st.size} bytes; a grid file holds at most ${MAX_GRID_BYTES}`,
    );
  return fs.readFileSync(file, 'utf8');
}

export async function planSubmission(
  options: RawSubmitOptions & { executor?: string; check?: boolean },
  command: string[],
): Promise<{ plan: SubmitPlan; fit?: string }> {
  const validated = validateSubmit(
    { ...options, command },
    {
      cwd: process.cwd(),
      now: new Date(),
      checkMetricsFormat: (f) => tracking().parserFor(f),
      // MLflow's rule for param keys, from the tracking plugin (it owns MLflow's names).
      isValidParamKey: (key) => tracking().isValidName(key),
      // Loaded only when there are params: the plugin is not needed to plan most jobs.
      ...(options.param === undefined && options.paramGrid === undefined
        ? {}
        : { maxParamValue: tracking().MAX_PARAM_VALUE }),
      readParamGrid,
      isSet: (name) => process.env[name] !== undefined,
      trackingUri: tracking().trackingUri(undefined) ?? '',
      ...(options.check === false ? {} : { commandProbes: { isFile, onPath, exists: fs.existsSync } }),
    },
  );
  // --env values are secrets: redacted from every message from here on.
  for (const e of validated.env) registerSecret(e.value?.reveal());
  const spec = { ...validated, runDir: chooseRunDir(options.runDir, validated.runDir) };
  if (spec.stage && !fs.existsSync(spec.stage))
    throw invalidOption('stage', spec.stage, 'give a file or directory that exists on the shared filesystem');
  const executor = chooseExecutor(options.executor, (msg) => process.stderr.write(`track-launch: ${msg}\n`));
  // A shard directory is staged per node: checked here, its bytes per node shown in the plan.
  const stagePlan = spec.stage ? planStaging(spec.stage, spec) : undefined;
  const plan = makePlan(stagePlan ? { ...spec, stagePlan } : spec, {
    cwd: process.cwd(),
    version: packageVersion(),
    executor,
  });
  if (executor !== 'slurm' || options.check === false) return { plan };
  const pre = await preflightCheck(spec);
  for (const w of pre.warnings) process.stderr.write(`track-launch: warning: ${w}\n`);
  return { plan, ...(pre.fit ? { fit: pre.fit } : {}) }; // fit: how the request fits the partition
}
