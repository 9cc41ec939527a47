// Each MLflow server's pace (pace.ts), kept in the user's state directory
// (mlflow-pace/<sha256 of the server's address>.json, core/user-state.ts), not in the run
// directory: it belongs to the server, and the next sync sent there within a day uses it. The address is
// hashed (a tracking URI may carry a password); its user part and query are left out.
import { createHash } from 'crypto';
import { readUserState, writeUserState } from '../../core';
import { parsePace, type Pace } from './pace';

const MAX_BYTES = 4096;

/** The file of a server, relative to the state directory. */
export function paceFile(uri: string): string {
  let id = uri;
  try {
    const u = new URL(uri);
    id = `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}`;
  } catch {
    // not a URL (a client that does not check): the whole text is hashed, never written out
  }
  return `mlflow-pace/${createHash('sha256').update(id).digest('hex').slice(0, 32)}.json`;
}

/** The server's record; undefined if there is none, or (said in `warn`) if it cannot be used. */
export function loadPace(uri: string, warn: (message: string) => void, env = process.env): Pace | undefined {
  const rel = paceFile(uri);
  try {
    const text = readUserState(rel, MAX_BYTES, env);
    if (text === undefined) return undefined;
    const pace = parsePace(JSON.parse(text));
    if (pace) return pace;
    warn(`${rel} in the state directory is not a pace record: the server is measured again`);
  } catch (e) {
    warn(`the server's pace record was not read (${(e as Error).message}): the server is measured again`);
  }
  return undefined;
}

/** Keeps the record; a failed write is said in `warn` (the next sync measures the server again). */
export function savePace(uri: string, pace: Pace, warn: (message: string) => void, env = process.env): void {
  try {
    writeUserState(paceFile(uri), JSON.stringify(pace) + '\n', env);
  } catch (e) {
    warn(`the server's pace record was not saved (${(e as Error).message})`);
  }
}
