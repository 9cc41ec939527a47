// One ingester per run dir: tracking/lock holds the pid and host of its holder; a lock whose
// process is gone (same host) is taken over.
import * as os from 'os';
import { createLock, readLock, removeLock, trackingPaths, TrackLaunchError } from '../../core';

export function acquireLock(runDir: string): () => Promise<void> {
  const file = trackingPaths(runDir).lock;
  const me = `${process.pid} ${os.hostname()}`;
  const release = async () => removeLock(runDir);
  for (let attempt = 0; attempt < 2; attempt++) {
    if (createLock(runDir, me)) return release;
    const [pid, host] = readLock(runDir).split(' ');
    if (host === os.hostname() && pid && !alive(Number(pid))) {
      removeLock(runDir); // its process is gone: the lock is stale
      continue;
    }
    throw new TrackLaunchError(
      'TRACKING',
      `another ingest holds ${file} (pid ${pid ?? '?'} on ${host ?? '?'})`,
      {
        hint: `wait for it to finish (or, if that process is gone, remove ${file})`,
      },
    );
  }
  throw new TrackLaunchError('TRACKING', `cannot take the lock ${file}`);
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
