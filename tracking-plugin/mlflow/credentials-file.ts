// MLflow's own credentials file, ~/.mlflow/credentials, read as MLflow's client reads it: the
// [mlflow] section's mlflow_tracking_username and mlflow_tracking_password, below the environment.
// It holds a password: a file that others may read, or that is not the user's, is refused.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../../core';

export interface FileCredentials {
  username?: string;
  password?: string;
}

export const credentialsFile = (env: NodeJS.ProcessEnv): string | undefined =>
  env.HOME ? path.join(env.HOME, '.mlflow', 'credentials') : undefined;

/** The [mlflow] section's keys of an INI text (configparser's `key = value` and `key: value`). */
export function parseCredentials(text: string): FileCredentials {
  const out: FileCredentials = {};
  let section = '';
  for (const raw of text.split(/\r?\n/)) {
    const line = raw.trim();
    if (line === '' || line.startsWith('#') || line.startsWith(';')) continue;
    const head = /^\[(.+)\]$/.exec(line);
    if (head) section = head[1].trim();
    const kv = /^([^=:]+?)\s*[=:]\s*(.*)$/.exec(line);
    if (head || !kv || section !== 'mlflow') continue;
    const key = kv[1].toLowerCase();
    if (key === 'mlflow_tracking_username') out.username = kv[2];
    if (key === 'mlflow_tracking_password') out.password = kv[2];
  }
  return out;
}

export function readCredentialsFile(env: NodeJS.ProcessEnv): FileCredentials {
  const file = credentialsFile(env);
  if (!file) return {};
  let fd: number;
  try {
    fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw new TrackLaunchError('TRACKING', `cannot read ${file}: ${(err as Error).message}`, {
      hint: 'make it a regular file of yours (chmod 600), or remove it and set MLFLOW_TRACKING_USERNAME/_PASSWORD',
    });
  }
  try {
    const st = fs.fstatSync(fd);
    const mine = process.getuid === undefined || st.uid === process.getuid();
    if (!st.isFile() || !mine || (st.mode & 0o077) !== 0 || st.size > 64 * 1024)
      throw new TrackLaunchError(
        'TRACKING',
        `${file} is not a private file of yours: its password is not used`,
        {
          hint: `chmod 600 ${file} (it must be yours, a regular file, readable by you alone)`,
        },
      );
    return parseCredentials(fs.readFileSync(fd, 'utf8'));
  } finally {
    fs.closeSync(fd);
  }
}
