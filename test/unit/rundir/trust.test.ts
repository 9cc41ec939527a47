// The run directory's trust rules (issue 14), on real files: no symlink followed, regular files
// only, bounded JSON, private modes whatever the umask, and the ownership check.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  appendDurable,
  checkRunDirOwnership,
  createRunDir,
  ensureDir,
  JSON_LIMIT,
  listRanks,
  readJobRecord,
  openLogStream,
  readRange,
  readRankFacts,
  runPaths,
  trackingPaths,
  TrackLaunchError,
  truncateTo,
  writeAtomic,
  writeAtomicAsync,
  writeReportFile,
} from '../../../core';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-trust-'));
const mode = (p: string) => fs.statSync(p).mode & 0o777;

function runDirError(f: () => unknown, pattern: RegExp): void {
  let caught: unknown;
  try {
    f();
  } catch (err) {
    caught = err;
  }
  expect(caught).toBeInstanceOf(TrackLaunchError);
  expect((caught as TrackLaunchError).code).toBe('RUN_DIR');
  expect((caught as Error).message).toMatch(pattern);
}

async function runDirRejects(p: Promise<unknown>, pattern: RegExp): Promise<void> {
  await expect(p).rejects.toBeInstanceOf(TrackLaunchError);
  await expect(p).rejects.toMatchObject({ code: 'RUN_DIR', message: expect.stringMatching(pattern) });
}

describe('no symlink is followed', () => {
  test('a job.json that is a link is refused, naming it', () => {
    const dir = tmp();
    const target = path.join(tmp(), 'job.json');
    fs.writeFileSync(target, JSON.stringify({ version: 1 }));
    fs.symlinkSync(target, runPaths(dir).jobJson);
    runDirError(() => readJobRecord(dir), /job\.json is a symbolic link/);
  });

  test('a job.sbatch that links to a secret is never read', async () => {
    const dir = tmp();
    const secret = path.join(tmp(), 'environ');
    fs.writeFileSync(secret, 'MLFLOW_TRACKING_TOKEN=canary');
    fs.symlinkSync(secret, runPaths(dir).script);
    await runDirRejects(openLogStream(dir, runPaths(dir).script), /job\.sbatch is a symbolic link/);
  });

  test('a spool that links to a file elsewhere is neither appended to nor truncated', async () => {
    const dir = tmp();
    const victim = path.join(tmp(), 'bashrc');
    fs.writeFileSync(victim, 'export PATH=/usr/bin\n');
    const spool = trackingPaths(dir).rankSpool(0);
    fs.mkdirSync(path.dirname(spool), { recursive: true });
    fs.symlinkSync(victim, spool);
    await runDirRejects(appendDurable(dir, spool, 'x\n'), /rank-0\.jsonl is a symbolic link/);
    await runDirRejects(truncateTo(dir, spool, 0), /rank-0\.jsonl is a symbolic link/);
    expect(fs.readFileSync(victim, 'utf8')).toBe('export PATH=/usr/bin\n');
  });

  test('a directory inside the run dir that is a link is refused (logs/, tracking/)', async () => {
    const dir = tmp();
    const elsewhere = tmp();
    fs.writeFileSync(path.join(elsewhere, 'rank-0.out'), 'loss=1\n');
    fs.symlinkSync(elsewhere, runPaths(dir).logsDir);
    runDirError(() => listRanks(dir), /logs is a symbolic link/);
    await runDirRejects(readRange(dir, runPaths(dir).rankOut(0), 0, 100), /logs is a symbolic link/);
    fs.symlinkSync(elsewhere, trackingPaths(dir).dir);
    runDirError(() => ensureDir(dir, trackingPaths(dir).spoolDir), /tracking is a symbolic link/);
    expect(fs.readdirSync(elsewhere)).toEqual(['rank-0.out']); // nothing created through the link
  });

  test('an atomic write replaces a link at its place, never writes through it', () => {
    const dir = tmp();
    const victim = path.join(tmp(), 'victim');
    fs.writeFileSync(victim, 'keep');
    fs.symlinkSync(victim, path.join(dir, 'report.pdf'));
    writeReportFile(dir, dir, 'report.pdf', Buffer.from('new'));
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep');
    expect(fs.lstatSync(path.join(dir, 'report.pdf')).isFile()).toBe(true);
  });

  test('the asynchronous atomic write replaces a link too, and a stale temporary file of its own pid', async () => {
    const dir = tmp();
    const victim = path.join(tmp(), 'victim');
    fs.writeFileSync(victim, 'keep');
    const file = trackingPaths(dir).dir + '/state.json';
    fs.mkdirSync(trackingPaths(dir).dir);
    fs.symlinkSync(victim, file);
    // what a crashed process with this pid left: a link, which must be removed, not written through
    fs.symlinkSync(victim, `${file}.${process.pid}.tmp`);
    await writeAtomicAsync(dir, file, '{"a":1}\n', 0o640);
    expect(fs.readFileSync(victim, 'utf8')).toBe('keep');
    expect(fs.lstatSync(file).isFile()).toBe(true);
    expect(fs.readFileSync(file, 'utf8')).toBe('{"a":1}\n');
    expect(mode(file)).toBe(0o640);
    expect(fs.readdirSync(trackingPaths(dir).dir)).toEqual(['state.json']); // no temporary file left
  });

  test('a path that leaves the run directory is refused', async () => {
    const dir = tmp();
    runDirError(() => writeAtomic(dir, path.join(dir, '..', 'x'), 'x'), /outside the run directory/);
    await expect(writeAtomicAsync(dir, path.join(dir, '..', 'x'), 'x')).rejects.toThrow(
      /outside the run directory/,
    );
  });
});

