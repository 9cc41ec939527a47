// A synthetic running job for the tracker benchmark: one writer (this process) appends, every second,
// one polynomial metric line per rank to logs/rank-R.out and its time to logs/rank-R.out.ts, as the
// bootstrap's capture does, beside each rank's facts (logs/rank-R.json) and an empty logs/rank-R.err,
// under a job.json that says RUNNING (the local executor's record: no
// scheduler to ask, so a follower takes job.json as it is). `end()` records COMPLETED, which ends
// the follower.
import * as fs from 'fs';
import * as path from 'path';
import { benchSpec } from './ingest-fixture';

export class SyntheticJob {
  /** Per rank, per step: the line's time (ms since the epoch), as its .out.ts line says. */
  readonly written: Map<number, number>[];
  private fds: { out: number; ts: number }[] = [];
  private timer?: NodeJS.Timeout;
  private step = 0;

  constructor(
    readonly dir: string,
    readonly ranks: number,
    private readonly everyMs = 1000,
  ) {
    this.written = Array.from({ length: ranks }, () => new Map());
    fs.mkdirSync(path.join(dir, 'logs'), { recursive: true, mode: 0o700 });
    this.writeRecord({ name: 'RUNNING', started_at: Math.floor(Date.now() / 1000) });
    for (let r = 0; r < ranks; r++) {
      const f = (ext: string) =>
        fs.openSync(
          path.join(dir, 'logs', `rank-${r}.${ext}`),
          fs.constants.O_WRONLY | fs.constants.O_CREAT | fs.constants.O_APPEND,
          0o600,
        );
      this.fds.push({ out: f('out'), ts: f('out.ts') });
      fs.closeSync(f('err'));
      this.writeFacts(r);
    }
  }

  /** Starts writing: a line per rank now, then every `everyMs`. */
  start(): void {
    this.tick();
    this.timer = setInterval(() => this.tick(), this.everyMs);
  }

  /** Steps written so far (each rank has lines 0 .. steps-1). */
  get steps(): number {
    return this.step;
  }

  private tick(): void {
    const s = this.step++;
    for (let r = 0; r < this.ranks; r++) {
      const ms = Date.now();
      const loss = 0.7 * Math.exp(-s / 2000) + (0.001 * ((s * 7919 + r * 104729) % 1000)) / 1000;
      fs.writeSync(
        this.fds[r].out,
        `epoch ${s}, loss = ${loss.toPrecision(6)}, rank ${r}/${this.ranks} (node${Math.floor(r / 8) + 1}).\n`,
      );
      fs.writeSync(
        this.fds[r].ts,
        `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1000).padStart(6, '0')}\n`,
      );
      this.written[r].set(s, ms);
    }
  }

  /** Stops writing and records the job COMPLETED (the follower then drains and ends). */
  end(): void {
    if (!this.fds.length) return;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    for (const f of this.fds) {
      fs.closeSync(f.out);
      fs.closeSync(f.ts);
    }
    this.fds = [];
    const now = Math.floor(Date.now() / 1000);
    this.writeRecord({ name: 'COMPLETED', started_at: now, ended_at: now, exit_code: 0 });
  }

  /** logs/rank-R.json as the bootstrap writes it when the rank starts (8 ranks a node). */
  private writeFacts(r: number): void {
    const node = Math.floor(r / 8);
    const facts = {
      version: 1,
      rank: r,
      local_rank: r % 8,
      node_rank: node,
      world_size: this.ranks,
      local_world_size: Math.min(8, this.ranks),
      host: `node${node + 1}`,
      ip: `10.0.${node >> 8}.${node & 255}`,
      iface: 'eth0',
      master_addr: '10.0.0.0',
      master_port: 29500,
      rendezvous_file: path.join(this.dir, 'rendezvous', 'master.json'),
      job_id: `local-bench-live-${this.ranks}`,
      restart: 0,
      launcher: 'srun',
      started_at: Date.now() / 1000,
    };
    const file = path.join(this.dir, 'logs', `rank-${r}.json`);
    fs.writeFileSync(`${file}.tmp`, JSON.stringify(facts) + '\n', { mode: 0o600 });
    fs.renameSync(`${file}.tmp`, file);
  }

  /** job.json, replaced atomically (the follower reads it while we write). */
  private writeRecord(state: Record<string, unknown>): void {
    const job = {
      version: 1,
      name: `bench-live-${this.ranks}`,
      executor: 'local',
      job_id: `local-bench-live-${this.ranks}`,
      submitted_at: Math.floor(Date.now() / 1000),
      plan_digest: 'bench',
      spec: benchSpec(this.ranks),
      state,
    };
    const tmp = path.join(this.dir, `.job.json.${process.pid}`);
    fs.writeFileSync(tmp, JSON.stringify(job), { mode: 0o600 });
    fs.renameSync(tmp, path.join(this.dir, 'job.json'));
  }
}
