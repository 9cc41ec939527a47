// 3. Discovery latency on the 3-node test cluster, and many waiters on one rendezvous file.
// (a) N jobs of 3 nodes x 1 task, one after the other; every rank runs bench/discovery-rank.sh, which
//     records its start and execs the real sbatch/rank-bootstrap.sh (route lookup, port, publish, wait,
//     candidate choice, check-in, rank 0's wait for every arrival) with a command that records when it
//     started. Latency of a job = (last rank done with discovery: the bootstrap's started_at in
//     logs/rank-R.json) - (last rank started); to the command = (last command started) - (last rank
//     started), which adds the log copiers' start (the capture handshake).
// (b) W simulated waiters (bash processes running tl_wait_rendezvous) on one file published D s after
//     they started: time from the publish to each waiter holding the master; and, in a second run under
//     strace, the file system calls on the rendezvous path made by each waiter.
import * as fs from 'fs';
import * as path from 'path';
import { BenchOptions, clusterEnv, log, machine, percentile, round, ROOT, runProc, Target } from './common';

const LIB = path.join(ROOT, 'sbatch', 'lib');

async function clusterJobs(dir: string, jobs: number): Promise<Record<string, unknown>> {
  const env = clusterEnv();
  const ids: string[] = [];
  fs.mkdirSync(dir, { recursive: true });
  // One job at a time: a job's 3 nodes are namespaces sharing this machine's 2 cores, so jobs running
  // side by side would measure their contention for the cores, not discovery.
  for (let j = 0; j < jobs; j++) {
    const wrap = `srun bash ${ROOT}/bench/discovery-rank.sh ${ROOT} ${dir}/run-$SLURM_JOB_ID`;
    const r = await runProc(
      'sbatch',
      [
        '--parsable',
        '--wait',
        '-N',
        '3',
        '--ntasks-per-node=1',
        '-p',
        env.TL_CLUSTER_PARTITION ?? 'debug',
        '-J',
        'tl-bench-discovery',
        '-o',
        `${dir}/slurm-%j.out`,
        '--wrap',
        wrap,
      ],
      { env, timeoutMs: 300_000 },
    );
    const id = r.stdout.trim().split(';')[0];
    if (!id) throw new Error(`sbatch failed: ${r.stderr}`);
    ids.push(id);
  }
  log(`discovery: ran ${jobs} jobs ${ids[0]}..${ids[ids.length - 1]}, one after the other`);
  const lat: number[] = [];
  const toCommand: number[] = [];
  const rank0: number[] = [];
  const perJob: Record<string, unknown>[] = [];
  for (const id of ids) {
    const ranks = [0, 1, 2].map((r) => {
      const f = path.join(dir, `run-${id}`, 'bench', `rank-${r}`);
      if (!fs.existsSync(f)) return undefined;
      const [rank, start, have, host, master] = fs.readFileSync(f, 'utf8').trim().split(' ');
      return { rank: Number(rank), start: Number(start), have: Number(have), host, master };
    });
    if (ranks.some((x) => !x)) {
      const out = path.join(dir, `slurm-${id}.out`);
      perJob.push({
        job: id,
        error: `missing rank output: ${fs.existsSync(out) ? fs.readFileSync(out, 'utf8').slice(-500) : 'no job output'}`,
      });
      continue;
    }
    const rs = ranks as { rank: number; start: number; have: number; host: string; master: string }[];
    const lastStart = Math.max(...rs.map((x) => x.start));
    const allHave = Math.max(...rs.map((x) => x.have));
    // the bootstrap's own record of when discovery was done (logs/rank-R.json started_at: every rank
    // holds the master and checked in; rank 0 saw every arrival), before the copiers start
    const done = Math.max(
      ...[0, 1, 2].map(
        (r) =>
          (
            JSON.parse(fs.readFileSync(path.join(dir, `run-${id}`, 'logs', `rank-${r}.json`), 'utf8')) as {
              started_at: number;
            }
          ).started_at,
      ),
    );
    lat.push(done - lastStart);
    toCommand.push(allHave - lastStart);
    rank0.push(rs[0].have - rs[0].start);
    perJob.push({
      job: id,
      latency_s: round(done - lastStart),
      to_command_s: round(allHave - lastStart),
      start_spread_s: round(lastStart - Math.min(...rs.map((x) => x.start))),
      rank0_command_after_own_start_s: round(rs[0].have - rs[0].start),
      last_to_start: rs.find((x) => x.start === lastStart)?.rank,
      master: rs[0].master,
      hosts: rs.map((x) => x.host),
    });
  }
  return {
    jobs,
    completed: lat.length,
    p50_s: round(percentile(lat, 50)),
    p95_s: round(percentile(lat, 95)),
    max_s: round(Math.max(...lat)),
    to_command_p50_s: round(percentile(toCommand, 50)),
    to_command_p95_s: round(percentile(toCommand, 95)),
    rank0_command_after_own_start_p50_s: round(percentile(rank0, 50)),
    per_job: perJob,
  };
}

