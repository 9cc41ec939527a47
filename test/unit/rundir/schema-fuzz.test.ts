// Every JSON file read from a run directory, each field of it mutated (another JSON type, or
// removed): the reader either takes the file or refuses it with a RUN_DIR error naming the file and
// that field; never a TypeError. The samples are files as track-launch writes them, with every
// optional field present so that each gets mutated.
import * as fc from 'fast-check';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  readEvaluationJson,
  readJobRecord,
  readNodeResources,
  readRankFacts,
  runPaths,
  TrackLaunchError,
  trackingPaths,
} from '../../../core';
import { readRecords } from '../../../tracking-plugin/ingest/records';
import { loadServerState, loadSpoolState } from '../../../tracking-plugin/ingest/state';
import { readTracker } from '../../../tracking-plugin/ingest/tracker';

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const JOB: Json = {
  version: 1,
  name: 'poly',
  executor: 'slurm',
  job_id: '4242_1',
  cluster: 'tl',
  submitted_at: 1796206523.5,
  submit_dir: '/home/u',
  plan_digest: 'abc',
  spec: {
    nodes: 2,
    tasks_per_node: 2,
    gpus_per_node: 0,
    world_size: 4,
    launcher: 'srun',
    backend: 'gloo',
    partition: 'debug',
    account: 'a',
    qos: 'normal',
    time: '10:00',
    container: 'img.sqsh',
    modules: ['cuda/12'],
    command: ['python3', 'train.py'],
    env_keys: ['A'],
    experiment: 'e',
    metrics_format: 'auto',
    params: { lr: '0.1' },
    artifacts: ['out/*.pt'],
  },
  state: {
    name: 'FAILED',
    exit_code: 1,
    signal: 0,
    reason: 'NonZeroExitCode',
    nodes: 'tlnode[1-2]',
    started_at: 1796206524,
    ended_at: 1796206529,
    failed_rank: 1,
    failed_host: 'tlnode1',
    supervisor_pid: 77,
    supervisor_start: 123,
    pgid: 78,
    pgid_start: 124,
  },
  restarts: 0,
  array: { spec: '0-1', tasks: [0, 1] },
  array_task: { task_id: 1, array_job_id: '4242' },
};

const FACTS: Json = {
  version: 1,
  rank: 0,
  local_rank: 0,
  node_rank: 0,
  world_size: 2,
  local_world_size: 1,
  host: 'tlnode1',
  ip: '10.77.77.11',
  iface: 'eth0',
  master_addr: '10.77.77.11',
  master_port: 29500,
  rendezvous_file: '/r/rendezvous/master',
  master_candidates: ['10.77.77.11'],
  job_id: '4242',
  cluster: 'tl',
  partition: 'debug',
  restart: 0,
  launcher: 'srun',
  started_at: 1796206524.874858,
  ended_at: 1796206528.88819,
  exit_code: 0,
};

const EVALUATION: Json = {
  version: 1,
  title: 't',
  x: [0, 1],
  f: [0, 1],
  g: [0, 1],
  train_x: [0],
  train_y: [0],
  train_range: [0, 1],
  epochs: 3,
};

const SAMPLE: Json = {
  version: 1,
  t: 1796206524.5,
  dt: 10,
  host: 'tlnode1',
  ncpu: 4,
  cpu_util: 12.5,
  mem_used_mb: 100,
  mem_total_mb: 1000,
  alloc_cpus: 2,
  alloc_mem_mb: 500,
  job: { nproc: 3, cpu_s: 1.5, cpu_util: 15, rss_mb: 50 },
  gpus: [{ index: 0, util: 50, mem_used_mb: 10, mem_total_mb: 100 }],
};

const SPOOL_STATE: Json = {
  version: 1,
  job_key: 'k',
  format: 'auto',
  ranks: {
    '0': {
      out: 10,
      lines: 2,
      ts: 20,
      tsLines: 2,
      spool: 30,
      points: 4,
      skipped: 0,
      counters: { loss: 3 },
      host: 'tlnode1',
      sys: { files: { tlnode1: { bytes: 5, lines: 1 } }, spool: 6, points: 1 },
      truncated: 0,
      lastMs: 1796206524000,
      cut: 0,
      scan: 0,
    },
  },
  parent: { spool: 0, points: 0, pending: 0 },
  nodes: { tlnode1: { files: { tlnode1: { bytes: 5, lines: 1 } }, spool: 6, points: 1 } },
};

