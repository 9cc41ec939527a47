// Issue #2: the polynomial DDP job over 3 nodes with srun, followed to the end, and what it leaves behind.
import * as fs from 'fs';
import * as path from 'path';
import {
  NODE_ADDR,
  NODES,
  PYTHON,
  TRAIN,
  checkPolynomialRank,
  cli,
  clusterEnv,
  jobIdOf,
  jobRecord,
  rankFacts,
  ranksWithLogs,
  requireCluster,
  said,
  statusJson,
  tmpDir,
} from './cluster';

jest.setTimeout(180_000);

const EPOCHS = 300;
const EVERY = 50;

describe('submit -N 3 --follow (srun) on the test cluster', () => {
  const env = clusterEnv();
  let runDir: string;
  let jobId: string;

  beforeAll(async () => {
    requireCluster();
    runDir = path.join(tmpDir('srun'), 'run');
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        String(EPOCHS),
        '--log-every',
        String(EVERY),
      ],
      { env },
    );
    if (r.code !== 0) throw new Error(`submit --follow failed:\n${said(r)}`);
    jobId = jobIdOf(r);
    expect(r.stderr).toContain(`job ${jobId} COMPLETED`);
  });

  it('writes one byte-exact stdout per rank, only with its own lines, loss falling, line times in order', () => {
    expect(ranksWithLogs(runDir)).toEqual([0, 1, 2]);
    for (const rank of [0, 1, 2]) checkPolynomialRank(runDir, rank, 3, NODES[rank], EPOCHS, EVERY);
    // Rank 0 alone writes the evaluation data, and says so.
    expect(fs.readFileSync(path.join(runDir, 'logs', 'rank-0.out'), 'utf8')).toContain(
      `evaluation data written to ${path.join(runDir, 'eval', 'evaluation.json')}`,
    );
    expect(fs.readFileSync(path.join(runDir, 'logs', 'rank-1.out'), 'utf8')).not.toContain(
      'evaluation data written',
    );
  });

  it("records each rank's facts: distinct hosts, their addresses, the discovered master, exit 0", () => {
    const facts = [0, 1, 2].map((r) => rankFacts(runDir, r));
    const port = facts[0].master_port;
    expect(port).toBeGreaterThanOrEqual(1024);
    expect(port).toBeLessThanOrEqual(65535);
    facts.forEach((f, rank) => {
      expect(f).toMatchObject({
        version: 1,
        rank,
        local_rank: 0,
        node_rank: rank,
        world_size: 3,
        local_world_size: 1,
        host: NODES[rank],
        ip: NODE_ADDR[rank],
        iface: 'eth0',
        master_addr: '10.77.77.11',
        master_port: port,
        job_id: jobId,
        restart: 0,
        launcher: 'srun',
        exit_code: 0,
      });
      expect(f.ended_at).toBeGreaterThanOrEqual(f.started_at);
    });
    expect(new Set(facts.map((f) => f.host)).size).toBe(3);
  });

  it('leaves the evaluation data with equal-length x, f and g', () => {
    const ev = JSON.parse(fs.readFileSync(path.join(runDir, 'eval', 'evaluation.json'), 'utf8'));
    expect(ev.version).toBe(1);
    expect(ev.epochs).toBe(EPOCHS);
    expect(ev.x.length).toBeGreaterThan(10);
    expect(ev.f).toHaveLength(ev.x.length);
    expect(ev.g).toHaveLength(ev.x.length);
    expect(
      [...ev.x, ...ev.f, ...ev.g].every((v: unknown) => typeof v === 'number' && Number.isFinite(v)),
    ).toBe(true);
  });

  it('removes the rendezvous file after the job; the rendezvous dir is private (0700)', () => {
    const dir = path.join(runDir, 'rendezvous');
    expect(fs.readdirSync(dir)).toEqual([]);
    expect(fs.statSync(dir).mode & 0o777).toBe(0o700);
  });

  it("status --json says COMPLETED, with the job's 3 ranks and no failed one", async () => {
    const s = await statusJson(jobId, env);
    expect(s.run_dir).toBe(runDir);
    expect(s.job.job_id).toBe(jobId);
    expect(s.job.state?.name).toBe('COMPLETED');
    expect(s.job.state?.exit_code ?? 0).toBe(0);
    expect(s.ranks.map((f) => [f.rank, f.host, f.exit_code])).toEqual([
      [0, 'tlnode1', 0],
      [1, 'tlnode2', 0],
      [2, 'tlnode3', 0],
    ]);
    expect(s.failed).toBeNull();
    expect(jobRecord(runDir).spec).toMatchObject({
      nodes: 3,
      tasks_per_node: 1,
      world_size: 3,
      launcher: 'srun',
      backend: 'gloo',
      command: [PYTHON, TRAIN, '--epochs', String(EPOCHS), '--log-every', String(EVERY)],
    });
  });

  it('logs <job> --rank 1 prints exactly the bytes of logs/rank-1.out', async () => {
    const r = await cli(['logs', jobId, '--rank', '1'], { env });
    expect(r.code).toBe(0);
    const want = fs.readFileSync(path.join(runDir, 'logs', 'rank-1.out'));
    expect(want.length).toBeGreaterThan(0);
    expect(r.stdoutBytes.equals(want)).toBe(true);
  });
});
