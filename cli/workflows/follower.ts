// The follower `submit` starts on the login node: `track-launch ingest --follow` in a session of its
// own, so that closing the terminal (SIGHUP) or the submitting shell does not reach it. It holds the
// run directory's tracking lock (its host, pid, boot and start time) and ends with the job's runs.
import { spawn } from 'child_process';
import { closeSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openAppend, packageRoot, trackingPaths, TrackLaunchError } from '../../core';

export interface Follower {
  host: string;
  pid: number;
  /** Its output: progress, the summary, what it could not deliver. */
  log: string;
}

/** The argv of a tracker that runs this very installation of track-launch. */
export const trackerArgv = (runDir: string, placement: string): string[] => [
  path.join(packageRoot(), 'bin', 'track-launch.js'),
  'ingest',
  '--follow',
  '--placement',
  placement,
  path.resolve(runDir),
];

export function startFollower(runDir: string): Follower {
  const log = trackingPaths(runDir).followerLog;
  const fd = openAppend(runDir, log);
  try {
    const child = spawn(process.execPath, trackerArgv(runDir, 'login'), {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: process.env,
    });
    child.once('error', () => undefined); // a spawn that failed has no pid: said just below
    child.unref();
    if (child.pid === undefined)
      throw new TrackLaunchError('TRACKING', `the follower of ${runDir} did not start`, {
        hint: `track the job by hand: track-launch ingest --follow ${runDir}`,
      });
    return { host: os.hostname(), pid: child.pid, log };
  } finally {
    closeSync(fd);
  }
}