const URI = 'http://mlflow.example:5000';
const SERVER_STATE: Json = {
  version: 1,
  uri: URI,
  experiment: 'e',
  experiment_id: '1',
  parent_run_id: 'p',
  rank_run_ids: { '0': 'r0' },
  sent: { 'rank-0': 30 },
  sent_points: { 'rank-0': 4 },
  tagged: { p: 'digest' },
  artifacts: { 'report.pdf': true },
  finished: 'FINISHED',
  updated_at: 1796206530,
};

const TRACKER: Json = {
  placement: 'login',
  host: 'login1',
  pid: 123,
  start: '456',
  boot_id: 'b',
  started_at: 1796206520,
  updated_at: 1796206530,
  last_sent_at: 1796206529,
  points_pending: 0,
  undelivered: { points: 0, params: 0, tags: 0, files: 0 },
  lag_ms: 12,
};

const RECORD: Json = ['loss', 0.5, 3, 1796206524000];

/** A file kind: its sample, where it lives, how track-launch reads it. */
interface Kind {
  name: string;
  sample: Json;
  file: (dir: string) => string;
  /** Written as one JSON line (JSON-lines files) rather than a JSON document. */
  line?: boolean;
  read: (dir: string, file: string) => unknown;
  /** Fields that must be there: removing one is refused (checked without the schemas). */
  required: string[];
  /** Fields that may be null (docs/cluster.md: a figure the node could not give). */
  nullable?: string[];
}

const KINDS: Kind[] = [
  {
    name: 'job.json',
    sample: JOB,
    file: (d) => runPaths(d).jobJson,
    read: (d) => readJobRecord(d),
    required: ['name', 'executor', 'spec', 'spec.command', 'spec.params', 'plan_digest', 'state.name'],
  },
  {
    name: 'rank facts',
    sample: FACTS,
    file: (d) => runPaths(d).rankFacts(0),
    read: (d) => readRankFacts(d, 0),
    required: ['rank', 'host', 'started_at', 'job_id'],
  },
  {
    name: 'evaluation.json',
    sample: EVALUATION,
    file: (d) => runPaths(d).evaluation,
    read: (d) => readEvaluationJson(d),
    required: ['x', 'f', 'g'],
  },
  {
    name: 'resources',
    sample: SAMPLE,
    line: true,
    file: (d) => runPaths(d).nodeResources('tlnode1'),
    read: (d) => readNodeResources(d),
    required: ['t', 'dt', 'job', 'job.cpu_s'],
    nullable: ['alloc_cpus', 'alloc_mem_mb', 'gpus[0].util', 'gpus[0].mem_used_mb', 'gpus[0].mem_total_mb'],
  },
  {
    name: 'state.json',
    sample: SPOOL_STATE,
    file: (d) => trackingPaths(d).spoolState,
    read: (d) => loadSpoolState(d),
    required: ['ranks', 'ranks["0"].out', 'parent', 'parent.spool'],
  },
  {
    name: 'mlflow-*.json',
    sample: SERVER_STATE,
    file: (d) => trackingPaths(d).sendState(URI),
    read: (d, f) => loadServerState(d, f, URI),
    required: ['uri', 'sent', 'rank_run_ids'],
  },
  {
    name: 'tracker.json',
    sample: TRACKER,
    file: (d) => trackingPaths(d).tracker,
    read: (d) => readTracker(d),
    required: ['placement', 'pid', 'undelivered.points'],
  },
  {
    name: 'spool record',
    sample: RECORD,
    line: true,
    file: (d) => trackingPaths(d).rankSpool(0),
    read: (d, f) => readRecords(d, f, 0, fs.statSync(f).size),
    required: [],
  },
];

