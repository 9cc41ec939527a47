// The follower `submit` starts on the login node: `track-launch ingest --follow` in a session of its
// own, so that closing the terminal (SIGHUP) or the submitting shell does not reach it. It holds the
// run directory's tracking lock (its host, pid, boot and start time) and ends with the job's runs.
import { spawn } from 'child_process';
import { closeSync } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { openAppend, packageRoot, trackingPaths, TrackLaunchError } from '../../core';
import { shellQuote } from '../../launcher';

export interface Follower {
  host: string;
  pid: number;
  /** Its output: progress, the summary, what it could not deliver. */
  log: string;
}

/** The argv of a tracker that runs this very installation of track-launch, a cycle every `pollS`. */
export const trackerArgv = (runDir: string, placement: string, pollS: number): string[] => [
  path.join(packageRoot(), 'bin', 'track-launch.js'),
  'ingest',
  '--follow',
  '--poll',
  String(pollS),
  '--placement',
  placement,
  path.resolve(runDir),
];

export function startFollower(runDir: string, pollS: number): Follower {
  const log = trackingPaths(runDir).followerLog;
  const fd = openAppend(runDir, log);
  try {
    const child = spawn(process.execPath, trackerArgv(runDir, 'login', pollS), {
      detached: true,
      stdio: ['ignore', fd, fd],
      env: process.env,
    });
    child.once('error', () => undefined); // a spawn that failed has no pid: said just below
    child.unref();
    if (child.pid === undefined)
      throw new TrackLaunchError('TRACKING', `the follower of ${runDir} did not start`, {
        hint: `track the job by hand: track-launch ingest --follow ${shellQuote(runDir)}`,
      });
    return { host: os.hostname(), pid: child.pid, log };
  } finally {
    closeSync(fd);
  }
}

/** Without --follow: the follower of --track login, started now; a failure to start it is a warning
 *  (the job runs regardless) that says how to track it. */
export function startTracker(runDir: string, track: string | undefined, pollS: number): Follower | undefined {
  if (track !== 'login') return undefined;
  try {
    return startFollower(runDir, pollS);
  } catch (e) {
    process.stderr.write(
      `track-launch: warning: ${(e as Error).message}: track it with \`track-launch ingest --follow ${shellQuote(runDir)}\`\n`,
    );
    return undefined;
  }
}

/** Where the job is tracked, said at submit. */
export function trackingLine(runDir: string, track: string | undefined, f: Follower | undefined): string {
  if (f) return `follower pid ${f.pid} on ${f.host}, detached (log: ${f.log})`;
  if (track === 'job') return 'inside the allocation, beside the ranks on the batch host';
  if (track === 'login') return `none running: track-launch ingest --follow ${shellQuote(runDir)}`;
  return `by hand (track-launch ingest ${shellQuote(runDir)}) or from cron (track-launch ingest --all)`;
}
