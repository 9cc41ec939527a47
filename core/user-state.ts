// Files kept per user beside the run directories (the job index, rundir/job-index.ts):
// $XDG_STATE_HOME/track-launch/, else ~/.local/state/track-launch/.
import * as os from 'os';
import * as path from 'path';

export function userStateDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_STATE_HOME || path.join(os.homedir(), '.local', 'state');
  return path.join(base, 'track-launch');
}
