// The local executor's script run by hand, without the supervisor (the GPU check runs it on a machine
// without Node.js, test/gpu/): it runs from wherever its run directory was copied to, and `status` then
// takes the job's state from the ranks' exit codes in logs/rank-<R>.json.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { JobRecord, readJobRecord } from '../../../core';
import { localExecutor } from '../../../launcher/executors/local';
import { renderLocalScript } from '../../../launcher/plan/render-local';
import { jobRecord, rankFacts } from '../tracking/fixture';
import { NAMED_SPECS } from './specs';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-by-hand-'));

// A stand-in bootstrap: writes the run directory it was given, as the rank's facts would name it.
const BOOT = `#!/bin/bash
while (($#)); do [[ $1 == --run-dir ]] && printf '%s\\n' "$2" >>"$TL_OUT"; shift; done
`;

describe('job.local.sh run by hand', () => {
  test.each([
    ['an absolute path', (copy: string) => ({ cwd: os.tmpdir(), script: path.join(copy, 'job.local.sh') })],
    [
      'a path relative to the working directory',
      (copy: string) => ({ cwd: path.dirname(copy), script: 'copied/job.local.sh' }),
    ],
    ['its own directory', (copy: string) => ({ cwd: copy, script: 'job.local.sh' })],
  ])('from a copy of its run directory, named by %s, uses the copy', (_what, how) => {
    const rendered = path.join(tmp(), 'rendered-here');
    const spec = { ...NAMED_SPECS['srun-basic'], runDir: rendered };
    const copy = path.join(tmp(), 'copied');
    fs.mkdirSync(path.join(copy, 'bin'), { recursive: true });
    fs.writeFileSync(path.join(copy, 'bin', 'rank-bootstrap.sh'), BOOT);
    fs.writeFileSync(path.join(copy, 'job.local.sh'), renderLocalScript(spec, { version: 't' }));
    const out = path.join(tmp(), 'run-dirs');
    const { cwd, script } = how(copy);
    const r = spawnSync('bash', [script], { cwd, env: { ...process.env, TL_OUT: out }, encoding: 'utf8' });
    expect(r.status).toBe(0);
    const seen = fs.readFileSync(out, 'utf8').trim().split('\n');
    expect(seen).toHaveLength(3); // srun-basic: 3 ranks
    for (const d of seen) expect(fs.realpathSync(d)).toBe(fs.realpathSync(copy));
    expect(fs.existsSync(rendered)).toBe(false);
  });
});

describe('status of a job run without the supervisor', () => {
  /** A local job's run directory as pack (test/gpu/) leaves it: job.json without a state. */
  function runDirWith(codes: Array<number | undefined>): string {
    const dir = tmp();
    fs.mkdirSync(path.join(dir, 'logs'));
    const rec: JobRecord = { ...jobRecord({}, codes.length), executor: 'local', job_id: undefined };
    delete rec.state;
    fs.writeFileSync(path.join(dir, 'job.json'), JSON.stringify(rec));
    codes.forEach((code, rank) => {
      const f = { ...rankFacts(rank, codes.length), host: 'gpu1', started_at: 100 + rank };
      const ended = code === undefined ? {} : { ended_at: 200 + rank, exit_code: code };
      fs.writeFileSync(path.join(dir, 'logs', `rank-${rank}.json`), JSON.stringify({ ...f, ...ended }));
    });
    return dir;
  }

  test('every rank exited 0: COMPLETED, recorded in job.json', async () => {
    const dir = runDirWith([0, 0]);
    const rec = await localExecutor.refresh(dir);
    expect(rec.state).toMatchObject({ name: 'COMPLETED', exit_code: 0, started_at: 100, ended_at: 201 });
    expect(readJobRecord(dir).state?.name).toBe('COMPLETED');
  });

  test('a rank failed: FAILED, naming the first rank that failed and its code', async () => {
    const rec = await localExecutor.refresh(runDirWith([0, 3, 143]));
    expect(rec.state).toMatchObject({ name: 'FAILED', exit_code: 3, failed_rank: 1, failed_host: 'gpu1' });
  });

  test('a rank has not ended (or never started): no state yet', async () => {
    expect((await localExecutor.refresh(runDirWith([0, undefined]))).state).toBeUndefined();
    const dir = runDirWith([0, 0]);
    fs.rmSync(path.join(dir, 'logs', 'rank-1.json'));
    expect((await localExecutor.refresh(dir)).state).toBeUndefined();
    expect(readJobRecord(dir).state).toBeUndefined();
  });
});
