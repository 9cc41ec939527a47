// A plan is the dry run as a value: the rendered script, where it goes, and the exact command
// that submits it. `submit --dry-run` prints it; `submit` executes it and nothing else.
import { createHash } from 'crypto';
import * as path from 'path';
import { JobSpec, worldSize } from '../spec/types';
import { renderSbatchScript } from './render-sbatch';

export interface SubmitPlan {
  spec: JobSpec;
  script: string;
  scriptPath: string;
  /** argv of the submission; argv[0] is the program. */
  argv: string[];
  cwd: string;
  digest: string;
  layout: string;
}

export function makePlan(spec: JobSpec, ctx: { cwd: string; version: string }): SubmitPlan {
  const script = renderSbatchScript(spec, { version: ctx.version });
  const scriptPath = path.join(spec.runDir, 'job.sbatch');
  const argv = ['sbatch', '--parsable', `--output=${path.join(spec.runDir, 'logs', 'job.out')}`, `--chdir=${ctx.cwd}`, scriptPath];
  const digest = createHash('sha256').update(script).update('\0').update(argv.join('\0')).digest('hex').slice(0, 16);
  const perTask = spec.gpusPerNode > 0 ? `, ${spec.gpusPerNode / spec.tasksPerNode} GPU(s) per task` : '';
  const layout = `${spec.nodes} node(s) x ${spec.tasksPerNode} task(s) per node = world size ${worldSize(spec)}${perTask}`;
  return { spec, script, scriptPath, argv, cwd: ctx.cwd, digest, layout };
}
