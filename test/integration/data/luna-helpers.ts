// Helpers of the LUNA tests (luna, luna-ct): what stage.sh recorded it copied to a node, where a
// node's staging directory is, and which files a rank said it opened (train.py's audit hook).
import * as fs from 'fs';
import * as path from 'path';

/** logs/staged.<job>.r0.<host>.txt (what stage.sh copied to that node) as path -> SHA-256. */
export function stagedRecord(runDir: string, jobId: string, host: string): Record<string, string> {
  const text = fs.readFileSync(path.join(runDir, 'logs', `staged.${jobId}.r0.${host}.txt`), 'utf8');
  const out: Record<string, string> = {};
  for (const l of text.split('\n').filter((x) => x !== '')) {
    const m = /^([0-9a-f]{64}) {2}\.\/(.+)$/.exec(l);
    if (!m) throw new Error(`not a sha256sum line: ${JSON.stringify(l)}`);
    out[m[2]] = m[1];
  }
  return out;
}

/** A job's node-local staging directory on `host`, under the stage root. */
export const stageDirOf = (stageRoot: string, jobId: string, host: string) =>
  path.join(stageRoot, `track-launch-${jobId}.${host}`);

/** The files rank `rank` listed as opened (`rank R/3 opened [...]`) in its output `out`. */
export function openedFiles(out: string, rank: number): string[] {
  const o = new RegExp(`^rank ${rank}/3 opened (\\[.*\\])$`, 'm').exec(out);
  if (!o) throw new Error(`rank ${rank} did not list the files it opened:\n${out}`);
  return JSON.parse(o[1]) as string[];
}
