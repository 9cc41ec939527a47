// track-launch submit: make a plan from the options, then print it (--dry-run) or execute it.
import { CommandModule } from 'yargs';
import * as fs from 'fs';
import { invalidOption, TrackLaunchError } from '../../core';
import { packageVersion } from '../../core';
import { makePlan, SubmitPlan } from '../../launcher';
import { RawSubmitOptions, validateSubmit } from '../../launcher';
import { worldSize } from '../../launcher';
import { preflightCheck } from '../../launcher';
import { chooseExecutor, opsFor } from '../../launcher';
import { followJob } from '../../launcher';
import { isTerminal } from '../../core';
import type { Progress } from '../../tracking-plugin';
import { tracking } from '../lazy';
import { SETTINGS_HELP } from '../settings';
import { formatDuration, printJson, ProgressLine } from '../output';
import { reportAfterJob } from '../publish-report';
import { printSummary } from './ingest';
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

/** runs/x-20261202-101112, else -2, -3, ... (prepareRunDir still claims it exclusively). */
function freeRunDir(dir: string): string {
  for (let i = 2, d = dir; ; d = `${dir}-${i++}`) if (!fs.existsSync(d)) return d;
}

export function formatPlan(plan: SubmitPlan, fit?: string): string {
  return [
    `# track-launch plan ${plan.digest}`,
    `# layout:  ${plan.layout}`,
    ...(fit ? [`# cluster: ${fit}`] : []),
    `# run dir: ${plan.spec.runDir}`,
    `# command: ${plan.argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : JSON.stringify(a))).join(' ')}`,
    `# script (${plan.scriptPath}):`,
    plan.script,
  ].join('\n');
}

