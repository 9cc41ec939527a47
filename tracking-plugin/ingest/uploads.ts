// Files to a run's artifacts, each once (remembered in the send state): the run directory's own
// files (job.sbatch, job.json, logs) and the job's outputs (--artifact). Every file not stored
// counts as not delivered: a store the server's runs use that track-launch cannot write to is said
// once, naming the first files not stored; at the job's end, a file that fails for another reason is
// said and counted, and the rest goes on (the runs are ended regardless).
import * as path from 'path';
import { openLogStream, readOutsideFile, TrackLaunchError, type JobRecord } from '../../core';
import { isUnsupported, type MlflowClient } from '../mlflow/client';
import type { StreamSource } from '../mlflow/http';
import { firstRefusal, recordUndelivered, type DeliveryState } from './delivery';
import { findOutputs } from './outputs';
import type { ServerState } from './state';

const CONTENT_TYPES: Record<string, string> = {
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.json': 'application/json',
  '.txt': 'text/plain',
  '.csv': 'text/csv',
};

const STORE_REFUSED = "not stored: the runs' artifact store is not writable from here (the warning says why)";

/** Files named in the warning about a store that takes none; more are counted. */
const NAMED = 3;

const reasonOf = (err: unknown): string => (err instanceof Error ? err.message : String(err));
const messageOf = (err: unknown): string => {
  const hint = err instanceof TrackLaunchError && err.hint ? `; ${err.hint}` : '';
  return `${reasonOf(err)}${hint}`;
};

export class Uploader {
  /** Why the runs take no files here (said once: the warning at `at`), and the files not stored. */
  private refused?: { why: string; hint: string; at: number; files: string[] };

  constructor(
    private readonly client: MlflowClient,
    private readonly runDir: string,
    private readonly state: ServerState & DeliveryState,
    private readonly save: () => Promise<void>,
    private readonly warnings: string[],
  ) {}

  /** A run-dir file once; nothing when it is not written (yet). `final`: the job has ended, and a
   *  failure is counted as not delivered instead of stopping the ingest. */
  async runDirFile(
    runId: string,
    artifactPath: string,
    file: string,
    contentType: string,
    final = false,
  ): Promise<void> {
    if (this.done(runId, artifactPath)) return;
    try {
      // Streamed: a rank log may be larger than memory (or than a Buffer can hold).
      const first = await openLogStream(this.runDir, file);
      if (first === undefined) return;
      first.stream.destroy();
      const open = async () => {
        const s = await openLogStream(this.runDir, file);
        if (!s) throw new TrackLaunchError('RUN_DIR', `${file} disappeared while it was being uploaded`);
        return s;
      };
      await this.put(runId, artifactPath, open, contentType, artifactPath);
    } catch (err) {
      if (!final) throw err;
      this.skip(runId, artifactPath, `was not stored: ${messageOf(err)}`, `not stored: ${reasonOf(err)}`);
    }
  }

  /** The job's --artifact files, once the job has ended: found, checked, stored under outputs/. */
  async outputs(runId: string, job: JobRecord | undefined): Promise<void> {
    let found;
    try {
      found = findOutputs(job, this.runDir);
    } catch (err) {
      const why = `were not looked up: ${messageOf(err)}`;
      this.skip(runId, '--artifact files', why, `--artifact files not looked up: ${reasonOf(err)}`);
      return this.save();
    }
    for (const n of found.notes) this.warnings.push(n);
    for (const r of found.refused) this.skip(runId, r.what, r.why, `--artifact: ${r.why}`);
    for (const f of found.files) {
      if (this.done(runId, f.artifactPath)) continue;
      const shown = `${f.root}/${f.rel}`;
      let content: Buffer;
      try {
        content = readOutsideFile(f.root, f.rel);
      } catch (err) {
        if (!(err instanceof TrackLaunchError)) throw err;
        const file = path.join(f.root, f.rel);
        const why = err.message.startsWith(file) ? err.message.slice(file.length + 1) : err.message;
        this.skip(runId, shown, why, `--artifact: ${why}`);
        continue;
      }
      const ct = CONTENT_TYPES[path.extname(f.rel).toLowerCase()] ?? 'application/octet-stream';
      try {
        await this.put(runId, f.artifactPath, content, ct, shown);
      } catch (err) {
        this.skip(runId, shown, `was not stored: ${messageOf(err)}`, `not stored: ${reasonOf(err)}`);
      }
    }
    await this.save();
  }

  private done(runId: string, artifactPath: string): boolean {
    return this.state.artifacts[`${runId}/${artifactPath}`] === true;
  }

  /** A file not attached: warned about (naming it) and counted once per run under `reason`. */
  private skip(runId: string, what: string, why: string, reason: string): void {
    if (!firstRefusal(this.state, runId, 'files', what)) return;
    this.warnings.push(`${what} ${why}: not attached`);
    recordUndelivered(this.state, 'files', 1, reason);
  }

  /** A file the store takes none of: named in the one warning (the first few), counted once. */
  private notStored(runId: string, shown: string): void {
    const r = this.refused!;
    r.files.push(shown);
    const named = r.files.slice(0, NAMED).join(', ');
    const more = r.files.length > NAMED ? ` and ${r.files.length - NAMED} more` : '';
    this.warnings[r.at] = `${r.why} (not stored: ${named}${more}${r.hint})`;
    if (firstRefusal(this.state, runId, 'files', shown))
      recordUndelivered(this.state, 'files', 1, STORE_REFUSED);
  }

  /** Store a file once; a store that takes none is said once and every file counted. */
  private async put(
    runId: string,
    artifactPath: string,
    content: Buffer | StreamSource,
    contentType: string,
    shown: string,
  ): Promise<void> {
    if (this.refused) return this.notStored(runId, shown);
    try {
      await this.client.uploadArtifact(runId, artifactPath, content, contentType);
    } catch (err) {
      if (!isUnsupported(err)) throw err;
      if (!this.refused) {
        const e = err as TrackLaunchError;
        this.refused = {
          why: e.message.replace(/; artifacts were not uploaded$/, ''),
          hint: e.hint ? `; ${e.hint}` : '',
          at: this.warnings.push('') - 1,
          files: [],
        };
      }
      return this.notStored(runId, shown);
    }
    this.state.artifacts[`${runId}/${artifactPath}`] = true;
    await this.save();
  }
}
