// What the GPU check checks in an unpacked run (verify.ts), each by name. A check that cannot apply on
// the CPU rehearsal (gloo, no CUDA, a stand-in nvidia-smi) is 'skip' with the reason, never a pass.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { parseResources, readAllRankFacts, readJobRecord, RankFacts, ResourceSample } from '../../core';
import { findTrackedRuns, MlflowClient } from '../../tracking-plugin';
import { metricHistory } from '../integration/tracking/helpers';

export type CheckStatus = 'pass' | 'fail' | 'skip';
export interface Check {
  name: string;
  status: CheckStatus;
  detail: string;
}

/** What ddp-check.py printed on stderr as `gpu-check: {json}` (its last such line). */
export interface RankCheckFacts {
  rank: number;
  local_rank: number;
  backend: string;
  nccl_socket_ifname?: string | null;
  allreduce_ok?: boolean;
  done?: boolean;
  current_device?: number;
  device_name?: string;
  device_memory_mib?: number;
  nccl_version?: string;
}

/** A line of `nvidia-smi --query-gpu=index,name,memory.total,driver_version` as on-gpu.sh saved it. */
interface SmiGpu {
  index: number;
  name: string;
  memTotal: number;
  driver: string;
}

export interface CheckInput {
  runDir: string;
  there: string;
  uri: string;
  ingest: { status: number | null; out: string };
  report: { status: number | null; out: string };
}

interface Seen extends CheckInput {
  backend: string;
  world: number;
  rc: string;
  ranks: RankFacts[];
  facts: Map<number, RankCheckFacts>;
  smi: SmiGpu[];
  samples: Map<string, ResourceSample[]>;
}

const pass = (name: string, detail: string): Check => ({ name, status: 'pass', detail });
const fail = (name: string, detail: string): Check => ({ name, status: 'fail', detail });
const skip = (name: string, detail: string): Check => ({ name, status: 'skip', detail });
const read = (file: string): string => (fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '');
const logs = (s: Seen, file: string) => path.join(s.runDir, 'logs', file);
const gpuOnly = (s: Seen, name: string, why: string, check: () => Check): Check =>
  s.backend === 'nccl' ? check() : skip(name, `CPU rehearsal (gloo): ${why}`);

function rankCheckFacts(runDir: string, rank: number): RankCheckFacts | undefined {
  const lines = read(path.join(runDir, 'logs', `rank-${rank}.err`))
    .split('\n')
    .filter((l) => l.startsWith('gpu-check: '));
  return lines.length ? (JSON.parse(lines[lines.length - 1].slice(11)) as RankCheckFacts) : undefined;
}

function smiGpus(file: string): SmiGpu[] {
  return read(file)
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => l.split(',').map((f) => f.trim()))
    .map(([index, name, mem, driver]) => ({ index: Number(index), name, memTotal: Number(mem), driver }));
}

function seen(input: CheckInput): Seen {
  const job = readJobRecord(input.runDir);
  const world = job.spec.world_size;
  const facts = new Map<number, RankCheckFacts>();
  for (let r = 0; r < world; r++) {
    const f = rankCheckFacts(input.runDir, r);
    if (f) facts.set(r, f);
  }
  const samples = new Map<string, ResourceSample[]>();
  for (const f of fs.readdirSync(path.join(input.runDir, 'logs'))) {
    const m = /^node-(.+)\.resources\.jsonl$/.exec(f);
    if (m) samples.set(m[1], parseResources(read(path.join(input.runDir, 'logs', f)), f));
  }
  return {
    ...input,
    backend: String(job.spec.backend),
    world,
    rc: read(path.join(input.there, 'rc')).trim(),
    ranks: readAllRankFacts(input.runDir),
    facts,
    smi: smiGpus(path.join(input.there, 'nvidia-smi.csv')),
    samples,
  };
}

function ranWithoutSupervisor(s: Seen): Check {
  const name = 'job.local.sh ran without the supervisor';
  const codes = s.ranks.map((f) => `rank ${f.rank}: ${f.exit_code ?? 'none'}`).join(', ');
  const state = readJobRecord(s.runDir).state;
  const ok =
    s.rc === '0' &&
    s.ranks.length === s.world &&
    s.ranks.every((f) => f.exit_code === 0) &&
    state?.name === 'COMPLETED';
  return (ok ? pass : fail)(
    name,
    `exit ${s.rc || 'none'}; ${s.ranks.length} of ${s.world} rank(s) recorded exit codes (${codes}); job.json state ${state?.name ?? 'none'}`,
  );
}

