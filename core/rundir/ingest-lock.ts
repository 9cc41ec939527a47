// tracking/lock and its takeover claims: the files behind one-ingester-per-run-dir (the rules are
// tracking-plugin/ingest/lock.ts). A stale lock is replaced only by whoever first creates the claim
// file named after that very lock's content (create-exclusive), so two ingesters racing for one
// stale lock cannot both proceed; a claim whose maker died is claimed in turn (a longer chain).
// A holder is known by this boot's id and its process's start time (core/process.ts), as local jobs are;
// one on another host by its heartbeat, the lock's mtime (touchFile), once its job has ended.
import { createHash } from 'crypto';
import * as path from 'path';
import { trackingPaths } from './layout';
import { listDir, readBounded, removeFile } from './safe-fs';

const CLAIM = /^lock\.takeover-[0-9a-f]{24}$/;

/** The claim on a stale lock whose content (and dead claimers) is `chain`: whoever creates it first
 *  may replace that lock. */
export const lockClaimFile = (runDir: string, chain: string): string =>
  path.join(
    trackingPaths(runDir).dir,
    `lock.takeover-${createHash('sha256').update(chain).digest('hex').slice(0, 24)}`,
  );

/** Who holds tracking/lock or made a claim ('' when it is gone meanwhile). */
export const readHolder = (runDir: string, file: string): string =>
  (readBounded(runDir, file, 4096) ?? Buffer.alloc(0)).toString('utf8').trim();

/** Remove every takeover claim (done by the lock's holder: they name contents it replaced). */
export function removeLockTakeovers(runDir: string): void {
  const dir = trackingPaths(runDir).dir;
  for (const name of listDir(runDir, dir)) if (CLAIM.test(name)) removeFile(runDir, path.join(dir, name));
}
