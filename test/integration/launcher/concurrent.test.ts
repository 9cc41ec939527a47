// Issue #2: two jobs at once on the same 3 nodes do not meet each other's master.
import * as fs from 'fs';
import * as path from 'path';
import {
  NODES,
  PYTHON,
  TRAIN,
  cancelJobs,
  checkPolynomialRank,
  cli,
  clusterEnv,
  jobIdOf,
  rankFacts,
  requireCluster,
  said,
  tmpDir,
  waitTerminal,
} from './cluster';

jest.setTimeout(180_000);

const EPOCHS = 1000;
const EVERY = 100;

describe('two jobs at once', () => {
  const env = clusterEnv();
  const jobs: string[] = [];
  beforeAll(() => requireCluster());
  afterAll(() => cancelJobs(jobs, env));

  it('both complete on the same nodes, at the same time, each with its own master port and correct logs', async () => {
    const base = tmpDir('two');
    const dirs = [path.join(base, 'a'), path.join(base, 'b')];
    const subs = await Promise.all(
      dirs.map((d) =>
        cli(
          [
            'submit',
            '-N',
            '3',
            '--run-dir',
            d,
            '--',
            PYTHON,
            TRAIN,
            '--epochs',
            String(EPOCHS),
            '--log-every',
            String(EVERY),
          ],
          { env },
        ),
      ),
    );
    for (const r of subs) expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    const ids = subs.map(jobIdOf);
    jobs.push(...ids);
    expect(ids[0]).not.toBe(ids[1]);

    const finals = await Promise.all(ids.map((id) => waitTerminal(id, env)));
    for (const s of finals) expect(s.job.state?.name).toBe('COMPLETED');

    const facts = dirs.map((d) => [0, 1, 2].map((r) => rankFacts(d, r)));
    for (let j = 0; j < 2; j++) {
      for (let rank = 0; rank < 3; rank++) {
        expect(facts[j][rank]).toMatchObject({
          job_id: ids[j],
          host: NODES[rank],
          master_addr: '10.77.77.11',
          exit_code: 0,
        });
        expect(facts[j][rank].master_port).toBe(facts[j][0].master_port);
        checkPolynomialRank(dirs[j], rank, 3, NODES[rank], EPOCHS, EVERY);
      }
      expect(fs.readdirSync(path.join(dirs[j], 'rendezvous'))).toEqual([]);
    }
    // Both masters ran on tlnode1 at the same time, so they must have published different ports.
    expect(facts[0][0].master_port).not.toBe(facts[1][0].master_port);
    const span = (fs: { started_at: number; ended_at?: number }[]) => [
      Math.min(...fs.map((f) => f.started_at)),
      Math.max(...fs.map((f) => f.ended_at!)),
    ];
    const [a0, a1] = span(facts[0]);
    const [b0, b1] = span(facts[1]);
    expect({ overlap: a0 < b1 && b0 < a1, a: [a0, a1], b: [b0, b1] }).toMatchObject({ overlap: true });
  });
});
