// Where each server's pace is kept (tracking-plugin/ingest/pace-store.ts): the user's state
// directory, one private file per server, named by a hash that leaves out the URI's password; read
// like a run-dir file, and what is not a record is said and measured again.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { paceOf } from '../../../tracking-plugin/ingest/pace';
import { loadPace, paceFile, savePace } from '../../../tracking-plugin/ingest/pace-store';

const state = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-pace-'));
const env = (dir: string) => ({ XDG_STATE_HOME: dir });

test('saved and read back, private, under a name without the password', () => {
  const dir = state();
  const uri = 'https://alice:s3cret@mlflow.example:5000/ml/';
  const warnings: string[] = [];
  const pace = paceOf(1.7, 1_764_900_000_000);
  savePace(uri, pace, (m) => warnings.push(m), env(dir));
  expect(loadPace(uri, (m) => warnings.push(m), env(dir))).toEqual(pace);
  expect(warnings).toEqual([]);
  const file = path.join(dir, 'track-launch', paceFile(uri));
  expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700);
  expect(file).not.toMatch(/alice|s3cret|example/);
  expect(fs.readFileSync(file, 'utf8')).not.toMatch(/alice|s3cret|example/);
  // the same server under another user, or without the trailing slash: one record
  expect(paceFile('https://bob:x@mlflow.example:5000/ml')).toBe(paceFile(uri));
  expect(paceFile('https://mlflow.example:5001/ml')).not.toBe(paceFile(uri));
});

test('a missing record is none; one that is not a record, too big, or a symlink is said', () => {
  const dir = state();
  const uri = 'http://127.0.0.1:5000';
  const file = path.join(dir, 'track-launch', paceFile(uri));
  const warnings: string[] = [];
  const load = () => loadPace(uri, (m) => warnings.push(m), env(dir));
  expect(load()).toBeUndefined();
  expect(warnings).toEqual([]);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '{"version":1,"limit":4,"ratio":1e400,"measured_at":2}');
  expect(load()).toBeUndefined();
  expect(warnings.pop()).toMatch(/is not a pace record: the server is measured again/);
  fs.writeFileSync(file, 'x'.repeat(5000));
  expect(load()).toBeUndefined();
  expect(warnings.pop()).toMatch(/is 5000 bytes, over the limit of 4096 bytes/);
  fs.rmSync(file);
  const target = path.join(dir, 'elsewhere.json');
  fs.writeFileSync(target, JSON.stringify(paceOf(2, Date.now())));
  fs.symlinkSync(target, file);
  expect(load()).toBeUndefined();
  expect(warnings.pop()).toMatch(/is a symbolic link; track-launch does not follow links/);
  // a link on the way to it is not followed either: the record behind it stays unread
  fs.rmSync(file);
  const elsewhere = path.join(dir, 'elsewhere');
  fs.mkdirSync(elsewhere);
  fs.writeFileSync(path.join(elsewhere, path.basename(file)), JSON.stringify(paceOf(2, Date.now())));
  fs.rmSync(path.dirname(file), { recursive: true });
  fs.symlinkSync(elsewhere, path.dirname(file));
  expect(load()).toBeUndefined();
  expect(warnings.pop()).toMatch(/mlflow-pace is a symbolic link/);
});

test("a record of another user is refused: someone else's file could set this user's pace", () => {
  const uid = process.getuid?.();
  if (uid === undefined) return; // no owners to compare (not POSIX)
  const dir = state();
  const uri = 'http://127.0.0.1:5000';
  const file = path.join(dir, 'track-launch', paceFile(uri));
  savePace(uri, paceOf(2, Date.now()), () => undefined, env(dir));
  const warnings: string[] = [];
  const load = () => loadPace(uri, (m) => warnings.push(m), env(dir));
  expect(load()?.limit).toBe(4);
  // another owner: possible only as root here (chown), as in this project's CI
  if (uid !== 0) return;
  fs.chownSync(file, 4242, 4242);
  expect(load()).toBeUndefined();
  expect(warnings.pop()).toMatch(/belongs to user id 4242, not to you \(0\)/);
});

test('a record that cannot be written is said, not thrown', () => {
  const dir = state();
  fs.writeFileSync(path.join(dir, 'track-launch'), 'a file where the directory should be');
  const warnings: string[] = [];
  savePace('http://127.0.0.1:5000', paceOf(1, 0), (m) => warnings.push(m), env(dir));
  expect(warnings).toHaveLength(1);
  expect(warnings[0]).toMatch(/pace record was not saved/);
});
