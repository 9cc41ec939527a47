// The bootstrap on the nodes refuses a rendezvous directory (or the run directory's bin/ and
// logs/) that is not private to the job's user (issue 14): sbatch/lib/rendezvous.sh, run by bash.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const RDZV_SH = path.resolve(__dirname, '..', '..', '..', 'sbatch', 'lib', 'rendezvous.sh');

/** A private run dir with rendezvous/, bin/ and logs/; `spoil` changes it before tl_publish runs. */
function publish(spoil: (runDir: string) => void) {
  const runDir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-rdzv-dirs-'));
  for (const d of ['rendezvous', 'bin', 'logs']) fs.mkdirSync(path.join(runDir, d), { mode: 0o700 });
  spoil(runDir);
  const file = path.join(runDir, 'rendezvous', 'j.r0.addr');
  const r = spawnSync(
    'bash',
    ['-c', '. "$1"; TL_WHO="rank 0 on n1"; tl_publish "$2" 10.0.0.1 29500', '_', RDZV_SH, file],
    {
      encoding: 'utf8',
    },
  );
  return { code: r.status, stderr: r.stderr, published: fs.existsSync(file), runDir };
}

test('a private run directory: published', () => {
  expect(publish(() => undefined)).toMatchObject({ code: 0, stderr: '', published: true });
});

test.each([
  ['rendezvous', 0o770],
  ['bin', 0o777],
  ['logs', 0o775],
])('%s/ writable by group or others: refused with one message, nothing published', (dir, mode) => {
  const r = publish((run) => fs.chmodSync(path.join(run, dir), mode));
  expect(r).toMatchObject({ code: 1, published: false });
  expect(r.stderr).toBe(
    `track-launch: rank 0 on n1: refusing ${path.join(r.runDir, dir)}: its mode ${mode.toString(8)} lets its group or others write into it. ` +
      "The run directory and its bin/, logs/ and rendezvous/ must be private to the job's user (chmod go-w); submit again with a fresh --run-dir.\n",
  );
});

test('a rendezvous directory that is a link elsewhere is refused', () => {
  const elsewhere = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-rdzv-else-'));
  const r = publish((run) => {
    fs.rmdirSync(path.join(run, 'rendezvous'));
    fs.symlinkSync(elsewhere, path.join(run, 'rendezvous'));
  });
  expect(r.code).toBe(1);
  expect(r.stderr).toMatch(/refusing .*rendezvous: it is a symbolic link, not a directory/);
  expect(fs.readdirSync(elsewhere)).toEqual([]);
});

const root = process.getuid?.() === 0;
(root ? test : test.skip)(
  'a rendezvous directory owned by another user is refused (needs root to chown)',
  () => {
    const r = publish((run) => fs.chownSync(path.join(run, 'rendezvous'), 65534, 65534));
    expect(r).toMatchObject({ code: 1, published: false });
    expect(r.stderr).toMatch(/rendezvous: it is owned by user id 65534, not by this job's user \(0\)/);
  },
);