const kindOf = (v: Json | undefined) =>
  v === undefined ? 'missing' : v === null ? 'null' : Array.isArray(v) ? 'array' : typeof v;

/** Every field of a sample, by path (`a.b`, `a[0]`, `a["0"]`), the whole value excepted. */
function paths(v: Json, at = ''): string[] {
  const out: string[] = [];
  if (Array.isArray(v)) v.forEach((x, i) => out.push(`${at}[${i}]`, ...paths(x, `${at}[${i}]`)));
  else if (v && typeof v === 'object')
    for (const [k, x] of Object.entries(v)) {
      const p = /^[A-Za-z_]\w*$/.test(k) ? `${at}${at ? '.' : ''}${k}` : `${at}[${JSON.stringify(k)}]`;
      out.push(p, ...paths(x, p));
    }
  return out;
}

/** The path's parts: `a["0"].b[1]` -> ['a', '0', 'b', 1]. */
function parts(p: string): (string | number)[] {
  const re = /\.?([A-Za-z_]\w*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\]/g;
  const out: (string | number)[] = [];
  for (let m = re.exec(p); m; m = re.exec(p))
    out.push(m[1] ?? (m[2] !== undefined ? Number(m[2]) : (JSON.parse(m[3]) as string)));
  return out;
}

/** A copy of `v` with the field at `p` replaced (undefined: removed). */
function mutate(v: Json, p: string, to: Json | undefined): Json {
  const copy = structuredClone(v) as Json;
  const ps = parts(p);
  let parent = copy as Record<string | number, Json>;
  for (const k of ps.slice(0, -1)) parent = parent[k] as Record<string | number, Json>;
  const last = ps[ps.length - 1];
  if (to !== undefined) parent[last] = to;
  else if (Array.isArray(parent)) parent.splice(last as number, 1);
  else delete parent[last];
  return copy;
}

function get(v: Json, p: string): Json | undefined {
  let at: Json | undefined = v;
  for (const k of parts(p)) at = (at as Record<string | number, Json> | undefined)?.[k];
  return at;
}

const OTHERS: Json[] = [null, true, -7, 'text', [], [1, 'a'], {}, { a: 1 }];

const tmp = () => fs.mkdtempSync(path.join(os.tmpdir(), 'tl-schema-fuzz-'));

async function outcome(kind: Kind, value: Json): Promise<{ file: string; err?: unknown }> {
  const dir = tmp();
  const file = kind.file(dir);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(value) + (kind.line ? '\n' : ''), { mode: 0o600 });
  try {
    await kind.read(dir, file);
    return { file };
  } catch (err) {
    return { file, err };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe.each(KINDS)('$name', (kind) => {
  test('the sample, as written, is read', async () => {
    expect((await outcome(kind, kind.sample)).err).toBeUndefined();
  });

  test('each field given another type, or removed: read, or refused naming the file and field', async () => {
    const fields = paths(kind.sample);
    expect(fields.length).toBeGreaterThan(3);
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...fields),
        fc.option(fc.constantFrom(...OTHERS), { nil: undefined }),
        async (field, to) => {
          const before = get(kind.sample, field);
          fc.pre(to === undefined || kindOf(to) !== kindOf(before));
          fc.pre(!(to === null && kind.nullable?.includes(field)));
          const { file, err } = await outcome(kind, mutate(kind.sample, field, to));
          // another type where a value was is always wrong; removal, only for a required field
          if (to !== undefined || kind.required.includes(field)) expect(err).toBeDefined();
          if (err === undefined) return;
          expect(err).toBeInstanceOf(TrackLaunchError);
          const e = err as TrackLaunchError;
          expect(e.code).toBe('RUN_DIR');
          expect(e.exitCode).toBe(7);
          expect(e.message).toContain(file);
          if (field === 'version') return; // the version's own message
          // the field named; a removal, the field or (a list or tuple one item short) what held it
          const named = String(e.details.field);
          if (to !== undefined) expect(named).toBe(field);
          else expect(field.startsWith(named)).toBe(true);
          expect(e.message).toContain(named);
        },
      ),
      { numRuns: 300 },
    );
  });
});