function allReduce(s: Seen): Check {
  const name = `all-reduce over ${s.backend}`;
  const bad = [...Array(s.world).keys()].filter((r) => {
    const f = s.facts.get(r);
    return !(f?.allreduce_ok && f.done && f.backend === s.backend);
  });
  return bad.length
    ? fail(name, `rank(s) ${bad.join(', ')} did not report a correct all-reduce and the end of training`)
    : pass(name, `${s.world} rank(s): the sum was world*(world+1)/2 on each, training ended`);
}

function ncclInitialised(s: Seen): Check {
  const name = 'NCCL initialised';
  return gpuOnly(s, name, 'the ranks use gloo; no NCCL here', () => {
    const bad = [...Array(s.world).keys()].filter(
      (r) => !/Init COMPLETE/.test(read(logs(s, `nccl-rank-${r}.log`))),
    );
    const version = s.facts.get(0)?.nccl_version ?? 'unknown';
    return bad.length
      ? fail(
          name,
          `no "Init COMPLETE" in logs/nccl-rank-<R>.log of rank(s) ${bad.join(', ')} (NCCL ${version})`,
        )
      : pass(name, `NCCL ${version}: every rank's NCCL_DEBUG log says Init COMPLETE`);
  });
}

function rankOnItsGpu(s: Seen): Check {
  const name = 'each rank on the GPU numbered LOCAL_RANK';
  return gpuOnly(s, name, 'torch.cuda is not available on a CPU', () => {
    const lines = s.ranks.map((rf) => {
      const f = s.facts.get(rf.rank);
      const ok = f?.current_device === rf.local_rank && f.local_rank === rf.local_rank;
      return { ok, text: `rank ${rf.rank}: LOCAL_RANK ${rf.local_rank}, cuda:${f?.current_device ?? '?'}` };
    });
    const one = s.world === 1 ? ' (world size 1: only LOCAL_RANK 0 is exercised)' : '';
    const ok = lines.length === s.world && lines.every((l) => l.ok);
    return (ok ? pass : fail)(name, lines.map((l) => l.text).join('; ') + one);
  });
}

function socketIfname(s: Seen): Check {
  const name = 'NCCL_SOCKET_IFNAME set to the interface to the master';
  const lines = s.ranks.map((rf) => {
    const v = s.facts.get(rf.rank)?.nccl_socket_ifname;
    return {
      ok: Boolean(v) && v === rf.iface,
      text: `rank ${rf.rank}: ${v ?? 'unset'} (bootstrap: ${rf.iface})`,
    };
  });
  const ok = lines.length === s.world && lines.every((l) => l.ok);
  return (ok ? pass : fail)(name, lines.map((l) => l.text).join('; '));
}

function samplesParsed(s: Seen): Check {
  const name = 'GPU samples parsed (every GPU nvidia-smi lists, its memory)';
  const stand = s.backend === 'nccl' ? '' : ' (the stand-in nvidia-smi: recorded A100 readings)';
  if (!s.smi.length) return fail(name, 'there/nvidia-smi.csv is empty: nvidia-smi gave nothing there');
  const withGpus = [...s.samples.values()].flat().filter((x) => x.gpus?.length);
  if (withGpus.length < 2)
    return fail(
      name,
      `${withGpus.length} sample(s) with GPUs in logs/node-*.resources.jsonl (want 2 or more)`,
    );
  const want = s.smi.map((g) => `${g.index}:${g.memTotal}`).join(' ');
  const wrong = withGpus.filter((x) => x.gpus?.map((g) => `${g.index}:${g.mem_total_mb}`).join(' ') !== want);
  return wrong.length
    ? fail(name, `${wrong.length} of ${withGpus.length} samples do not list index:MiB ${want}`)
    : pass(name, `${withGpus.length} samples, each with index:MiB ${want} as nvidia-smi says${stand}`);
}

function cardName(s: Seen): Check {
  const name = "the card's name and memory as torch sees them";
  return gpuOnly(s, name, "torch sees no GPU: the stand-in's name has no card to be compared with", () => {
    const lines = s.ranks.map((rf) => {
      const f = s.facts.get(rf.rank);
      const g = s.smi.find((x) => x.index === rf.local_rank);
      // torch's total_memory leaves out what the driver reserves: within 10% of nvidia-smi's total
      const memOk =
        g && f?.device_memory_mib && Math.abs(f.device_memory_mib - g.memTotal) <= 0.1 * g.memTotal;
      return {
        ok: Boolean(g && f?.device_name === g.name && memOk),
        text: `rank ${rf.rank}: torch "${f?.device_name}" ${f?.device_memory_mib} MiB, nvidia-smi "${g?.name}" ${g?.memTotal} MiB, driver ${g?.driver}`,
      };
    });
    return (lines.length === s.world && lines.every((l) => l.ok) ? pass : fail)(
      name,
      lines.map((l) => l.text).join('; '),
    );
  });
}

