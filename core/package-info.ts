// Where track-launch is installed (for sbatch/ and package.json) and its version.
import * as fs from 'fs';
import * as path from 'path';

let root: string | undefined;

/** The directory holding track-launch's package.json, found from this file's location. */
export function packageRoot(): string {
  if (root) return root;
  for (let dir = __dirname; ; dir = path.dirname(dir)) {
    const pj = path.join(dir, 'package.json');
    if (fs.existsSync(pj) && JSON.parse(fs.readFileSync(pj, 'utf8')).name === 'track-launch')
      return (root = dir);
    if (path.dirname(dir) === dir) throw new Error(`track-launch: package.json not found above ${__dirname}`);
  }
}

export const packageVersion = (): string =>
  (JSON.parse(fs.readFileSync(path.join(packageRoot(), 'package.json'), 'utf8')) as { version: string })
    .version;

export const sbatchDir = (): string => path.join(packageRoot(), 'sbatch');