describe('regular files only, bounded', () => {
  test('a FIFO is refused at once (no hang waiting for a writer)', async () => {
    const dir = tmp();
    fs.mkdirSync(runPaths(dir).logsDir);
    execFileSync('mkfifo', [runPaths(dir).rankFacts(0)]);
    execFileSync('mkfifo', [runPaths(dir).rankOut(1)]);
    runDirError(() => readRankFacts(dir, 0), /rank-0\.json is not a regular file/);
    await runDirRejects(readRange(dir, runPaths(dir).rankOut(1), 0, 10), /rank-1\.out is not a regular file/);
    await runDirRejects(truncateTo(dir, runPaths(dir).rankOut(1), 0), /not a regular file/);
  });

  test('a directory where a file belongs is refused', () => {
    const dir = tmp();
    fs.mkdirSync(runPaths(dir).jobJson);
    runDirError(() => readJobRecord(dir), /job\.json is not a regular file/);
  });

  test('a JSON file over the limit is refused with the file and the limit', () => {
    const dir = tmp();
    fs.writeFileSync(runPaths(dir).jobJson, Buffer.alloc(JSON_LIMIT + 1, 0x20));
    runDirError(
      () => readJobRecord(dir),
      new RegExp(`job\\.json is ${JSON_LIMIT + 1} bytes, over the limit of ${JSON_LIMIT}`),
    );
  });
});

describe('modes ignore the umask', () => {
  const umask = process.umask();
  afterEach(() => process.umask(umask));

  test.each([0o000, 0o002, 0o022])('under umask %o: dirs 0700, files 0600 unless asked', async (u) => {
    process.umask(u);
    const dir = path.join(tmp(), 'runs', 'a');
    const undo = createRunDir(dir);
    expect(typeof undo).toBe('function');
    for (const d of [
      dir,
      path.dirname(dir),
      runPaths(dir).logsDir,
      runPaths(dir).rendezvousDir,
      runPaths(dir).binDir,
    ])
      expect(mode(d)).toBe(0o700);
    expect(mode(runPaths(dir).jobJson)).toBe(0o600);
    writeAtomic(dir, runPaths(dir).script, '#!/bin/bash\n', 0o700);
    expect(mode(runPaths(dir).script)).toBe(0o700);
    const spool = trackingPaths(dir).parentSpool;
    await appendDurable(dir, spool, 'x\n');
    expect(mode(trackingPaths(dir).dir)).toBe(0o700);
    expect(mode(trackingPaths(dir).spoolDir)).toBe(0o700);
    expect(mode(spool)).toBe(0o600);
    writeAtomic(dir, path.join(dir, 'reports', 'report.pdf'), 'pdf');
    expect(mode(path.join(dir, 'reports'))).toBe(0o700);
    expect(mode(path.join(dir, 'reports', 'report.pdf'))).toBe(0o600);
  });

  test('a refused submission removes what it created, only that', () => {
    const parent = tmp();
    const dir = path.join(parent, 'job');
    createRunDir(dir);
    expect(() => createRunDir(dir)).toThrow(/already holds a job/);
    expect(fs.existsSync(runPaths(dir).jobJson)).toBe(true);
  });
});

describe('checkRunDirOwnership', () => {
  test('a private directory of ours passes', () => {
    const dir = tmp();
    fs.chmodSync(dir, 0o755);
    expect(() => checkRunDirOwnership(dir)).not.toThrow();
  });

  test.each([0o777, 0o775, 0o757])('mode %o (group or other writable) is refused', (m) => {
    const dir = tmp();
    fs.chmodSync(dir, m);
    runDirError(() => checkRunDirOwnership(dir), /writable by its group or by others/);
  });

  test('a link to a directory is refused, a missing one is NOT_FOUND', () => {
    const dir = tmp();
    const link = path.join(tmp(), 'link');
    fs.symlinkSync(dir, link);
    runDirError(() => checkRunDirOwnership(link), /is a symbolic link/);
    expect(() => checkRunDirOwnership(path.join(dir, 'nope'))).toThrow(
      expect.objectContaining({ code: 'NOT_FOUND' }),
    );
  });

  const root = process.getuid?.() === 0;
  (root ? test : test.skip)('a directory owned by another user is refused (needs root to chown)', () => {
    const dir = tmp();
    fs.chmodSync(dir, 0o700);
    fs.chownSync(dir, 4242, 4242);
    runDirError(() => checkRunDirOwnership(dir), /owned by user id 4242/);
  });
});