async function handler(argv: Args): Promise<void> {
  const command = [...((argv.command as string[] | undefined) ?? []), ...(argv['--'] ?? [])].map(String);
  const pollS = Number(argv.poll);
  if (!Number.isFinite(pollS) || pollS <= 0)
    throw invalidOption('poll', argv.poll, 'use a number of seconds greater than 0, e.g. 2');
  const validated = validateSubmit(
    { ...argv, command },
    { cwd: process.cwd(), now: new Date(), checkMetricsFormat: (f) => tracking().parserFor(f) },
  );
  // Two submissions in the same second get distinct default run dirs (an explicit --run-dir is taken as given).
  const spec = argv.runDir ? validated : { ...validated, runDir: freeRunDir(validated.runDir) };
  if (spec.stage && !fs.existsSync(spec.stage)) {
    throw invalidOption('stage', spec.stage, 'give a file or directory that exists on the shared filesystem');
  }
  const executor = chooseExecutor(argv.executor, (msg) => process.stderr.write(`track-launch: ${msg}\n`));
  const plan = makePlan(spec, { cwd: process.cwd(), version: packageVersion(), executor });
  // Before anything is written: does the request fit the partition? (--no-check skips it.)
  let fit: string | undefined;
  if (executor === 'slurm' && argv.check !== false) {
    const pre = await preflightCheck(spec);
    for (const w of pre.warnings) process.stderr.write(`track-launch: warning: ${w}\n`);
    fit = pre.fit;
  }
  if (argv.dryRun) {
    if (argv.json)
      printJson({
        plan: {
          executor,
          digest: plan.digest,
          layout: plan.layout,
          cluster: fit,
          argv: plan.argv,
          script_path: plan.scriptPath,
          script: plan.script,
          spec,
        },
      });
    else process.stdout.write(formatPlan(plan, fit) + '\n');
    return;
  }
  const ops = opsFor(executor);
  // Ctrl-C while following cancels the job (Slurm or local), then waits for its final state. The
  // handler is in place before the job exists, so no Ctrl-C from submission on is lost: one that
  // comes while submitting cancels the job as soon as it has an id.
  let interrupted = false;
  let submitted: { jobId: string; runDir: string } | undefined;
  const cancelJob = async ({ jobId, runDir }: { jobId: string; runDir: string }) => {
    process.stderr.write(`\ntrack-launch: cancelling job ${jobId} (Ctrl-C again to stop waiting)\n`);
    for (let attempt = 1; ; attempt++) {
      try {
        return await ops.cancel(runDir);
      } catch (e) {
        // Already over, or not cancellable yet: ask again while the job has not ended.
        const st = (await ops.refresh(runDir).catch(() => undefined))?.state;
        if ((st && isTerminal(st.name)) || attempt >= 5)
          return void process.stderr.write(`track-launch: ${(e as Error).message}\n`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    }
  };
  const onInt = () => {
    if (interrupted) process.exit(130);
    interrupted = true;
    if (submitted) void cancelJob(submitted);
    else process.stderr.write('\ntrack-launch: Ctrl-C: the job is cancelled as soon as it is submitted\n');
  };
  if (argv.follow) process.on('SIGINT', onInt);
  try {
    submitted = await ops.submit(plan, new Date());
  } catch (e) {
    process.off('SIGINT', onInt);
    throw e;
  }
  const { jobId, runDir } = submitted;
  if (argv.json && !argv.follow) printJson({ job_id: jobId, run_dir: runDir });
  else if (!argv.json)
    process.stderr.write(`Submitted job ${jobId} (${plan.layout})\n  run dir: ${runDir}\n`);
  if (!argv.follow) return;
  if (interrupted) void cancelJob(submitted);
  const progress = new ProgressLine(process.stderr, Boolean(argv.json));
  // Ingest while the job runs: always into the run dir's spool, and to MLflow when a URI is set.
  const live = tracking().startLiveIngest(runDir, { pollMs: 2000 });
  const rec = await followJob(runDir, ops.refresh, {
    pollMs: Math.max(0.2, pollS) * 1000,
    onProgress: (p) =>
      progress.update(
        `job ${jobId}: ${p.record.state?.name ?? 'UNKNOWN'}  ranks started ${p.ranksStarted}/${worldSize(spec)}`,
        `  ${formatDuration(p.elapsedS)}  ${trackingLine(live.progress())}`,
      ),
  }).finally(() => process.off('SIGINT', onInt));
  progress.done();
  const st = rec.state!;
  live.jobEnded(st.name);
  // Tracking trouble never changes the job's outcome: everything stays spooled for `sync`.
  const summary = await live.done.catch((e: Error) => {
    process.stderr.write(
      `track-launch: warning: live tracking stopped: ${e.message}\n  run \`track-launch ingest ${runDir}\` to finish it\n`,
    );
    return undefined;
  });
  if (summary && !argv.json) printSummary(summary);
  const report = await reportAfterJob(runDir, { json: Boolean(argv.json) });
  if (argv.json)
    printJson({
      job_id: jobId,
      run_dir: runDir,
      state: st,
      tracking: summary ?? null,
      reports: report?.files ?? [],
    });
  if (st.name !== 'COMPLETED') {
    const who =
      st.failed_rank !== undefined ? `; rank ${st.failed_rank} on ${st.failed_host} failed first` : '';
    throw new TrackLaunchError(
      'JOB_FAILED',
      `job ${jobId} ended ${st.name}${st.exit_code !== undefined ? ` (exit ${st.exit_code}:${st.signal ?? 0})` : ''}${who}`,
      {
        hint: `Logs: track-launch logs ${jobId}${st.failed_rank !== undefined ? ` --rank ${st.failed_rank}` : ''}  (files in ${runDir}/logs)`,
        details: { jobId, runDir, state: st },
      },
    );
  }
  if (!argv.json) process.stderr.write(`job ${jobId} COMPLETED\n`);
}

const trackingLine = (p: Progress): string => (p.pointsSpooled ? `| ${tracking().formatProgress(p)}` : '');

/** `defaults`: values from the config file and TRACK_LAUNCH_* variables; flags override them. */
export const submitCommand = (defaults: Record<string, unknown> = {}): CommandModule<object, Args> => ({
  command: 'submit [command..]',
  describe: 'Render the sbatch script for a DDP job and submit it',
  builder: (y) =>
    submitOptions(y.config(defaults))
      .usage(
        '$0 submit [options] -- <command> [args...]\n\nRender the sbatch script for a DDP job and submit it. Everything after -- is the command each rank runs, passed byte-exact.',
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
      .epilog(SETTINGS_HELP) as never,
  handler: handler as never,
});