function gpuBusy(s: Seen): Check {
  const name = 'GPU busy in the samples while the ranks trained';
  return gpuOnly(s, name, 'the stand-in nvidia-smi prints fixed readings', () => {
    const all = [...s.samples.values()].flat();
    const idle = s.ranks.filter(
      (rf) =>
        !all.some((x) =>
          x.gpus?.some((g) => g.index === rf.local_rank && (g.util ?? 0) > 0 && (g.mem_used_mb ?? 0) > 0),
        ),
    );
    return idle.length
      ? fail(name, `no sample shows GPU ${idle.map((r) => r.local_rank).join(', ')} busy with memory used`)
      : pass(name, `each rank's GPU busy with memory used in some of ${all.length} samples`);
  });
}

async function ingested(s: Seen): Promise<Check> {
  const name = 'ingested into MLflow (a parent run, a run per rank, every loss point)';
  if (s.ingest.status !== 0)
    return fail(name, `ingest exited ${s.ingest.status}: ${s.ingest.out.slice(-600)}`);
  const runs = await findTrackedRuns(s.runDir, s.uri);
  if (!runs?.parentRunId) return fail(name, `no runs recorded in the run directory for ${s.uri}`);
  const client = await MlflowClient.connect(s.uri);
  const parent = await client.getRun(runs.parentRunId);
  const lines: string[] = [`parent ${parent.info.status}`];
  let ok = parent.info.status === 'FINISHED' && Object.keys(runs.rankRunIds).length === s.world;
  for (const [rank, id] of Object.entries(runs.rankRunIds)) {
    // counted from the rank's own stdout, not from what the parser made of it
    const want = read(logs(s, `rank-${rank}.out`))
      .split('\n')
      .filter((l) => l.startsWith('{"track_launch": 1')).length;
    const got = (await metricHistory(client, id, 'loss')).length;
    ok &&= want > 0 && got === want;
    lines.push(`rank ${rank}: ${got} of ${want} loss points`);
  }
  return (ok ? pass : fail)(name, lines.join('; '));
}

function reportGpuPage(s: Seen): Check {
  const name = "the report's GPU page";
  if (s.report.status !== 0)
    return fail(name, `report exited ${s.report.status}: ${s.report.out.slice(-600)}`);
  const files = (JSON.parse(s.report.out) as { files: string[] }).files;
  const pdf = files.find((f) => f.endsWith('.pdf'));
  const text = pdf ? execFileSync('pdftotext', ['-layout', pdf, '-'], { encoding: 'utf8' }) : '';
  const missing: string[] = [];
  for (const host of s.samples.keys()) {
    if (!files.some((f) => path.basename(f) === `resources-${host}.png`))
      missing.push(`resources-${host}.png`);
    if (!text.includes(`Resources on ${host}: CPU, memory and GPUs`))
      missing.push(`the GPU page of ${host} in the PDF`);
    for (const g of s.smi)
      if (!text.includes(`GPU ${g.index}:`)) missing.push(`"GPU ${g.index}:" in the PDF`);
  }
  if (!s.samples.size) missing.push('any node resources file');
  return missing.length
    ? fail(name, `missing: ${missing.join(', ')}`)
    : pass(
        name,
        `${[...s.samples.keys()].map((h) => `resources-${h}.png`).join(', ')} and the PDF page with ${s.smi.length} GPU(s)`,
      );
}

/** Every check, in the issue's order; a check that throws fails with what it threw. */
export async function runChecks(input: CheckInput): Promise<Check[]> {
  const s = seen(input);
  const checks: Array<[string, () => Check | Promise<Check>]> = [
    ['job.local.sh ran without the supervisor', () => ranWithoutSupervisor(s)],
    ['all-reduce', () => allReduce(s)],
    ['NCCL initialised', () => ncclInitialised(s)],
    ['each rank on the GPU numbered LOCAL_RANK', () => rankOnItsGpu(s)],
    ['NCCL_SOCKET_IFNAME', () => socketIfname(s)],
    ['GPU samples parsed', () => samplesParsed(s)],
    ["the card's name and memory", () => cardName(s)],
    ['GPU busy', () => gpuBusy(s)],
    ['ingested into MLflow', () => ingested(s)],
    ["the report's GPU page", () => reportGpuPage(s)],
  ];
  const out: Check[] = [];
  for (const [name, run] of checks) {
    try {
      out.push(await run());
    } catch (e) {
      out.push(fail(name, `the check itself failed: ${(e as Error).message}`));
    }
  }
  return out;
}
