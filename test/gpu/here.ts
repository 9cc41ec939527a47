// The GPU check's parts here (test/gpu/README.md), after `npm run -s build`:
//   node dist/test/gpu/here.js pack [--gpus N]        render the job for N GPUs (default 1) into test/gpu/.pack
//   node dist/test/gpu/here.js verify RESULT [DIR]    RESULT: gpu-check.tgz or the folder holding it; unpacked
//                                                     into DIR (default a new test/gpu/.result-<time>)
// verify ingests into $MLFLOW_TRACKING_URI, else the test server (test/mlflow/up, which reuses a running
// one), prints every check and exits 1 when one failed.
import { execFileSync } from 'child_process';
import * as path from 'path';
import { packageRoot } from '../../core';
import { DEFAULT_PACK, pack } from './pack';
import { formatChecks, verify } from './verify';

/** Seconds of training on the GPU after the all-reduce: long enough for several 1 s samples. */
const GPU_SECONDS = 20;

function testServer(): string {
  const out = execFileSync(path.join(packageRoot(), 'test', 'mlflow', 'up'), { encoding: 'utf8' });
  return out.trim().split('\n').pop() as string;
}

async function main(args: string[]): Promise<number> {
  const [what, ...rest] = args;
  if (what === 'pack') {
    const i = rest.indexOf('--gpus');
    const gpus = i >= 0 ? Number(rest[i + 1]) : 1;
    if (!Number.isInteger(gpus) || gpus < 1)
      throw new Error('--gpus takes a whole number of GPUs, 1 or more');
    const opts = { backend: 'nccl' as const, ranks: gpus, seconds: GPU_SECONDS, sampleInterval: 1 };
    const runDir = await pack({ dir: DEFAULT_PACK, ...opts });
    process.stdout.write(
      `packed ${runDir} (${gpus} rank(s), nccl): now the run call of test/gpu/README.md\n`,
    );
    return 0;
  }
  if (what === 'verify' && rest[0]) {
    const into = rest[1] ?? path.join(packageRoot(), 'test', 'gpu', `.result-${Date.now()}`);
    const { runDir, checks } = await verify(rest[0], into, process.env.MLFLOW_TRACKING_URI || testServer());
    process.stdout.write(`${runDir}\n${formatChecks(checks)}\n`);
    return checks.some((c) => c.status === 'fail') ? 1 : 0;
  }
  process.stderr.write('usage: here.js pack [--gpus N] | here.js verify RESULT [DIR]\n');
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (e: Error) => {
    process.stderr.write(`here.js: ${e.message}\n`);
    process.exit(1);
  },
);
