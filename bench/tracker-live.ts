// One live measurement of the tracker beside a running job: a synthetic job of R ranks writing a line
// per rank every second (tracker-job.ts), `track-launch ingest --follow` beside it with the default poll
// (tracker-proc.ts). After a warm-up, over a window: the tracker's CPU time and memory, and with `probe`,
// the live lag of probe ranks (from a line's time on the node to its point being served by MLflow's
// runs/get, polled every PROBE_MS). Then the job ends, the tracker must end by itself with exit 0, and
// every rank run's history must hold each written step exactly once.
import * as http from 'http';
import * as path from 'path';
import { log, nowMs, percentile, round } from './common';
import { SyntheticJob } from './tracker-job';
import { latestStep, lossSteps, rankRuns } from './tracker-mlflow';
import { awaitEnd, cpuSeconds, memoryMiB, startFollower } from './tracker-proc';

/** How often the lag probe asks MLflow for each probe rank's latest step: the lag's resolution. */
export const PROBE_MS = 250;
/** Ranks probed for lag: all of a small job, else this many spread over the ranks (first and last too). */
const PROBES = 8;

export interface LiveSettings {
  ranks: number;
  warmS: number;
  windowS: number;
  probe: boolean;
}

export interface LiveResult {
  ranks: number;
  window_s: number;
  warm_s: number;
  cpu_s: number;
  cpu_pct_of_one_core: number;
  rss_max_mib: number;
  /** VmHWM: the peak since the tracker started (its catch-up and start included). */
  peak_mib: number;
  steps_written: number;
  /** Over every rank run at the end: written steps missing from MLflow, and steps there more than once. */
  missing: number;
  duplicates: number;
  exit_code: number | null;
  /** With probe: lag per probed point (ms), probe ranks, points never seen. */
  lags_ms?: number[];
  probe_ranks?: number[];
  unseen?: number;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export function probeRanks(ranks: number): number[] {
  if (ranks <= PROBES) return Array.from({ length: ranks }, (_, i) => i);
  return Array.from({ length: PROBES }, (_, i) => Math.round((i * (ranks - 1)) / (PROBES - 1)));
}

export async function liveRun(uri: string, tmp: string, s: LiveSettings, tag: string): Promise<LiveResult> {
  const dir = path.join(tmp, `live-${s.ranks}-${Date.now()}`);
  const exp = `bench-live-${s.ranks}-${Date.now()}`;
  const job = new SyntheticJob(dir, s.ranks);
  job.start();
  const f = startFollower(dir, uri, exp);
  const agent = new http.Agent({ keepAlive: true, maxSockets: PROBES });
  try {
    await sleep(s.warmS * 1000);
    // the probe ranks' runs exist by now (the tracker's first cycles created them)
    const probes = s.probe ? probeRanks(s.ranks) : [];
    const runIds = probes.length ? await rankRuns(agent, uri, exp) : new Map<number, string>();
    const missingRuns = probes.filter((r) => !runIds.has(r));
    if (missingRuns.length)
      throw new Error(`after ${s.warmS} s, no MLflow run yet for ranks ${missingRuns.join(', ')}`);
    const seen = new Map<number, number>(probes.map((r) => [r, -1]));
    const lags: number[] = [];
    const firstStep = job.steps; // points measured: those written inside the window
    let lastStep = Infinity;
    const probeOnce = async () => {
      await Promise.all(
        probes.map(async (r) => {
          const latest = await latestStep(agent, uri, runIds.get(r) as string);
          const at = Date.now();
          for (let st = (seen.get(r) as number) + 1; st <= latest; st++) {
            const wrote = job.written[r].get(st);
            if (wrote !== undefined && st >= firstStep && st <= lastStep) lags.push(at - wrote);
          }
          if (latest > (seen.get(r) as number)) seen.set(r, latest);
        }),
      );
    };
    if (probes.length) await probeOnce(); // what is already there is not the window's
    lags.length = 0;
    const cpu0 = cpuSeconds(f.pid);
    const t0 = nowMs();
    let rssMax = 0;
    let nextMem = 0;
    while (nowMs() - t0 < s.windowS * 1000) {
      if (nowMs() >= nextMem) {
        rssMax = Math.max(rssMax, memoryMiB(f.pid).rss);
        nextMem = nowMs() + 1000;
      }
      if (probes.length) await probeOnce();
      await sleep(probes.length ? PROBE_MS : 1000);
    }
    const cpu = cpuSeconds(f.pid) - cpu0;
    const elapsed = (nowMs() - t0) / 1000;
    const { hwm } = memoryMiB(f.pid);
    lastStep = job.steps - 1;
    // the window's last points: probed until seen (at most 60 s more)
    const until = nowMs() + 60_000;
    while (probes.length && probes.some((r) => (seen.get(r) as number) < lastStep) && nowMs() < until) {
      await probeOnce();
      await sleep(PROBE_MS);
    }
    const unseen = probes.reduce(
      (a, r) => a + Math.max(0, lastStep - Math.max(seen.get(r) as number, firstStep - 1)),
      0,
    );
    job.end();
    const code = await awaitEnd(f, 180_000);
    // every rank's history: each written step once
    const all = await rankRuns(agent, uri, exp);
    let missing = 0;
    let duplicates = 0;
    for (let r = 0; r < s.ranks; r++) {
      const id = all.get(r);
      const steps = id ? await lossSteps(agent, uri, id) : [];
      const count = new Map<number, number>();
      for (const st of steps) count.set(st, (count.get(st) ?? 0) + 1);
      for (let st = 0; st < job.steps; st++) {
        const n = count.get(st) ?? 0;
        if (n === 0) missing++;
        else duplicates += n - 1;
      }
    }
    const r: LiveResult = {
      ranks: s.ranks,
      window_s: round(elapsed, 4),
      warm_s: s.warmS,
      cpu_s: round(cpu, 4),
      cpu_pct_of_one_core: round((100 * cpu) / elapsed, 3),
      rss_max_mib: round(rssMax, 4),
      peak_mib: round(hwm, 4),
      steps_written: job.steps,
      missing,
      duplicates,
      exit_code: code,
      ...(probes.length ? { lags_ms: lags, probe_ranks: probes, unseen } : {}),
    };
    log(
      `tracker ${tag} ${s.ranks} ranks: cpu ${r.cpu_pct_of_one_core}% of a core over ${r.window_s} s, rss max ${r.rss_max_mib} MiB, peak ${r.peak_mib} MiB; ${job.steps} steps, missing ${missing}, duplicates ${duplicates}, exit ${code}${lags.length ? `; ${lags.length} lags probed, p50 ${percentile(lags, 50)} ms, p95 ${percentile(lags, 95)} ms, unseen ${unseen}` : ''}`,
    );
    if (code !== 0) throw new Error(`the follower exited ${code}: ${f.stderr().slice(-1500)}`);
    return r;
  } finally {
    job.end();
    agent.destroy();
    if (f.child.exitCode === null && f.child.signalCode === null) {
      f.child.kill('SIGKILL');
      await f.exited;
    }
  }
}
