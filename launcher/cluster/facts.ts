// What a Slurm cluster offers, as read from scontrol or sinfo: the only input of the request
// check and the `cluster` table. Plain JSON (no Infinity): `null` means unlimited.
import { GresEntry } from './gres';

/** A node's state, reduced the way sinfo's %t reduces it. */
export type NodeAvailability =
  | 'idle'
  | 'mixed'
  | 'allocated'
  | 'completing'
  | 'draining'
  | 'drained'
  | 'down'
  | 'reserved'
  | 'planned'
  | 'unknown';

export interface NodeFacts {
  name: string;
  /** The state as Slurm printed it, e.g. "IDLE+DRAIN", "mixed". */
  state: string;
  availability: NodeAvailability;
  cpus: number;
  cpusAlloc?: number;
  /** RealMemory: what Slurm lets jobs ask for, in MiB ("MB" in Slurm's words). */
  memoryMiB: number;
  allocMemMiB?: number;
  gres: GresEntry[];
  gpus: number;
  partitions: string[];
  features: string[];
  reason?: string;
}

export interface PartitionFacts {
  name: string;
  isDefault: boolean;
  /** UP, DOWN, DRAIN, INACTIVE */
  state: string;
  /** Node names, expanded. */
  nodes: string[];
  /** Seconds; null: UNLIMITED. */
  maxTimeS: number | null;
  /** As Slurm printed it: "UNLIMITED", "2-00:00:00", "infinite". */
  maxTime: string;
  defaultTimeS?: number | null;
  /** null: UNLIMITED. */
  maxNodes: number | null;
  minNodes?: number;
  maxCpusPerNode?: number | null;
  maxMemPerNodeMiB?: number | null;
  totalCpus?: number;
}

export interface ClusterFacts {
  version: 1;
  source: 'scontrol' | 'sinfo';
  partitions: PartitionFacts[];
  nodes: NodeFacts[];
}

const DOWN = ['DOWN', 'FAIL', 'FAILING', 'NO_RESPOND', 'FUTURE', 'POWERED_DOWN'];

export function availability(state: string): NodeAvailability {
  const flags = state
    .toUpperCase()
    .split(/[+\s]/)
    .map((s) => s.replace(/[*~#!%$@^-]+$/, ''));
  const base = flags[0];
  if (flags.includes('DRAIN') || base === 'DRAINED' || base === 'DRAINING' || base === 'DRAIN') {
    return ['ALLOCATED', 'MIXED', 'COMPLETING', 'DRAINING'].includes(base) ? 'draining' : 'drained';
  }
  if (DOWN.includes(base) || flags.includes('NOT_RESPONDING')) return 'down';
  const map: Record<string, NodeAvailability> = {
    IDLE: 'idle',
    MIXED: 'mixed',
    MIX: 'mixed',
    ALLOCATED: 'allocated',
    ALLOC: 'allocated',
    COMPLETING: 'completing',
    COMP: 'completing',
    RESERVED: 'reserved',
    RESV: 'reserved',
    PLANNED: 'planned',
  };
  return map[base] ?? 'unknown';
}

/** Nodes that can take new work now or once running jobs end (not down, drained or draining). */
export const usable = (n: NodeFacts): boolean =>
  !['down', 'drained', 'draining', 'unknown'].includes(n.availability);

export function nodesOf(facts: ClusterFacts, p: PartitionFacts): NodeFacts[] {
  const byName = new Map(facts.nodes.map((n) => [n.name, n]));
  return p.nodes.map((name) => byName.get(name)).filter((n): n is NodeFacts => n !== undefined);
}

/** Unlimited-aware time for people: null -> "unlimited", 3600 -> "1:00:00", 93600 -> "1-02:00:00". */
export function formatSeconds(s: number | null | undefined): string {
  if (s === null || s === undefined || !Number.isFinite(s)) return 'unlimited';
  const d = Math.floor(s / 86400);
  const h = Math.floor((s % 86400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = s % 60;
  const hms = `${d ? String(h).padStart(2, '0') : h}:${String(m).padStart(2, '0')}:${String(sec).padStart(2, '0')}`;
  return d ? `${d}-${hms}` : hms;
}
