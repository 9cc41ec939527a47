// Synthetic runs for the benchmark and the memory test: N ranks x M points, built straight into columns
// (no per-point objects), spread over hosts of 8 ranks, with one slow host so the straggler page has one.
import type { JobRecord, RankFacts } from '../core/rundir/layout';
import type { MetricSeries, ReportData } from '../reports/model';
import { reportFigures } from '../reports/specs/figures';
import { writeReport, type ReportFormat, type ReportResult } from '../reports/report';

export interface SyntheticOptions {
  ranks?: number;
  points?: number;
  ranksPerHost?: number;
  /** Seed of the deterministic noise. */
  seed?: number;
}

/**
 * A small deterministic PRNG (mulberry32), so benchmark runs draw the same data: fills `out` with the next
 * out.length draws in [0, 1) and returns the generator's next state (a tight loop, not a call per draw).
 */
function draws(state: number, out: Float64Array): number {
  let a = state >>> 0;
  for (let i = 0; i < out.length; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  return a;
}

export function syntheticReportData(opts: SyntheticOptions = {}): ReportData {
  const { ranks = 64, points = 100_000, ranksPerHost = 8, seed = 1 } = opts;
  let state = seed;
  const random = new Float64Array(2 * points); // per rank: a value's draw, then its line time's, per point
  const t0 = Date.UTC(2026, 0, 1);
  const hosts = Math.ceil(ranks / ranksPerHost);
  const host = (r: number) => `node${String(Math.floor(r / ranksPerHost) + 1).padStart(3, '0')}`;
  const metrics: MetricSeries[] = [];
  const facts: RankFacts[] = [];
  // The noise-free curve and the noise's envelope are the same for every rank: computed once, not per rank.
  const curve = new Float64Array(points);
  const envelope = new Float64Array(points);
  const stepColumn = new Float64Array(points);
  for (let i = 0; i < points; i++) {
    curve[i] = 0.7 * Math.exp(-i / (points / 6)) + 0.002;
    envelope[i] = Math.exp(-i / points);
    stepColumn[i] = i;
  }
  for (let r = 0; r < ranks; r++) {
    const slow = Math.floor(r / ranksPerHost) === hosts - 1 ? 1.3 : 1; // the last host is 30 % slower
    const s: MetricSeries = {
      rank: r,
      host: host(r),
      key: 'loss',
      steps: stepColumn.slice(),
      values: new Float64Array(points),
      times: new Float64Array(points),
    };
    state = draws(state, random);
    const { values, times } = s;
    let t = t0;
    for (let i = 0; i < points; i++) {
      values[i] = curve[i] + 0.01 * random[2 * i] * envelope[i];
      t += 50 * slow * (0.9 + 0.2 * random[2 * i + 1]);
      times[i] = t;
    }
    metrics.push(s);
    facts.push({
      version: 1,
      rank: r,
      local_rank: r % ranksPerHost,
      node_rank: Math.floor(r / ranksPerHost),
      world_size: ranks,
      local_world_size: ranksPerHost,
      host: host(r),
      ip: `10.0.0.${Math.floor(r / ranksPerHost) + 1}`,
      iface: 'ib0',
      master_addr: '10.0.0.1',
      master_port: 29500,
      job_id: 'synthetic',
      restart: 0,
      launcher: 'srun',
      started_at: t0 / 1000,
      ended_at: t / 1000,
      exit_code: 0,
    });
  }
  const end = Math.max(...facts.map((f) => f.ended_at ?? 0));
  const job: JobRecord = {
    version: 1,
    name: 'synthetic',
    executor: 'slurm',
    job_id: 'synthetic',
    submitted_at: t0 / 1000,
    plan_digest: 'synthetic',
    spec: {
      nodes: hosts,
      tasks_per_node: ranksPerHost,
      gpus_per_node: ranksPerHost,
      world_size: ranks,
      launcher: 'srun',
      backend: 'nccl',
      modules: [],
      command: ['python', 'train.py'],
      env_keys: [],
      params: {},
    },
    state: { name: 'COMPLETED', exit_code: 0, started_at: t0 / 1000, ended_at: end },
  };
  return { runDir: `synthetic-${ranks}x${points}`, job, facts, metrics, skipped: 0 };
}

/** Render the synthetic run's report into `out` (for the benchmark: 64 ranks x 100k points by default). */
export function renderSynthetic(
  out: string,
  opts: SyntheticOptions & { formats?: readonly ReportFormat[] } = {},
): ReportResult {
  const { figures, notes } = reportFigures(syntheticReportData(opts));
  return {
    outDir: out,
    files: writeReport(figures, out, opts.formats ?? ['pdf', 'png'], 'report.pdf'),
    notes,
  };
}
