// Helpers of the fault tests (launcher-faults, real-faults): submit a job and remember it, wait for
// a requeue, hold a port on a node, ingest a run directory after the fact.
import { spawn, spawnSync, type ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import {
  cli,
  jobIdOf,
  lines,
  logFile,
  parseSeedLine,
  PYTHON,
  readText,
  said,
  slurm,
  waitFor,
} from '../launcher/cluster';
import { readRunMetrics } from '../../../tracking-plugin';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { history, jobRuns, triples, type JobRuns } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

/** `ingest` after the fact into a fresh experiment; checks every loss line is in MLflow once. */
export async function ingestedRuns(runDir: string, name: string, env: NodeJS.ProcessEnv): Promise<JobRuns> {
  const uri = mlflowUp();
  const experiment = uniqueName(name);
  const r = await cli(['ingest', runDir, '--experiment', experiment, '--no-report'], {
    env: { ...env, MLFLOW_TRACKING_URI: uri },
  });
  expect({ code: r.code, out: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, out: '' });
  const client = await MlflowClient.connect(uri, {});
  const exp = await client.getExperimentByName(experiment);
  const jobKey = JSON.parse(readText(path.join(runDir, 'tracking', 'state.json'))).job_key as string;
  const runs = await jobRuns(client, exp!.experiment_id, jobKey); // throws unless one parent, one run per rank
  expect(runs.ranks.size).toBe(3);
  const series = await readRunMetrics(runDir);
  for (const [rank, run] of runs.ranks) {
    const logged = lines(logFile(runDir, `rank-${rank}.out`)).filter((l) => parseSeedLine(l)).length;
    const h = await history(client, run.info.run_id, 'loss');
    expect({ rank, points: h.length }).toEqual({ rank, points: logged });
    expect(h).toEqual(triples(series[rank].points, 'loss'));
  }
  return runs;
}

/** `submit ARGS` (without following) that must be accepted; its job id, added to `submitted`. */
export async function submitJob(
  args: string[],
  env: NodeJS.ProcessEnv,
  submitted: string[],
): Promise<string> {
  const sub = await cli(['submit', ...args], { env });
  expect(sub.code).toBe(0);
  const id = jobIdOf(sub);
  submitted.push(id);
  return id;
}

/** Waits until Slurm shows job `id` requeued: pending again, restart 1. If it does not, the error
 *  says what the job, its processes and its logs in `runDir` looked like at that moment. */
export async function waitRequeued(
  id: string,
  env: NodeJS.ProcessEnv,
  what: string,
  ms: number,
  runDir: string,
): Promise<void> {
  await waitFor(
    what,
    () => {
      const job = slurm(['scontrol', 'show', 'job', '-o', id], env).stdout;
      return /Restarts=1/.test(job) && /JobState=PENDING/.test(job);
    },
    ms,
  ).catch((e: Error) => {
    throw new Error(`${e.message}\n${jobSnapshot(id, env, runDir)}`);
  });
}

/** For a failure message: Slurm's view of job `id`, the processes of its run (with the kernel
 *  function each waits in), and the tails of its logs. */
function jobSnapshot(id: string, env: NodeJS.ProcessEnv, runDir: string): string {
  const ps = spawnSync('ps', ['-eo', 'pid,ppid,stat,etime,wchan:32,args', '--forest'], { encoding: 'utf8' });
  const logs = path.join(runDir, 'logs');
  const tail = (name: string) => {
    const file = path.join(logs, name);
    return fs.existsSync(file) ? `--- ${name}:\n${readText(file).slice(-1500)}` : `--- ${name}: none`;
  };
  const names = fs.existsSync(logs) ? fs.readdirSync(logs).sort() : [];
  return [
    `scontrol: ${slurm(['scontrol', 'show', 'job', '-o', id], env).stdout.trim()}`,
    'processes of the run:',
    ...ps.stdout.split('\n').filter((l) => l.includes(runDir) || l.includes('train.py')),
    `logs: ${names.join(' ')}`,
    ...['job.out', 'signals.jsonl'].map(tail),
    ...names.filter((n) => /^rank-\d+\.(out|err|json)$/.test(n)).map(tail),
  ].join('\n');
}

/** A listener on `port` inside tlnode1's network namespace (with SO_REUSEADDR when `reuseAddr`);
 *  resolves once it listens. */
export function holdPort(port: number, reuseAddr = false): Promise<ChildProcess> {
  const reuse = reuseAddr ? 's.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); ' : '';
  const holder = spawn(
    'nsenter',
    [
      '--net=/var/run/netns/tl-node1',
      PYTHON,
      '-c',
      `import socket,sys,time; s=socket.socket(); ${reuse}s.bind(("0.0.0.0", int(sys.argv[1]))); s.listen(); print("ready", flush=True); time.sleep(300)`,
      String(port),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let err = '';
  holder.stderr!.on('data', (d) => (err += String(d)));
  return new Promise((resolve, reject) => {
    holder.stdout!.once('data', () => resolve(holder));
    holder.once('exit', (code) => reject(new Error(`the port holder exited ${code}: ${err}`)));
  });
}

export type SignalRecord = { t: number; rank: number; signal: string; restart: number; requeue: boolean };

/** logs/signals.jsonl of a job of `ranks` ranks that Slurm preempted once (examples/polynomial):
 *  every rank stopped, and each whose script got the signal itself ("signal here") recorded it.
 *  Slurm signals the nodes one by one and the ranks stop together, so a rank may end before its
 *  node is signalled: it need not have a record. */
export function preemptionRecords(runDir: string, ranks: number): SignalRecord[] {
  const records = lines(logFile(runDir, 'signals.jsonl')).map((l) => JSON.parse(l) as SignalRecord);
  const says = [...Array(ranks).keys()].map(
    (r) =>
      /preempted before epoch \d+ \((signal here|signal on another rank)\)/.exec(
        readText(logFile(runDir, `rank-${r}.out`)),
      )?.[1],
  );
  expect(says.every((s) => s !== undefined)).toBe(true);
  const recorded = new Set(records.map((s) => s.rank));
  const unrecorded = says.flatMap((s, r) => (s === 'signal here' && !recorded.has(r) ? [r] : []));
  expect({ says, unrecorded }).toEqual({ says, unrecorded: [] });
  for (const s of records) expect(s).toMatchObject({ signal: 'USR1', restart: 0 });
  for (const s of records) expect(s.requeue).toBe(s.rank === 0);
  return records;
}
