// A submission claims its run directory atomically and its undo removes only what it created
// (issue 14): never a parent that existed or another submission made, never another's run dir.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { createRunDir, runPaths } from '../../../core';

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-claim-'));

describe('createRunDir', () => {
  test('undo in a fresh parent removes the parent it made, unless another run dir is in it now', () => {
    const base = tmp();
    const runs = path.join(base, 'runs');
    const undoA = createRunDir(path.join(runs, 'a'));
    const undoB = createRunDir(path.join(runs, 'b')); // made after A decided what it created
    undoA();
    expect(fs.readdirSync(runs)).toEqual(['b']);
    expect(fs.existsSync(runPaths(path.join(runs, 'b')).jobJson)).toBe(true);
    undoB(); // runs/ existed for B: it stays
    expect(fs.readdirSync(base)).toEqual(['runs']);
    expect(fs.readdirSync(runs)).toEqual([]);
  });

  test('the loser of a claim on an existing directory removes nothing of the winner', () => {
    const dir = path.join(tmp(), 'job');
    createRunDir(dir);
    fs.writeFileSync(path.join(dir, 'logs', 'rank-0.out'), 'winner\n');
    expect(() => createRunDir(dir)).toThrow(/already holds a job/);
    expect(fs.readFileSync(path.join(dir, 'logs', 'rank-0.out'), 'utf8')).toBe('winner\n');
    expect(fs.existsSync(runPaths(dir).jobJson)).toBe(true);
  });

  test('an existing private directory of ours: undo removes only what the submission added', () => {
    const dir = tmp();
    fs.writeFileSync(path.join(dir, 'notes.txt'), 'mine');
    const undo = createRunDir(dir);
    expect(fs.readdirSync(dir).sort()).toEqual(['bin', 'job.json', 'logs', 'notes.txt', 'rendezvous']);
    undo();
    expect(fs.readdirSync(dir)).toEqual(['notes.txt']);
  });

  test('an existing directory writable by others, or a link, is refused and left as it is', () => {
    const open = tmp();
    fs.chmodSync(open, 0o777);
    expect(() => createRunDir(open)).toThrow(expect.objectContaining({ code: 'RUN_DIR' }));
    expect(fs.readdirSync(open)).toEqual([]);
    const link = path.join(tmp(), 'link');
    fs.symlinkSync(tmp(), link);
    expect(() => createRunDir(link)).toThrow(/is a symbolic link/);
    expect(fs.readdirSync(fs.readlinkSync(link))).toEqual([]);
  });
});
