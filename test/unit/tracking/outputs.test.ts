// --artifact: globs in the submit and run directories, with the trust rules: no symlink followed,
// regular files only, a size bound, nothing outside the two roots (real files in a temp dir).
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { findOutsideFiles, readOutsideFile } from '../../../core';
import { matchPart, patternParts } from '../../../core/rundir/glob';
import { findOutputs } from '../../../tracking-plugin/ingest/outputs';
import { jobRecord } from './fixture';

async function tree(files: Record<string, string>): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'tl-out-'));
  for (const [rel, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(root, rel)), { recursive: true });
    await fs.writeFile(path.join(root, rel), content);
  }
  return root;
}

test('glob parts', () => {
  expect(matchPart('*.pdf', 'errors.pdf')).toBe(true);
  expect(matchPart('*.pdf', '.hidden.pdf')).toBe(false);
  expect(matchPart('err?rs.[pP]df', 'errors.Pdf')).toBe(true);
  expect(matchPart('[!a]*', 'abc')).toBe(false);
  expect(matchPart('a+b(1).txt', 'a+b(1).txt')).toBe(true);
  expect(patternParts('/s', '../x')).toBeUndefined();
  expect(patternParts('/s', 'a/../../x')).toBeUndefined();
  expect(patternParts('/s', '/etc/passwd')).toBeUndefined();
  expect(patternParts('/s', '/s/out/x.pdf')).toEqual(['out', 'x.pdf']);
  expect(patternParts('/s', 'a/../b/*.png')).toEqual(['b', '*.png']);
});

test('matches files, refuses links, specials and oversize files, and stays inside', async () => {
  const root = await tree({
    'errors.pdf': 'pdf',
    'out/a.png': 'a',
    'out/deep/b.png': 'b',
    'big.bin': 'x'.repeat(2000),
    'secret.txt': 's',
  });
  await fs.symlink(path.join(root, 'secret.txt'), path.join(root, 'link.pdf'));
  await fs.symlink(path.join(root, 'out'), path.join(root, 'outlink'));
  expect(findOutsideFiles(root, '*.pdf')).toMatchObject({
    files: ['errors.pdf'],
    refused: [{ rel: 'link.pdf', why: expect.stringMatching(/symbolic link/) }],
  });
  expect(findOutsideFiles(root, 'out/**/*.png').files.sort()).toEqual(['out/a.png', 'out/deep/b.png']);
  expect(findOutsideFiles(root, 'out').files.sort()).toEqual(['out/a.png', 'out/deep/b.png']);
  expect(findOutsideFiles(root, 'outlink/a.png').refused).toEqual([
    { rel: 'outlink', why: expect.stringMatching(/symbolic link/) },
  ]);
  expect(findOutsideFiles(root, '../*').outside).toBe(true);
  expect(findOutsideFiles(root, 'big.bin', { maxBytes: 1000 }).refused[0].why).toMatch(/over the limit/);
  expect(findOutsideFiles(root, '**', { maxFiles: 2 })).toMatchObject({ truncated: true });
  expect(readOutsideFile(root, 'out/deep/b.png').toString()).toBe('b');
  expect(() => readOutsideFile(root, 'link.pdf')).toThrow(/symbolic link/);
  expect(() => readOutsideFile(root, 'outlink/a.png')).toThrow(/symbolic link/);
  expect(() => readOutsideFile(root, 'big.bin', 1000)).toThrow(/over the limit/);
});

test('findOutputs: submit dir first, then the run dir; escapes and misses said', async () => {
  const submit = await tree({ 'errors.pdf': 'e', 'runs/r/x': '' });
  const runDir = await tree({ 'eval/plot.png': 'p' });
  await fs.chmod(runDir, 0o700);
  const job = { ...jobRecord(), submit_dir: submit };
  job.spec.artifacts = ['errors.pdf', 'eval/*.png', '../../etc/passwd', 'nothing*.csv'];
  const found = findOutputs(job, runDir);
  expect(found.files).toEqual([
    { root: submit, rel: 'errors.pdf', artifactPath: 'outputs/errors.pdf' },
    { root: runDir, rel: 'eval/plot.png', artifactPath: 'outputs/eval/plot.png' },
  ]);
  expect(found.refused).toEqual([
    { what: '--artifact ../../etc/passwd', why: expect.stringMatching(/outside the submit directory/) },
  ]);
  expect(found.notes).toEqual([expect.stringMatching(/nothing\*\.csv matched no file/)]);
  // a run dir others can write into: its job.json cannot point at the syncing user's files
  await fs.chmod(runDir, 0o777);
  const shared = findOutputs(job, runDir);
  expect(shared.files.map((f) => f.rel)).toEqual(['eval/plot.png']);
  expect(shared.notes[0]).toMatch(/run directory only/);
  await fs.chmod(runDir, 0o700);
});
