// A plan is the dry run as a value: the rendered script, where it goes, and the exact command
// that submits it. `submit --dry-run` prints it; `submit` executes it and nothing else.
import { createHash } from 'crypto';
import * as path from 'path';
import { runPaths, TrackLaunchError } from '../../core';
import { JobSpec, worldSize } from '../spec/types';
import { renderLocalScript } from './render-local';
import { trackerProgram } from './in-allocation';
import { renderSbatchScript, type TrackerProgram } from './render-sbatch';

export type Executor = 'slurm' | 'local';

export interface SubmitPlan {
  executor: Executor;
  spec: JobSpec;
  script: string;
  scriptPath: string;
  /** argv of the submission; argv[0] is the program. */
  argv: string[];
  cwd: string;
  digest: string;
  layout: string;
  /** An array job's tasks and their run directories (and parameters, for a sweep). */
  tasks?: Array<{ task: number; runDir: string; params?: Record<string, string> }>;
}

export function makePlan(
  spec: JobSpec,
  ctx: {
    cwd: string;
    version: string;
    executor?: Executor;
    /** --track job: what the batch host runs (default: this process's Node.js and track-launch). */
    tracker?: TrackerProgram;
  },
): SubmitPlan {
  const executor = ctx.executor ?? 'slurm';
  const local = executor === 'local';
  if (local && spec.array)
    throw new TrackLaunchError('USAGE', '--array needs the Slurm executor: the local executor runs one job', {
      hint: 'Leave out --executor local (sbatch must be on PATH), or submit one local job per parameter set.',
    });
  if (local && spec.track === 'job')
    throw new TrackLaunchError('USAGE', '--track job needs the Slurm executor: it runs on the batch host', {
      hint: 'Leave out --track job (the local executor runs on this machine: --track login tracks it here).',
    });
  const script = local
    ? renderLocalScript(spec, { version: ctx.version })
    : renderSbatchScript(spec, {
        version: ctx.version,
        ...(spec.track === 'job' ? { tracker: ctx.tracker ?? trackerProgram() } : {}),
      });
  const scriptPath = path.join(spec.runDir, local ? 'job.local.sh' : 'job.sbatch');
  const argv = local
    ? ['bash', scriptPath]
    : [
        'sbatch',
        '--parsable',
        // An array task's output goes to its own directory (%a: the task id; a run dir has no %).
        `--output=${path.join(spec.runDir, ...(spec.array ? ['task-%a'] : []), 'logs', 'job.out')}`,
        `--chdir=${ctx.cwd}`,
        scriptPath,
      ];
  const digest = createHash('sha256')
    .update(script)
    .update('\0')
    .update(argv.join('\0'))
    .digest('hex')
    .slice(0, 16);
  const perTask = spec.gpusPerNode > 0 ? `, ${spec.gpusPerNode / spec.tasksPerNode} GPU(s) per task` : '';
  const array = spec.array
    ? `; array ${spec.array.text}: ${spec.array.tasks.length} task(s), each its own job`
    : '';
  const layout = `${spec.nodes} node(s) x ${spec.tasksPerNode} task(s) per node = world size ${worldSize(spec)}${perTask}${array}`;
  const tasks = spec.array?.tasks.map((task) => ({
    task,
    runDir: runPaths(spec.runDir).taskDir(task),
    ...(spec.paramGrid ? { params: spec.paramGrid.sets[task] } : {}),
  }));
  return {
    executor,
    spec,
    script,
    scriptPath,
    argv,
    cwd: ctx.cwd,
    digest,
    layout,
    ...(tasks ? { tasks } : {}),
  };
}
