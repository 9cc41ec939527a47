// track-launch submit: make a plan from the options, then print it (--dry-run) or execute it.
import { CommandModule } from 'yargs';
import { invalidOption } from '../../core';
import type { RawSubmitOptions, SubmitPlan } from '../../launcher';
import { SETTINGS_HELP } from '../settings';
import { printJson, printJsonResult } from '../output';
import { planSubmission } from '../workflows/plan-submission';
import { jobFailed, submitAndTrack, type Tracked } from '../workflows/follow-and-track';
import { submitOptions } from './submit-options';

type Args = RawSubmitOptions & {
  executor?: string;
  check?: boolean;
  dryRun?: boolean;
  follow?: boolean;
  poll: string;
  json?: boolean;
  '--'?: string[];
};

export function formatPlan(plan: SubmitPlan, fit?: string): string {
  return [
    `# track-launch plan ${plan.digest}`,
    `# layout:  ${plan.layout}`,
    ...(fit ? [`# cluster: ${fit}`] : []),
    `# run dir: ${plan.spec.runDir}`,
    ...taskLines(plan),
    `# command: ${plan.argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}`,
    `# script (${plan.scriptPath}):`,
    plan.script,
  ].join('\n');
}

/** An array job's tasks: each one's run directory (and parameters, for a sweep); the first 20. */
function taskLines(plan: SubmitPlan): string[] {
  if (!plan.tasks) return [];
  const shown = plan.tasks.slice(0, 20).map((t) => {
    const params = t.params ? `  ${JSON.stringify(t.params)}` : '';
    return `#   task ${t.task}: ${t.runDir}${params}`;
  });
  const more = plan.tasks.length > 20 ? [`#   ... and ${plan.tasks.length - 20} more tasks`] : [];
  return [
    `# array:   ${plan.spec.array?.text} (${plan.tasks.length} tasks, each in <run dir>/task-<N>)`,
    ...shown,
    ...more,
  ];
}

function printDryRun(plan: SubmitPlan, fit: string | undefined, json: boolean): void {
  if (!json) return void process.stdout.write(formatPlan(plan, fit) + '\n');
  printJson({
    plan: {
      executor: plan.executor,
      digest: plan.digest,
      layout: plan.layout,
      cluster: fit,
      argv: plan.argv,
      script_path: plan.scriptPath,
      script: plan.script,
      spec: plan.spec,
      tasks: plan.tasks ?? null,
    },
  });
}

const jobJson = (t: Tracked): object => ({
  job_id: t.jobId,
  run_dir: t.runDir,
  state: t.state,
  tracking: t.summary ?? null,
  reports: t.reports ?? [],
  ...(t.tasks ? { tasks: t.tasks.map(jobJson) } : {}),
});

async function handler(argv: Args): Promise<void> {
  const command = [...((argv.command as string[] | undefined) ?? []), ...(argv['--'] ?? [])].map(String);
  const pollS = Number(argv.poll);
  if (!Number.isFinite(pollS) || pollS <= 0)
    throw invalidOption('poll', argv.poll, 'use a number of seconds greater than 0, e.g. 2');
  const { plan, fit } = await planSubmission(argv, command);
  if (argv.follow && plan.spec.track === 'job')
    throw invalidOption(
      'track',
      'job',
      'with --follow this terminal tracks the job: leave out --track job, or --follow',
    );
  if (argv.dryRun) return printDryRun(plan, fit, Boolean(argv.json));
  const json = Boolean(argv.json);
  const job = await submitAndTrack(plan, {
    follow: Boolean(argv.follow),
    pollMs: Math.max(0.2, pollS) * 1000,
    json,
  });
  if (!argv.follow)
    return json
      ? printJson({
          job_id: job.jobId,
          run_dir: job.runDir,
          track: plan.spec.track,
          follower: job.follower ?? null,
        })
      : undefined;
  const failed = jobFailed(job);
  if (json) printJsonResult(jobJson(job), failed);
  if (failed) throw failed;
  if (!json) process.stderr.write(`job ${job.jobId} COMPLETED\n`);
}

/** `defaults`: values from the config file and TRACK_LAUNCH_* variables; flags override them. */
export const submitCommand = (defaults: Record<string, unknown> = {}): CommandModule<object, Args> => ({
  command: 'submit [command..]',
  describe: 'Render the sbatch script for a DDP job and submit it',
  builder: (y) =>
    submitOptions(y.config(defaults))
      .usage(
        '$0 submit [options] -- <command> [args...]\n\nRender the sbatch script for a DDP job and submit it. Everything after -- is the command each rank runs, passed byte-exact. With --follow, the metrics are ingested while the job runs and the report is rendered once it ends.',
      )
      .example('$0 submit --nodes 3 -- python3 train.py --epochs 10', 'one rank per node, srun, gloo')
      .example(
        '$0 submit -N 2 --gpus-per-node 4 -p gpu -t 2:00:00 --follow -- python3 train.py',
        '8 ranks on 2 GPU nodes, wait for the end',
      )
      .example(
        '$0 submit -N 4 --launcher torchrun --gpus-per-node 8 -- train.py',
        'torchrun per node, static rendezvous at the discovered master',
      )
      .example(
        '$0 submit -N 3 --launcher mpiexec --backend mpi --module OpenMPI/4.1.4 --container pytorch.sif -- python3 main.py',
        'seed 004 style',
      )
      .example('$0 submit -N 3 --dry-run -- python3 train.py', 'print the script and the sbatch command only')
      .example(
        '$0 submit -N 1 --param-grid grid.jsonl --follow -- python3 train.py',
        'a sweep: one array task per line of grid.jsonl, each with its own run dir and MLflow parent run',
      )
      .epilog(SETTINGS_HELP) as never,
  handler: handler as never,
});
