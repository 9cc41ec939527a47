// Naming a DDP straggler on the real cluster: 3 gloo ranks, one per node, where rank 1 is slow at
// every step, either computing (a busy loop) or asleep. Under DDP every rank steps at its pace, so
// step times cannot tell; the CPU seconds the bootstrap records per rank can, for the computing rank.
// Expected values come from the rank facts themselves (logs/rank-R.json), not from the report code.
import * as fs from 'fs';
import * as path from 'path';
import type { RankFacts } from '../../../core/rundir/layout';
import { cli, clusterEnv, PYTHON, requireCluster, said, tmpDir } from '../launcher/cluster';
import { pdfText } from '../../unit/reports/helpers/check-output';

jest.setTimeout(240_000);
const SCRIPT = 'test/fixtures/scripts/slow-rank-ddp.py';
const STEPS = 12;

beforeAll(requireCluster);

async function runSlowRank(how: 'cpu' | 'sleep'): Promise<{ dir: string; facts: RankFacts[]; text: string }> {
  const dir = path.join(tmpDir(`straggler-${how}`), 'run');
  const env = clusterEnv();
  delete env.MLFLOW_TRACKING_URI;
  const submit = await cli(
    [
      'submit',
      '-N',
      '3',
      '--run-dir',
      dir,
      '--follow',
      '--',
      PYTHON,
      SCRIPT,
      '--how',
      how,
      '--steps',
      String(STEPS),
    ],
    { env, timeoutMs: 180_000 },
  );
  expect([submit.code, said(submit)]).toEqual([0, expect.any(String)]);
  const facts = [0, 1, 2].map(
    (r) => JSON.parse(fs.readFileSync(path.join(dir, 'logs', `rank-${r}.json`), 'utf8')) as RankFacts,
  );
  const report = await cli(['report', dir], { env });
  expect([report.code, said(report)]).toEqual([0, expect.any(String)]);
  return { dir, facts, text: pdfText(path.join(dir, 'reports', 'report.pdf')).replace(/\s+/g, ' ') };
}

test('a rank that computes 0.3 s more per step is named by CPU time; one that sleeps is not named', async () => {
  // both jobs at once (one rank of each per node): the busy loop takes one of a node's two CPUs
  const [cpu, sleep] = await Promise.all([runSlowRank('cpu'), runSlowRank('sleep')]);
  // 12 busy steps of 0.3 s: rank 1 used 3.6 CPU seconds more than the others (80 % of it at least)
  const seconds = cpu.facts.map((f) => f.cpu_s as number);
  expect(seconds.every((s) => Number.isFinite(s) && s > 0)).toBe(true);
  expect(seconds[1] - Math.max(seconds[0], seconds[2])).toBeGreaterThan(0.8 * STEPS * 0.3);
  const median = [...seconds].sort((a, b) => a - b)[1];
  const ratio = (seconds[1] / median).toFixed(2);
  expect(cpu.text).toContain(
    `rank 1 (${cpu.facts[1].host}) by CPU time: ${Number(seconds[1].toPrecision(4))} s, ${ratio}x the median rank's`,
  );
  expect(cpu.text).toContain(`CPU seconds by rank: rank 1 used ${(seconds[1] / median).toFixed(1)}x`);

  const slept = sleep.facts.map((f) => f.cpu_s as number);
  const max = Math.max(...slept);
  const mid = [...slept].sort((a, b) => a - b)[1];
  expect(max / mid).toBeLessThan(1.5);
  expect(sleep.text).toContain('none stands out in step time');
  expect(sleep.text).toContain(
    'or CPU time (within 50 %; a rank slowed by waiting, e.g. on I/O, uses no more CPU)',
  );
  expect(sleep.text).not.toMatch(/by CPU time:/);
});
