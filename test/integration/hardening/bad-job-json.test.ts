// job.json is untrusted input: one with missing or mistyped fields is refused (exit 7, the file and
// the field named) by status, cancel, logs and report, before any Slurm command runs, never as a
// TypeError or with "[object Object]" in a message or a command line.
import * as fs from 'fs';
import * as path from 'path';
import { cli, REPO, tmpDir } from '../launcher/cluster';

jest.setTimeout(120_000);

const FIXTURE = path.join(REPO, 'test', 'fixtures', 'runs', 'polynomial-3');
const SLURM = ['sbatch', 'scancel', 'scontrol', 'squeue', 'sacct', 'sinfo'];

/** A PATH whose Slurm commands only record that they were called (in the returned log). */
function fakeSlurm(): { env: NodeJS.ProcessEnv; calls: () => string } {
  const bin = tmpDir('fake-slurm');
  const log = path.join(bin, 'calls.log');
  for (const c of SLURM)
    fs.writeFileSync(path.join(bin, c), `#!/bin/bash\necho "${c} $*" >> ${JSON.stringify(log)}\nexit 1\n`, {
      mode: 0o755,
    });
  const env = { ...process.env, PATH: `${bin}:${process.env.PATH}`, XDG_STATE_HOME: tmpDir('state') };
  return { env, calls: () => (fs.existsSync(log) ? fs.readFileSync(log, 'utf8') : '') };
}

/** A run directory with the fixture's logs and `job` as its job.json. */
function runDirWith(job: unknown): string {
  const dir = path.join(tmpDir('bad-job'), 'run');
  fs.mkdirSync(path.join(dir, 'logs'), { recursive: true, mode: 0o700 });
  for (const f of fs.readdirSync(path.join(FIXTURE, 'logs')))
    fs.copyFileSync(path.join(FIXTURE, 'logs', f), path.join(dir, 'logs', f));
  fs.writeFileSync(path.join(dir, 'job.json'), JSON.stringify(job), { mode: 0o600 });
  return dir;
}

const good = () => ({
  ...(JSON.parse(fs.readFileSync(path.join(FIXTURE, 'job.json'), 'utf8')) as Record<string, unknown>),
  executor: 'slurm',
  job_id: '4242',
  state: { name: 'RUNNING' },
});

const CASES: [string, unknown, RegExp][] = [
  ['only a version', { version: 1 }, /job\.json: name is missing; it must be a string/],
  ['"spec": null', { ...good(), spec: null }, /job\.json: spec is null; it must be an object/],
  [
    '"job_id": {"a":1}',
    { ...good(), job_id: { a: 1 } },
    /job\.json: job_id is \{"a":1\}; it must be a string/,
  ],
];

describe.each(CASES)('job.json with %s', (_name, job, said) => {
  test.each([['status'], ['cancel'], ['logs'], ['report']])(
    '%s refuses it: exit 7, file and field named',
    async (command) => {
      const dir = runDirWith(job);
      const { env, calls } = fakeSlurm();
      const r = await cli([command, dir], { env, cwd: tmpDir('cwd') });
      expect({ code: r.code, stderr: r.stderr }).toEqual({ code: 7, stderr: expect.stringMatching(said) });
      expect(r.stderr).toContain(path.join(dir, 'job.json'));
      expect(r.stdout + r.stderr).not.toMatch(/TypeError|\[object Object\]|internal error/);
      expect(calls()).toBe('');
    },
  );
});

test('the fixture as it is (made a Slurm job) is read: status asks Slurm', async () => {
  const dir = runDirWith(good());
  const { env, calls } = fakeSlurm();
  const r = await cli(['status', dir], { env, cwd: tmpDir('cwd') });
  expect(r.stderr).not.toMatch(/job\.json/);
  expect(calls()).toMatch(/^scontrol show job -o 4242/m);
});
