// A run's artifacts written into a directory store (MLflow's file: artifact root on a file system this
// machine shares with the server), laid out as MLflow's own client writes them: <artifact dir>/<path>.
// The run's artifact directory gets the run directory's trust rules (guards.ts): no symlink at it or
// below it is followed, files are created new and renamed into place. What is created takes the
// store's group and mode, never more open and never world-writable, so that the server can serve it.
import * as fs from 'fs';
import * as path from 'path';
import { promisify } from 'util';
import { TrackLaunchError } from '../errors';
import { checkDirs, createNew, refusal } from './guards';
import { syncDirAsync } from './safe-fs';

const fsyncAsync = promisify(fs.fsync);
const renameAsync = promisify(fs.rename);
const C = fs.constants;

/** Levels a store may lack below its root: <experiment>/<run id>/artifacts. Deeper, the path is not
 *  the server's store on this machine (and nothing is created there). */
const NEW_LEVELS = 3;

interface Perms {
  dirMode: number;
  fileMode: number;
  gid: number;
}

/** A store this machine cannot write (the path is not there, or not writable): `details.unreachable`. */
function unreachable(artifactDir: string, why: string, cause?: unknown): TrackLaunchError {
  return new TrackLaunchError('TRACKING', `${artifactDir} is not reachable from this machine: ${why}`, {
    hint: 'ingest on a machine that shares this file system with the MLflow server (same path, writable), or start the server with --serve-artifacts',
    details: { unreachable: true, artifact_dir: artifactDir },
    ...(cause ? { cause } : {}),
  });
}

/** stat (a link followed: above the run's artifact directory is the server's); undefined when it or
 *  a directory on the way is not there. */
function statIfAny(at: string): fs.Stats | undefined {
  try {
    return fs.statSync(at);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw err;
  }
}

/** The mode and group new entries take: those of the nearest existing directory at or above the
 *  run's artifact directory, without write for others. */
function storePerms(artifactDir: string): Perms {
  let at = artifactDir;
  for (let level = 0; ; level++) {
    const st = statIfAny(at);
    if (st) {
      if (!st.isDirectory()) throw unreachable(artifactDir, `${at} is not a directory`);
      return { dirMode: st.mode & 0o2775, fileMode: st.mode & 0o664, gid: st.gid };
    }
    if (level === NEW_LEVELS || path.dirname(at) === at)
      throw unreachable(artifactDir, `${at} does not exist here`);
    at = path.dirname(at);
  }
}

/** The store's group, then `mode`, on a new file or directory; when the group cannot be given (the
 *  user is not in it), the group gets no more than others get. */
function settle(fd: number, mode: number, gid: number): void {
  try {
    fs.fchownSync(fd, -1, gid);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EPERM') throw err;
    mode = (mode & ~0o070) | ((mode & 0o007) << 3);
  }
  fs.fchmodSync(fd, mode);
}

/** Create `dir` if missing (private until settled); a symlink there is refused when `checked` (at
 *  or below the run's artifact directory `top`). */
function makeDir(top: string, dir: string, p: Perms, checked: boolean): void {
  let created = true;
  try {
    fs.mkdirSync(dir, 0o700);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS')
      throw unreachable(top, `cannot create ${dir} (${code})`, err);
    if (code !== 'EEXIST') throw err;
    created = false;
  }
  if (checked) {
    const st = fs.lstatSync(dir);
    if (st.isSymbolicLink())
      throw refusal(
        dir,
        'is a symbolic link; track-launch does not follow links in a run artifact directory',
      );
    if (!st.isDirectory()) throw refusal(dir, 'is not a directory');
  }
  if (!created) return;
  const fd = fs.openSync(dir, C.O_RDONLY | C.O_DIRECTORY | C.O_NOFOLLOW);
  try {
    settle(fd, p.dirMode, p.gid);
  } finally {
    fs.closeSync(fd);
  }
}

/** Write `content` as `artifactPath` (a/b/c, relative) of the run whose artifacts are in the directory
 *  `artifactDir`: a temporary file beside it, fsynced and renamed over it (a link there is replaced,
 *  never written through). A RUN_DIR error for a link on the way; `details.unreachable` when this
 *  machine does not reach the store. */
export async function storeArtifact(
  artifactDir: string,
  artifactPath: string,
  content: Buffer | NodeJS.ReadableStream,
): Promise<void> {
  const parts = artifactPath.split('/');
  if (parts.some((s) => s === '' || s === '.' || s === '..'))
    throw new TrackLaunchError('TRACKING', `artifact path ${artifactPath} is not a plain relative path`, {
      hint: 'this is a bug in track-launch: please report it',
    });
  const p = storePerms(artifactDir);
  const missing: string[] = [];
  for (let at = artifactDir; !statIfAny(at); at = path.dirname(at)) missing.unshift(at);
  for (const dir of missing) makeDir(artifactDir, dir, p, dir === artifactDir);
  makeDir(artifactDir, artifactDir, p, true); // there already: checked
  let dir = artifactDir;
  for (const part of parts.slice(0, -1)) makeDir(artifactDir, (dir = path.join(dir, part)), p, true);
  checkDirs(artifactDir, dir);

  const file = path.join(dir, parts[parts.length - 1]);
  const tmp = `${file}.${process.pid}.tmp`;
  let fd = createNew(tmp, 0o600);
  if (fd === undefined) {
    fs.unlinkSync(tmp); // left by a crashed process with our pid (unlink never follows a link)
    fd = createNew(tmp, 0o600);
    if (fd === undefined) throw refusal(tmp, 'keeps reappearing');
  }
  try {
    try {
      settle(fd, p.fileMode, p.gid);
      if (Buffer.isBuffer(content)) fs.writeFileSync(fd, content);
      else for await (const chunk of content) fs.writeFileSync(fd, chunk as Buffer);
      await fsyncAsync(fd);
    } finally {
      fs.closeSync(fd);
    }
    await renameAsync(tmp, file);
  } catch (err) {
    fs.rmSync(tmp, { force: true });
    throw err;
  }
  await syncDirAsync(dir);
}
