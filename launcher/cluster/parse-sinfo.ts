// sinfo, one line per node and partition, with a fixed format (the fallback when scontrol
// cannot show nodes). Pure.
import { parseSlurmTime } from '../spec/slurm-time';
import { availability, ClusterFacts, NodeFacts, PartitionFacts } from './facts';
import { gpuCount, parseGres } from './gres';
import { splitTopLevel } from './hostlist';

/** node | partition (default marked *) | long state | CPUs | memory MiB | gres | time limit | avail | features */
export const SINFO_FORMAT = '%N|%P|%T|%c|%m|%G|%l|%a|%f';
export const SINFO_ARGV = ['sinfo', '--noheader', '--Node', '--format', SINFO_FORMAT];

export interface SinfoRow {
  node: string;
  partition: string;
  isDefault: boolean;
  state: string;
  cpus: number;
  memoryMiB: number;
  gres: string;
  timeLimit: string;
  avail: string;
  features: string;
}

export function parseSinfo(text: string): SinfoRow[] {
  const rows: SinfoRow[] = [];
  for (const line of text.split('\n')) {
    const f = line.trim().split('|');
    if (f.length < 9) continue;
    const cpus = Number(f[3].replace(/\+$/, ''));
    const mem = Number(f[4].replace(/\+$/, ''));
    rows.push({
      node: f[0],
      partition: f[1].replace(/\*$/, ''),
      isDefault: f[1].endsWith('*'),
      state: f[2],
      cpus: Number.isFinite(cpus) ? cpus : 0,
      memoryMiB: Number.isFinite(mem) ? mem : 0,
      gres: f[5],
      timeLimit: f[6],
      avail: f[7],
      features: f[8],
    });
  }
  return rows;
}

function sinfoTime(t: string): number | null {
  // sinfo prints "infinite", "1-00:00:00", "2:00:00", "30:00"; its MM:SS reads as Slurm's minutes:seconds.
  const s = parseSlurmTime(t);
  return s === undefined || !Number.isFinite(s) ? null : s;
}

export function factsFromSinfo(text: string): ClusterFacts {
  const rows = parseSinfo(text);
  const nodes = new Map<string, NodeFacts>();
  const parts = new Map<string, PartitionFacts>();
  for (const r of rows) {
    let n = nodes.get(r.node);
    if (!n) {
      const gres = parseGres(r.gres);
      n = {
        name: r.node,
        state: r.state,
        availability: availability(r.state),
        cpus: r.cpus,
        memoryMiB: r.memoryMiB,
        gres,
        gpus: gpuCount(gres),
        partitions: [],
        features: r.features === '(null)' ? [] : splitTopLevel(r.features),
      };
      nodes.set(r.node, n);
    }
    if (!n.partitions.includes(r.partition)) n.partitions.push(r.partition);
    let p = parts.get(r.partition);
    if (!p) {
      p = {
        name: r.partition,
        isDefault: r.isDefault,
        state: r.avail.toUpperCase(),
        nodes: [],
        maxTimeS: sinfoTime(r.timeLimit),
        maxTime: r.timeLimit,
        maxNodes: null,
      };
      parts.set(r.partition, p);
    }
    if (!p.nodes.includes(r.node)) p.nodes.push(r.node);
  }
  return { version: 1, source: 'sinfo', partitions: [...parts.values()], nodes: [...nodes.values()] };
}
