// Files to a run's artifacts, each once (remembered in the send state): the run directory's own
// files (job.sbatch, job.json, logs) and the job's outputs (--artifact). A server without the
// artifact proxy is told about once; an output that is not uploaded counts as not delivered.
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

export class Uploader {
  private unsupported?: string;

  constructor(
    private readonly client: MlflowClient,
    private readonly runDir: string,
    private readonly state: ServerState & DeliveryState,
    private readonly save: () => Promise<void>,
    private readonly warnings: string[],
  ) {}

  /** PUT a run-dir file once; nothing when it is not written (yet). */
  async runDirFile(runId: string, artifactPath: string, file: string, contentType: string): Promise<void> {
    if (this.done(runId, artifactPath)) return;
    // Streamed: a rank log may be larger than memory (or than a Buffer can hold).
    const first = await openLogStream(this.runDir, file);
    if (first === undefined) return;
    first.stream.destroy();
    const open = async () => {
      const s = await openLogStream(this.runDir, file);
      if (!s) throw new TrackLaunchError('RUN_DIR', `${file} disappeared while it was being uploaded`);
      return s;
    };
    await this.put(runId, artifactPath, open, contentType, path.basename(file));
  }

  /** The job's --artifact files, once the job has ended: found, checked, uploaded under outputs/. */
  async outputs(runId: string, job: JobRecord | undefined): Promise<void> {
    const found = findOutputs(job, this.runDir);
    for (const n of found.notes) this.warnings.push(n);
    for (const r of found.refused) this.skip(runId, r.what, r.why);
    for (const f of found.files) {
      if (this.done(runId, f.artifactPath)) continue;
      const shown = `${f.root}/${f.rel}`;
      let content: Buffer;
      try {
        content = readOutsideFile(f.root, f.rel);
      } catch (err) {
        if (!(err instanceof TrackLaunchError)) throw err;
        const file = path.join(f.root, f.rel);
        this.skip(
          runId,
          shown,
          err.message.startsWith(file) ? err.message.slice(file.length + 1) : err.message,
        );
        continue;
      }
      const ct = CONTENT_TYPES[path.extname(f.rel).toLowerCase()] ?? 'application/octet-stream';
      if (!(await this.put(runId, f.artifactPath, content, ct, shown)))
        this.skip(runId, shown, `was not uploaded: ${this.unsupported}`);
    }
    await this.save();
  }

  private done(runId: string, artifactPath: string): boolean {
    return this.state.artifacts[`${runId}/${artifactPath}`] === true;
  }

  /** A file not attached: warned about (naming it) and counted once per run, grouped by why. */
  private skip(runId: string, what: string, why: string): void {
    if (!firstRefusal(this.state, runId, 'files', what)) return;
    this.warnings.push(`${what} ${why}: not attached`);
    recordUndelivered(this.state, 'files', 1, `--artifact: ${why}`);
  }

  /** false when the server has no artifact proxy (said once, with what to do). */
  private async put(
    runId: string,
    artifactPath: string,
    content: Buffer | StreamSource,
    contentType: string,
    shown: string,
  ): Promise<boolean> {
    if (this.unsupported !== undefined) return false;
    try {
      await this.client.uploadArtifact(runId, artifactPath, content, contentType);
    } catch (err) {
      if (!isUnsupported(err)) throw err;
      if (this.unsupported !== undefined) return false; // said once, by an upload in flight beside this one
      const hint = err instanceof TrackLaunchError && err.hint ? `; ${err.hint}` : '';
      const why = (err as Error).message.replace(/; artifacts were not uploaded$/, '');
      this.unsupported = `${why}${hint}`;
      this.warnings.push(`${why} (${shown} and later files were not uploaded${hint})`);
      return false;
    }
    this.state.artifacts[`${runId}/${artifactPath}`] = true;
    await this.save();
    return true;
  }
}
