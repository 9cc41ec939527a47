// Issue 14, "Concurrency" and "The run directory as untrusted input", on the real test cluster:
// concurrent submissions into one parent directory each claim their own run directory, a refused
// one removes nothing of the others (not even the parent it made first), and an existing
// --run-dir that is not the user's own and private is refused before anything is written.
import * as fs from 'fs';
import * as path from 'path';
import {
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  requireCluster,
  said,
  tmpDir,
  waitFor,
  waitTerminal,
} from '../launcher/cluster';

jest.setTimeout(300_000);
const submitted: string[] = [];
const env = clusterEnv();
beforeAll(requireCluster);
afterAll(() => cancelJobs(submitted, env));

/** A PATH whose sbatch waits for `gate` to exist, then runs the real one (which refuses the job). */
function gatedSbatch(gate: string): NodeJS.ProcessEnv {
  const bin = tmpDir('gated-sbatch');
  const real = '/usr/bin/sbatch';
  fs.writeFileSync(
    path.join(bin, 'sbatch'),
    `#!/bin/bash\nwhile [[ ! -e ${JSON.stringify(gate)} ]]; do sleep 0.1; done\nexec ${real} "$@"\n`,
    { mode: 0o755 },
  );
  return { ...env, PATH: `${bin}:${env.PATH}` };
}

test('8 concurrent submissions get 8 intact run dirs; a refused one removes nothing else', async () => {
  const cwd = tmpDir('claim'); // runs/ does not exist yet: the first submission makes it
  const runs = path.join(cwd, 'runs');
  const gate = path.join(tmpDir('gate'), 'open');
  // The refused submission goes first and makes runs/; its sbatch (an unknown partition) answers
  // only once the 8 others have their run dirs in runs/. Its undo must leave runs/ and them.
  const refused = cli(
    ['submit', '-N', '1', '-p', 'no-such-partition', '--no-check', '--name', 'sweep', '--', 'true'],
    {
      cwd,
      env: gatedSbatch(gate),
    },
  );
  await waitFor(
    'the refused submission to make its run dir',
    () => fs.existsSync(runs) && fs.readdirSync(runs).length === 1,
    60_000,
    50,
  );
  const subs = await Promise.all(
    Array.from({ length: 8 }, () =>
      cli(['submit', '-N', '1', '--no-check', '--name', 'sweep', '--', 'true'], { cwd, env }),
    ),
  );
  const ids = subs.map((r) => {
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    return jobIdOf(r);
  });
  submitted.push(...ids);
  fs.writeFileSync(gate, '');
  const r = await refused;
  expect({ code: r.code, out: said(r) }).not.toMatchObject({ code: 0 });
  expect(r.stderr).toMatch(/no-such-partition|partition/i);

  const dirs = fs.readdirSync(runs).sort();
  expect(dirs).toHaveLength(8);
  for (const d of dirs) expect(d).toMatch(/^sweep-\d{8}-\d{6}-[0-9a-f]{6}$/);
  const byJob = new Map(
    dirs.map((d) => [JSON.parse(fs.readFileSync(path.join(runs, d, 'job.json'), 'utf8')).job_id, d]),
  );
  expect([...byJob.keys()].sort()).toEqual([...ids].sort());
  for (const id of ids) {
    const dir = path.join(runs, byJob.get(id) ?? 'missing');
    for (const f of ['job.sbatch', 'bin/rank-bootstrap.sh', 'logs', 'rendezvous'])
      expect(fs.existsSync(path.join(dir, f))).toBe(true);
    const s = await waitTerminal(id, env);
    expect({ id, state: s.job.state?.name }).toEqual({ id, state: 'COMPLETED' });
  }
});

describe("an existing --run-dir is refused unless it is the user's own and private", () => {
  const submitInto = (runDir: string) =>
    cli(['submit', '-N', '1', '--no-check', '--run-dir', runDir, '--', 'true'], { env });

  test.each([
    [
      'writable by everyone (0777)',
      (d: string) => fs.chmodSync(d, 0o777),
      /writable by its group or by others \(mode 777\)/,
    ],
    ['group-writable (0770)', (d: string) => fs.chmodSync(d, 0o770), /writable by its group or by others/],
  ])('%s', async (_what, spoil, message) => {
    const dir = path.join(tmpDir('open'), 'run');
    fs.mkdirSync(dir);
    spoil(dir);
    const r = await submitInto(dir);
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 7 });
    expect(r.stderr).toMatch(message);
    expect(fs.readdirSync(dir)).toEqual([]);
  });

  test('a symbolic link to a directory', async () => {
    const target = tmpDir('target');
    const link = path.join(tmpDir('link'), 'run');
    fs.symlinkSync(target, link);
    const r = await submitInto(link);
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 7 });
    expect(r.stderr).toMatch(/is a symbolic link/);
    expect(fs.readdirSync(target)).toEqual([]);
  });

  const root = process.getuid?.() === 0;
  (root ? test : test.skip)('one owned by another user (nobody), even if private', async () => {
    const dir = path.join(tmpDir('foreign'), 'run');
    fs.mkdirSync(dir, { mode: 0o700 });
    fs.chownSync(dir, 65534, 65534);
    const r = await submitInto(dir);
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 7 });
    expect(r.stderr).toMatch(/is owned by user id 65534, not by you/);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
