// track-launch status: the job's state from Slurm, its ranks from the run directory.
import { CommandModule } from 'yargs';
import { arrayTasks, firstFailedRank, readAllRankFacts, readJobRecordIfAny, resolveRunDir } from '../../core';
import type { JobRecord, RankFacts } from '../../core';
import { formatAccountingEfficiency, formatEfficiency, executorForRunDir } from '../../launcher';
import { readAccountingEfficiency, readEfficiency } from '../../launcher';
import { printJson } from '../output';
import { trackedRunUrl } from '../mlflow-link';
import { formatTracker, trackerView } from '../tracker-view';

type Args = { job: string; json?: boolean };

function formatStatus(rec: JobRecord, facts: RankFacts[], failed?: RankFacts, mlflowUrl?: string): string {
  const st = rec.state;
  const lines = [
    `job ${rec.job_id ?? '(not submitted)'}  ${rec.name}  ${st?.name ?? 'UNKNOWN'}${st?.exit_code !== undefined ? ` exit ${st.exit_code}:${st.signal ?? 0}` : ''}`,
    `  layout:   ${rec.spec.nodes} node(s) x ${rec.spec.tasks_per_node} = world size ${rec.spec.world_size}, ${rec.executor === 'local' ? 'local executor' : rec.spec.launcher}, ${rec.spec.backend}`,
  ];
  if (st?.nodes) lines.push(`  nodes:    ${st.nodes}`);
  if (mlflowUrl) lines.push(`  mlflow:   ${mlflowUrl}`);
  if (st?.reason && st.name === 'PENDING') lines.push(`  reason:   ${st.reason}`);
  const master = facts.find((f) => f.master_addr);
  if (master) lines.push(`  master:   ${master.master_addr}:${master.master_port}`);
  if (failed)
    lines.push(`  failed:   rank ${failed.rank} on ${failed.host} exited ${failed.exit_code} first`);
  if (facts.length) {
    lines.push(`  ranks:    ${facts.length}/${rec.spec.world_size} started`);
    for (const f of facts) {
      const end = f.exit_code === undefined ? 'running' : `exit ${f.exit_code}`;
      lines.push(
        `    rank ${f.rank}  ${f.host}  ${f.ip || '-'}  local ${f.local_rank}  node ${f.node_rank}  ${end}`,
      );
    }
  }
  return lines.join('\n');
}

/** An array job's tasks, each from its own run directory (task-<N>/job.json and its rank facts). */
function taskRows(runDir: string) {
  return arrayTasks(runDir).map(({ task, dir }) => {
    const rec = readJobRecordIfAny(dir);
    const facts = readAllRankFacts(dir);
    return {
      task,
      job_id: rec?.job_id,
      run_dir: dir,
      state: rec?.state,
      ranks_started: facts.length,
      failed: firstFailedRank(facts, rec?.state?.name) ?? null,
    };
  });
}

/** One line per task: id, state and exit, nodes, ranks started, the rank that failed, run dir. */
function formatTasks(rec: JobRecord, rows: ReturnType<typeof taskRows>): string[] {
  if (!rec.array) return [];
  const lines = [`  array:    ${rec.array.spec}, ${rows.length} task(s), each in <run dir>/task-<N>`];
  for (const t of rows) {
    const st = t.state;
    const exit = st?.exit_code !== undefined ? ` exit ${st.exit_code}:${st.signal ?? 0}` : '';
    const failed = t.failed ? `  failed: rank ${t.failed.rank} on ${t.failed.host}` : '';
    lines.push(
      `    task ${t.task}  ${t.job_id ?? '-'}  ${st?.name ?? 'UNKNOWN'}${exit}  ${st?.nodes ?? '-'}  ranks ${t.ranks_started}/${rec.spec.world_size}${failed}  ${t.run_dir}`,
    );
  }
  return lines;
}

export const statusCommand: CommandModule<object, Args> = {
  command: 'status <job>',
  describe: "Show a job's state, its ranks and hosts, and which rank failed",
  builder: (y) =>
    y
      .positional('job', {
        type: 'string',
        describe: 'Job id (an array task: JOB_TASK, e.g. 1234_2) or run directory',
        demandOption: true,
      })
      .example(
        '$0 status 1234',
        'by job id (looked up in the index of submitted jobs); an array job lists its tasks',
      )
      .example('$0 status 1234_2', 'one task of an array job')
      .example('$0 status runs/train-20261202-101112 --json', 'by run directory, as JSON') as never,
  handler: async (argv) => {
    const runDir = resolveRunDir(argv.job);
    const rec = await executorForRunDir(runDir).refresh(runDir);
    const facts = readAllRankFacts(runDir);
    const failed = firstFailedRank(facts, rec.state?.name);
    const tasks = rec.array ? taskRows(runDir) : undefined;
    const mlflowUrl = await trackedRunUrl(runDir);
    const tracker = trackerView(runDir, rec);
    const efficiency = readEfficiency(runDir);
    // seff's figures from Slurm's accounting (sacct), beside the node samples; none without sacct.
    const accounting =
      rec.executor === 'slurm' && rec.job_id ? await readAccountingEfficiency(rec.job_id) : undefined;
    if (argv.json)
      printJson({
        run_dir: runDir,
        job: rec,
        ranks: facts,
        failed: failed ?? null,
        mlflow_url: mlflowUrl ?? null,
        ...tracker,
        efficiency,
        accounting: accounting ?? null,
        ...(tasks ? { tasks } : {}),
      });
    else
      process.stdout.write(
        [
          formatStatus(rec, facts, failed, mlflowUrl),
          ...formatTracker(tracker, rec.job_id ?? runDir),
          ...formatTasks(rec, tasks ?? []),
          ...formatEfficiency(efficiency),
          ...(accounting ? formatAccountingEfficiency(accounting) : []),
        ].join('\n') + '\n',
      );
  },
};
