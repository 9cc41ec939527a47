// The GPU check (test/gpu/README.md) rehearsed on this machine's CPU, so that it cannot rot while no GPU
// machine runs it: the same pack, the same on-gpu.sh and the same checks, with gloo on 2 CPU ranks and a
// stand-in nvidia-smi (recorded A100 readings). The checks that need a real GPU are skipped, by name.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { runChecks } from '../../gpu/checks';
import { pack } from '../../gpu/pack';
import { formatChecks, verify } from '../../gpu/verify';
import { mlflowUp } from '../tracking/server';

const PY = process.env.TRACK_LAUNCH_TEST_PYTHON ?? '/usr/bin/python3';
const ROOT = path.resolve(__dirname, '..', '..', '..');
jest.setTimeout(300_000);

// What the rehearsal can check, and what it cannot without a GPU (skipped, never passed).
const EXPECTED = [
  ['job.local.sh ran without the supervisor', 'pass'],
  ['all-reduce over gloo', 'pass'],
  ['NCCL initialised', 'skip'],
  ['each rank on the GPU numbered LOCAL_RANK', 'skip'],
  ['NCCL_SOCKET_IFNAME set to the interface to the master', 'pass'],
  ['GPU samples parsed (every GPU nvidia-smi lists, its memory)', 'pass'],
  ["the card's name and memory as torch sees them", 'skip'],
  ['GPU busy in the samples while the ranks trained', 'skip'],
  ['ingested into MLflow (a parent run, a run per rank, every loss point)', 'pass'],
  ["the report's GPU page", 'pass'],
];

test('the GPU check on CPU: pack here, on-gpu.sh "there", verify here', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-gpu-rehearsal-'));
  // "There": python3 is the test's torch, nvidia-smi the stand-in.
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  fs.symlinkSync(PY, path.join(bin, 'python3'));
  const PATH = [bin, path.join(ROOT, 'test', 'gpu', 'cpu-bin'), process.env.PATH].join(path.delimiter);

  // Packed in one place, run in another (the GPU machine's repository root is not this one's): the
  // rendered paths must not point back here.
  const here = path.join(dir, 'packed-here');
  await pack({ dir: here, backend: 'gloo', ranks: 2, seconds: 2, sampleInterval: 1 });
  fs.cpSync(here, path.join(dir, 'pack'), { recursive: true });
  fs.rmSync(here, { recursive: true });
  const there = spawnSync('bash', ['test/gpu/on-gpu.sh', path.join(dir, 'out'), path.join(dir, 'pack')], {
    cwd: ROOT,
    env: { ...process.env, PATH },
    encoding: 'utf8',
    timeout: 240_000,
  });
  expect({
    status: there.status,
    tail: there.status === 0 ? '' : `${there.stdout}${there.stderr}`.slice(-3000),
  }).toEqual({ status: 0, tail: '' });
  // What comes back from the GPU machine: at most 8 files of 16 MiB.
  const files = fs.readdirSync(path.join(dir, 'out'));
  expect(files.sort()).toEqual(['gpu-check.tgz', 'prereqs.txt']);
  expect(fs.statSync(path.join(dir, 'out', 'gpu-check.tgz')).size).toBeLessThan(16 * 1024 * 1024);
  // The prerequisites come first in the output, each section named.
  for (const section of ['torch, CUDA, NCCL', 'nvidia-smi', 'ip', '/proc/net/tcp'])
    expect(there.stdout).toContain(`== ${section}\n`);

  const uri = mlflowUp();
  const { runDir, checks } = await verify(path.join(dir, 'out'), path.join(dir, 'unpacked'), uri);
  const got = checks.map((c) => [c.name, c.status]);
  if (JSON.stringify(got) !== JSON.stringify(EXPECTED)) throw new Error(`checks:\n${formatChecks(checks)}`);

  // The checks see what they claim: the same run with a rank's exit code, the card's memory and the
  // report broken fails exactly those three checks.
  const thereDir = path.join(dir, 'unpacked', 'there');
  const smi = path.join(thereDir, 'nvidia-smi.csv');
  fs.writeFileSync(smi, fs.readFileSync(smi, 'utf8').replace(/, 81920,/g, ', 40960,'));
  const facts = path.join(runDir, 'logs', 'rank-1.json');
  fs.writeFileSync(facts, JSON.stringify({ ...JSON.parse(fs.readFileSync(facts, 'utf8')), exit_code: 3 }));
  const noReport = { status: 0, out: JSON.stringify({ files: [] }) };
  const broken = await runChecks({
    runDir,
    there: thereDir,
    uri,
    ingest: { status: 0, out: '' },
    report: noReport,
  });
  const failed = broken.filter((c) => c.status === 'fail').map((c) => c.name);
  expect(failed).toEqual([EXPECTED[0][0], EXPECTED[5][0], EXPECTED[9][0]]);
  fs.rmSync(dir, { recursive: true, force: true });
});
