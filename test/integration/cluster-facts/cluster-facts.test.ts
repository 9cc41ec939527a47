// Issue #9 on the real 3-node test cluster: what `cluster` shows, what the request check refuses,
// and the per-node resource sampler in a real 3-node batch job (run without track-launch submit).
import { execFile, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { checkRequest, requestError } from '../../../launcher/cluster/check-request';
import { formatEfficiency, readEfficiency } from '../../../launcher/cluster/efficiency';
import { ClusterFacts } from '../../../launcher/cluster/facts';
import { fetchClusterFacts } from '../../../launcher/cluster/fetch';
import { parseResources } from '../../../core/resource-samples';
import { ProcessRunner } from '../../../launcher/slurm/run-process';
import {
  cancelJobs,
  cli,
  clusterEnv,
  NODES,
  REPO,
  requireCluster,
  slurm,
  tmpDir,
  waitFor,
} from '../launcher/cluster';

jest.setTimeout(180_000);

/** NodeName lines of the cluster's config: what `cluster` must show. */
function configuredNodes(): Array<{ name: string; cpus: number; memoryMiB: number }> {
  const conf = fs.readFileSync(path.join(REPO, 'test', 'cluster', 'slurm.conf.in'), 'utf8');
  return [...conf.matchAll(/^NodeName=(\S+) .*\bCPUs=(\d+) .*\bRealMemory=(\d+)/gm)].map((m) => ({
    name: m[1],
    cpus: Number(m[2]),
    memoryMiB: Number(m[3]),
  }));
}

/** runProcess with the cluster's environment (jest's process.env does not reach child processes). */
const clusterRunner: ProcessRunner = (argv, opts = {}) =>
  new Promise((resolve) => {
    execFile(
      argv[0],
      argv.slice(1),
      { env: clusterEnv(), timeout: opts.timeoutMs ?? 30_000, encoding: 'utf8' },
      (err, stdout, stderr) =>
        resolve({ argv, code: err ? (typeof err.code === 'number' ? err.code : 1) : 0, stdout, stderr }),
    );
  });

/** The `cluster` command module as main.ts will register it, run from dist/ with yargs. */
function clusterModule(args: string[]) {
  const code = `
    const yargs = require('yargs');
    const { clusterCommand } = require('./dist/cli/commands/cluster');
    const { reportError } = require('./dist/cli/output');
    yargs(process.argv.slice(1)).option('json', { type: 'boolean' }).command(clusterCommand).strict()
      .fail((m, e) => { throw e || new Error(m); }).parseAsync().catch((e) => { process.exitCode = reportError(e, process.argv.includes('--json')); });`;
  const r = spawnSync(process.execPath, ['-e', code, 'cluster', ...args], {
    cwd: REPO,
    env: clusterEnv(),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

describe('cluster facts on the test cluster', () => {
  let facts: ClusterFacts;

  beforeAll(async () => {
    requireCluster();
    facts = await fetchClusterFacts(clusterRunner);
  });

  it('fetchClusterFacts reads the 3 nodes with the CPUs and memory they were configured with', () => {
    const want = configuredNodes();
    expect(want.map((n) => n.name)).toEqual(NODES);
    expect(facts.source).toBe('scontrol');
    expect(facts.nodes.map((n) => ({ name: n.name, cpus: n.cpus, memoryMiB: n.memoryMiB }))).toEqual(want);
    expect(facts.nodes.every((n) => n.gpus === 0 && n.partitions.includes('debug'))).toBe(true);
    expect(facts.partitions).toEqual([
      expect.objectContaining({ name: 'debug', isDefault: true, nodes: NODES, maxTimeS: null }),
    ]);
  });

  it('the cluster command prints the table and --json (command module from dist/)', () => {
    const table = clusterModule([]);
    expect(table.code).toBe(0);
    expect(table.stdout).toMatch(/^debug\*\s+up\s+3\s+/m);
    expect(table.stdout).toMatch(/tlnode\[1-3\]|tlnode\d/);
    const json = clusterModule(['--json']);
    expect(json.code).toBe(0);
    const parsed = JSON.parse(json.stdout) as ClusterFacts;
    expect(parsed.nodes.map((n) => [n.name, n.cpus, n.memoryMiB])).toEqual(
      configuredNodes().map((n) => [n.name, n.cpus, n.memoryMiB]),
    );
    const bad = clusterModule(['--partition', 'gpu', '--json']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.message).toBe(
      '--partition: "gpu" is not valid; partitions of this cluster: debug',
    );
  });

  it('track-launch cluster --json (bin/track-launch.js) shows the 3 nodes', async () => {
    const r = await cli(['cluster', '--json'], { timeoutMs: 60_000 });
    if (r.code !== 0 && /Unknown argument: cluster/.test(r.stdout + r.stderr)) {
      throw new Error(
        '`cluster` is not registered in cli/main.ts yet: add .command(clusterCommand) (see docs/cluster.md)',
      );
    }
    expect(r.code).toBe(0);
    const parsed = JSON.parse(r.stdout) as ClusterFacts;
    expect(parsed.nodes.map((n) => [n.name, n.cpus, n.memoryMiB])).toEqual(
      configuredNodes().map((n) => [n.name, n.cpus, n.memoryMiB]),
    );
  });

  it('refuses oversized requests with what the partition offers, and passes the polynomial job', () => {
    const base = { nodes: 3, tasksPerNode: 1, gpusPerNode: 0 };
    expect(checkRequest(base, facts)).toMatchObject({ ok: true, partition: 'debug' });
    expect(checkRequest({ ...base, tasksPerNode: 2, cpusPerTask: 2, mem: '2000' }, facts).ok).toBe(true);
    const cases: Array<[object, string]> = [
      [{ nodes: 4 }, '--nodes: 4 is more than partition debug holds (3 nodes: tlnode[1-3])'],
      [
        { mem: '4G' },
        '--mem: 4G (4096 MiB) is more than any node of partition debug has (at most 2000 MiB per node: tlnode[1-3])',
      ],
      [
        { tasksPerNode: 5 },
        '--tasks-per-node: 5 tasks per node (1 CPU each) is more than any node of partition debug has (at most 4 CPUs per node: tlnode[1-3])',
      ],
      [
        { gpusPerNode: 1 },
        '--gpus-per-node: 1 is more than any node of partition debug has (its nodes have no GPUs: tlnode[1-3])',
      ],
      [
        { partition: 'gpu' },
        '--partition: "gpu" is not a partition of this cluster; partitions: debug (default)',
      ],
    ];
    for (const [over, message] of cases) {
      const err = requestError(checkRequest({ ...base, ...over }, facts));
      expect(err?.message).toBe(message);
      expect(err?.exitCode).toBe(2);
    }
  });
});

describe('the resource sampler in a real 3-node batch job', () => {
  const env = clusterEnv();
  const jobs: string[] = [];
  let runDir: string;
  let started: number;
  let ended: number;

  beforeAll(async () => {
    requireCluster();
    runDir = path.join(tmpDir('sampler'), 'run dir');
    fs.mkdirSync(runDir, { recursive: true });
    started = Date.now() / 1000;
    const r = slurm(
      [
        'sbatch',
        '--parsable',
        '-N',
        '3',
        '--ntasks-per-node=1',
        '--mem=1000',
        `--output=${path.join(runDir, 'job.out')}`,
        `--chdir=${REPO}`,
        '-J',
        'sampler',
        path.join(REPO, 'test/integration/cluster-facts/sampler-job.sh'),
        runDir,
        REPO,
        '0.5',
        '4',
      ],
      env,
    );
    if (r.code !== 0) throw new Error(`sbatch failed: ${r.stderr}`);
    const id = r.stdout.trim();
    jobs.push(id);
    const state = await waitFor(
      `job ${id} to end`,
      () => {
        const m = /JobState=([A-Z_]+)/.exec(slurm(['scontrol', 'show', 'job', '-o', id], env).stdout);
        return m && !['PENDING', 'CONFIGURING', 'RUNNING', 'COMPLETING'].includes(m[1]) ? m[1] : undefined;
      },
      150_000,
      500,
    );
    ended = Date.now() / 1000;
    if (state !== 'COMPLETED')
      throw new Error(`job ${id} ended ${state}:\n${fs.readFileSync(path.join(runDir, 'job.out'), 'utf8')}`);
  });

  afterAll(() => cancelJobs(jobs, env));

  it('writes logs/node-<host>.resources.jsonl for each node, with sane values', () => {
    const files = fs.readdirSync(path.join(runDir, 'logs')).sort();
    expect(files).toEqual(NODES.map((n) => `node-${n}.resources.jsonl`));
    for (const node of NODES) {
      const samples = parseResources(
        fs.readFileSync(path.join(runDir, 'logs', `node-${node}.resources.jsonl`), 'utf8'),
      );
      // 4 s of work at 0.5 s: about 8 samples, fewer on a loaded machine, plus the last one at stop.
      expect(samples.length).toBeGreaterThanOrEqual(3);
      for (const s of samples) {
        expect(s).toMatchObject({ version: 1, host: node, alloc_cpus: 1, alloc_mem_mb: 1000 });
        expect(s.t).toBeGreaterThan(started - 1);
        expect(s.t).toBeLessThan(ended + 1);
        expect(s.dt).toBeGreaterThan(0);
        expect(s.cpu_util).toBeGreaterThanOrEqual(0);
        expect(s.cpu_util).toBeLessThanOrEqual(100);
        expect(s.mem_used_mb).toBeGreaterThan(0);
        expect(s.mem_used_mb).toBeLessThanOrEqual(s.mem_total_mb);
        expect(s.job.nproc).toBeGreaterThanOrEqual(0);
        expect(s.gpus).toBeUndefined(); // no nvidia-smi here
      }
      for (let i = 1; i < samples.length; i++) expect(samples[i].t).toBeGreaterThan(samples[i - 1].t);
      // Each node's task held 200 MiB and ran python: its own processes, not the other nodes'.
      const rss = Math.max(...samples.map((s) => s.job.rss_mb));
      expect(rss).toBeGreaterThan(200);
      expect(rss).toBeLessThan(400);
      expect(samples.reduce((n, s) => n + s.job.cpu_s, 0)).toBeGreaterThan(0);
      if (node !== 'tlnode1') {
        // Away from the batch host the job is the task's bash and its python3 (the sampler and its
        // subshells left out; the last sample may catch tl_sampler_stop's sleep).
        expect(samples.slice(0, -1).every((s) => s.job.nproc <= 2)).toBe(true);
        expect(samples.some((s) => s.job.nproc === 2)).toBe(true);
      }
    }
  });

  it('summarises efficiency the way status will print it', () => {
    const e = readEfficiency(runDir);
    expect(e.nodes.map((n) => n.host)).toEqual(NODES);
    expect(e.cpu_efficiency).toBeGreaterThan(0);
    expect(e.mem_peak?.rss_mb).toBeGreaterThan(200);
    const lines = formatEfficiency(e);
    expect(lines[0]).toMatch(/^ {2}efficiency: \d+ sample\(s\) from 3 node\(s\)$/);
    expect(lines[1]).toMatch(/CPU: +\d+\.\d% of \d\d:\d\d:\d\d core-walltime .*3 CPUs allocated\)$/);
    expect(lines[2]).toMatch(/memory: +peak \d+ MiB RSS on tlnode\d, \d+\.\d% of 1000 MiB per node$/);
    expect(lines).toHaveLength(3 + 3);
    if (process.env.TL_VERBOSE) process.stdout.write(`${lines.join('\n')}\n`);
  });
});