async function waiters(
  dir: string,
  n: number,
  delayS: number,
  trace: boolean,
): Promise<Record<string, unknown>> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  // the spawn loop runs before the delay starts: under strace at a load of 40 it took over 120 s
  const timeoutS = trace ? 900 : 120;
  const args = [
    path.join(ROOT, 'bench', 'waiters.sh'),
    LIB,
    dir,
    String(n),
    String(delayS),
    String(timeoutS),
  ];
  const traceFile = path.join(dir, 'strace.txt');
  const r = trace
    ? await runProc(
        'strace',
        ['-f', '-qq', '--seccomp-bpf', '-e', 'trace=%file', '-o', traceFile, 'bash', ...args],
        { timeoutMs: 1_200_000 },
      )
    : await runProc('bash', args, { timeoutMs: 600_000 });
  if (r.code !== 0) throw new Error(`waiters.sh failed (${r.code}): ${r.stderr.slice(-1000)}`);
  const [, published] = fs
    .readFileSync(path.join(dir, 'published.txt'), 'utf8')
    .trim()
    .split(' ')
    .map(Number);
  const have = fs
    .readFileSync(path.join(dir, 'have.txt'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => l.split(' '));
  const after = have.map((h) => Number(h[3]) - published);
  const out: Record<string, unknown> = {
    stderr_tail: r.stderr.slice(-400),
    waiters: n,
    published_after_s: delayS,
    held: have.length,
    strace: trace,
    after_publish_p50_s: round(percentile(after, 50)),
    after_publish_p95_s: round(percentile(after, 95)),
    after_publish_max_s: round(Math.max(...after)),
  };
  if (trace) {
    const file = path.join(dir, 'rdzv', 'bench.r0.a0.addr');
    // every process that opened the path is a waiter (the publisher only renames onto it)
    const calls = new Map<string, number>();
    const kinds = new Map<string, number>();
    for (const line of fs.readFileSync(traceFile, 'utf8').split('\n')) {
      if (!line.includes(`"${file}"`)) continue;
      const m = /^(\d+)\s+(\w+)\(/.exec(line);
      if (!m || m[2] === 'rename' || m[2] === 'renameat' || m[2] === 'renameat2') continue;
      calls.set(m[1], (calls.get(m[1]) ?? 0) + 1);
      kinds.set(m[2], (kinds.get(m[2]) ?? 0) + 1);
    }
    const per = [...calls.values()];
    out.waiter_processes_traced = per.length;
    // each waiter against its own bound: 1 + the backoff sleeps that fit in its own wait (+1 for the
    // open that found the file)
    out.waiters_over_bound = have.filter(
      (h) => (calls.get(h[1]) ?? 0) > maxAttempts(Number(h[3]) - Number(h[2])) + 1,
    ).length;
    fs.rmSync(traceFile, { force: true });
    Object.assign(out, {
      fs_calls_per_waiter: {
        mean: round(per.reduce((a, b) => a + b, 0) / per.length),
        p50: percentile(per, 50),
        p95: percentile(per, 95),
        max: Math.max(...per),
        min: Math.min(...per),
      },
      syscalls_on_file: Object.fromEntries(kinds),
    });
  }
  return out;
}

/** Upper bound on open attempts of one waiter in T seconds: 1 + sleeps that fit, each at least half its delay. */
export function maxAttempts(seconds: number): number {
  let t = 0;
  let delay = 50;
  let n = 1;
  for (;;) {
    t += delay / 2 / 1000;
    if (t > seconds) return n;
    n += 1;
    delay = Math.min(2000, delay * 2);
  }
}

export async function benchDiscovery(o: BenchOptions): Promise<{ result: unknown; targets: Target[] }> {
  const jobs = o.quick ? 5 : 20;
  const nWaiters = o.quick ? 256 : 1024;
  const delay = 5;
  const cluster = await clusterJobs(path.join(o.tmp, 'discovery'), jobs);
  log(`discovery: cluster p50 ${cluster.p50_s} s p95 ${cluster.p95_s} s (load ${machine().loadavg})`);
  const plain = await waiters(path.join(o.tmp, 'waiters'), nWaiters, delay, false);
  log(
    `discovery: ${nWaiters} waiters, after publish p50 ${plain.after_publish_p50_s} s p95 ${plain.after_publish_p95_s} s`,
  );
  const traced = await waiters(path.join(o.tmp, 'waiters-strace'), nWaiters, delay, true);
  log(
    `discovery: ${nWaiters} waiters under strace, calls per waiter ${JSON.stringify(traced.fs_calls_per_waiter)}`,
  );
  const bound = maxAttempts(delay + Number(traced.after_publish_max_s));
  const calls = traced.fs_calls_per_waiter as { max: number; mean: number };
  const held = `${Math.min(Number(plain.held), Number(traced.held))} of ${nWaiters}`;
  const over = Number(traced.waiters_over_bound);
  const targets: Target[] = [
    {
      what: `discovery through rank-bootstrap.sh, ${jobs} jobs x 3 nodes: p50`,
      target: '< 0.5 s',
      measured: `${cluster.p50_s} s (to the command, copiers started: ${cluster.to_command_p50_s} s)`,
      met: Number(cluster.p50_s) < 0.5,
    },
    {
      what: `discovery through rank-bootstrap.sh, ${jobs} jobs x 3 nodes: p95`,
      target: '< 2 s',
      measured: `${cluster.p95_s} s (to the command, copiers started: ${cluster.to_command_p95_s} s)`,
      met: Number(cluster.p95_s) < 2,
    },
    {
      what: `${nWaiters} waiters on one file (published after ${delay} s): fs calls per waiter`,
      target: 'bounded',
      measured: `mean ${calls.mean}, max ${calls.max}, ${over} over their own bound (${bound} opens for a wait of ${delay} s + the slowest after the publish); held the master: ${held}, p95 ${plain.after_publish_p95_s} s after publish`,
      met: over === 0 && Number(plain.held) === nWaiters && Number(traced.held) === nWaiters,
    },
  ];
  fs.rmSync(path.join(o.tmp, 'discovery'), { recursive: true, force: true });
  return {
    result: {
      cluster,
      waiters: plain,
      waiters_strace: traced,
      open_attempt_bound: bound,
      method: 'see bench/discovery.ts header',
    },
    targets,
  };
}
