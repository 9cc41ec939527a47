// Who ran the job and which commit of the training code (effects: os, git).
import { execFile } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import type { JobRecord } from '../../core';
import type { Who } from './tags';

function userName(): string {
  try {
    return os.userInfo().username;
  } catch {
    return process.env.USER ?? 'unknown'; // no passwd entry (containers): the env is all there is
  }
}

function revParse(dir: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile('git', ['-C', dir, 'rev-parse', 'HEAD'], { timeout: 5000 }, (err, out) => {
      resolve(err ? undefined : out.trim() || undefined); // not in git (or no git): no commit tag
    });
  });
}

/** The git commit of the training code: the first argument of the command that is a file in a
 *  git work tree (so `/usr/bin/python3 train.py` finds train.py's repository, not /usr/bin). */
async function gitCommit(job: JobRecord | undefined, runDir: string): Promise<string | undefined> {
  const args = job?.spec?.command ?? [];
  const bases = [process.cwd(), path.dirname(path.resolve(runDir))];
  for (const a of args) {
    for (const base of bases) {
      const file = path.resolve(base, a);
      if (!fs.existsSync(file) || !fs.statSync(file).isFile()) continue;
      const commit = await revParse(path.dirname(file));
      if (commit) return commit;
    }
  }
  return undefined;
}

export async function who(job: JobRecord | undefined, runDir: string): Promise<Who> {
  const commit = await gitCommit(job, runDir);
  return commit ? { user: userName(), gitCommit: commit } : { user: userName() };
}
