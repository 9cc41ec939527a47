// Writing a run's artifacts into a directory store (MLflow's file: artifact root), on real files:
// MLflow's layout, the store's group and mode (never world-writable), no link followed at or below
// the run's artifact directory, and a store this machine does not have is refused untouched.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { Readable } from 'stream';
import { storeArtifact, TrackLaunchError } from '../../../core';

jest.setTimeout(30_000); // fsyncs on a shared, busy disk

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-store-'));
const perms = (p: string) => fs.statSync(p).mode & 0o7777;
const RUN = '0123456789abcdef0123456789abcdef';

/** A store root with `mode` (and group `gid`), and the artifact directory of a run in experiment 7. */
function store(mode: number, gid?: number): { root: string; dir: string } {
  const root = path.join(tmp(), 'mlruns');
  fs.mkdirSync(root);
  if (gid !== undefined) fs.chownSync(root, -1, gid);
  fs.chmodSync(root, mode);
  return { root, dir: path.join(root, '7', RUN, 'artifacts') };
}

async function refused(p: Promise<unknown>, code: string, pattern: RegExp): Promise<TrackLaunchError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(TrackLaunchError);
  expect((err as TrackLaunchError).code).toBe(code);
  expect((err as TrackLaunchError).message).toMatch(pattern);
  return err as TrackLaunchError;
}

test("MLflow's layout, with the store's group and mode for every new directory and file", async () => {
  const other = 65534; // nogroup: not the test's own group, so a copied group is seen
  const { root, dir } = store(0o2775, other);
  const bytes = Buffer.from('loss=0.5\n'.repeat(1000));
  await storeArtifact(dir, 'logs/rank-0.out', bytes);
  await storeArtifact(dir, 'job.json', Buffer.from('{}'));
  const file = path.join(root, '7', RUN, 'artifacts', 'logs', 'rank-0.out');
  expect(fs.readFileSync(file)).toEqual(bytes);
  expect(fs.readFileSync(path.join(dir, 'job.json'), 'utf8')).toBe('{}');
  for (const d of ['7', `7/${RUN}`, `7/${RUN}/artifacts`, `7/${RUN}/artifacts/logs`]) {
    expect([d, perms(path.join(root, d)), fs.statSync(path.join(root, d)).gid]).toEqual([d, 0o2775, other]);
  }
  for (const f of [file, path.join(dir, 'job.json')])
    expect([perms(f), fs.statSync(f).gid]).toEqual([0o664, other]);
  // no temporary file is left beside them
  expect(fs.readdirSync(path.join(dir, 'logs'))).toEqual(['rank-0.out']);
});

test('a world-writable store gives nothing world-writable; a private one keeps files private', async () => {
  const open = store(0o777);
  await storeArtifact(open.dir, 'outputs/a/b.txt', Buffer.from('b'));
  expect(perms(path.join(open.dir, 'outputs', 'a'))).toBe(0o775);
  expect(perms(path.join(open.dir, 'outputs', 'a', 'b.txt'))).toBe(0o664);
  const closed = store(0o750);
  await storeArtifact(closed.dir, 'job.json', Buffer.from('{}'));
  expect(perms(closed.dir)).toBe(0o750);
  expect(perms(path.join(closed.dir, 'job.json'))).toBe(0o640);
});

test('a stream is written whole, and a second write replaces the file', async () => {
  const { dir } = store(0o755);
  const chunks = Array.from({ length: 50 }, (_, i) => Buffer.alloc(70_000, i));
  await storeArtifact(dir, 'logs/rank-1.err', Readable.from(chunks));
  // Buffer.compare: toEqual walks 3.5 MB byte by byte for minutes
  const got = fs.readFileSync(path.join(dir, 'logs', 'rank-1.err'));
  expect([got.length, Buffer.compare(got, Buffer.concat(chunks))]).toEqual([50 * 70_000, 0]);
  await storeArtifact(dir, 'logs/rank-1.err', Buffer.from('again'));
  expect(fs.readFileSync(path.join(dir, 'logs', 'rank-1.err'), 'utf8')).toBe('again');
});

test('no link is followed at or below the run artifact directory', async () => {
  const elsewhere = tmp();
  const a = store(0o755);
  fs.mkdirSync(a.dir, { recursive: true });
  fs.symlinkSync(elsewhere, path.join(a.dir, 'logs'));
  await refused(
    storeArtifact(a.dir, 'logs/rank-0.out', Buffer.from('x')),
    'RUN_DIR',
    /logs is a symbolic link/,
  );

  const b = store(0o755);
  fs.mkdirSync(path.dirname(b.dir), { recursive: true });
  fs.symlinkSync(elsewhere, b.dir);
  await refused(
    storeArtifact(b.dir, 'job.json', Buffer.from('x')),
    'RUN_DIR',
    /artifacts is a symbolic link/,
  );
  expect(fs.readdirSync(elsewhere)).toEqual([]);

  // a link where the file goes is replaced, not written through
  const c = store(0o755);
  const secret = path.join(elsewhere, 'secret');
  fs.writeFileSync(secret, 'keep');
  fs.mkdirSync(c.dir, { recursive: true });
  fs.symlinkSync(secret, path.join(c.dir, 'job.json'));
  await storeArtifact(c.dir, 'job.json', Buffer.from('{}'));
  expect(fs.readFileSync(secret, 'utf8')).toBe('keep');
  expect(fs.lstatSync(path.join(c.dir, 'job.json')).isFile()).toBe(true);
});

test('a store this machine does not have is refused, and nothing is created', async () => {
  const base = tmp();
  const dir = path.join(base, 'mlruns', '7', RUN, 'artifacts'); // mlruns is not there
  const err = await refused(
    storeArtifact(dir, 'job.json', Buffer.from('{}')),
    'TRACKING',
    /is not reachable from this machine: .*mlruns does not exist here/,
  );
  expect(err.details.unreachable).toBe(true);
  expect(fs.readdirSync(base)).toEqual([]);
  fs.writeFileSync(path.join(base, 'mlruns'), 'a file');
  await refused(storeArtifact(dir, 'job.json', Buffer.from('{}')), 'TRACKING', /mlruns is not a directory/);
});

test('an artifact path that climbs out is refused', async () => {
  const { dir } = store(0o755);
  for (const p of ['../x', 'a/../../x', '/etc/x', 'a//b'])
    await refused(storeArtifact(dir, p, Buffer.from('x')), 'TRACKING', /not a plain relative path/);
});
