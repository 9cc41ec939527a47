// Does a request fit the cluster? Pure: the facts are passed in (fetchClusterFacts reads them).
// Every problem names the option, the value and what the partition offers.
import { TrackLaunchError } from '../../core';
import { parseSlurmMemoryMiB, parseSlurmTime } from '../spec/slurm-time';
import type { JobSpec } from '../spec/types';
import { formatMiB } from '../../core';
import { ClusterFacts, formatSeconds, NodeFacts, nodesOf, PartitionFacts, usable } from './facts';
import { compressHostlist, expandHostlist } from './hostlist';

/** The part of a job spec the check reads (a JobSpec fits). */
export type ClusterRequest = Pick<JobSpec, 'nodes' | 'tasksPerNode' | 'gpusPerNode'> &
  Partial<
    Pick<JobSpec, 'cpusPerTask' | 'mem' | 'time' | 'partition' | 'nodelist' | 'exclude' | 'reservation'>
  >;

export interface RequestProblem {
  option: string;
  value: unknown;
  message: string;
}

export interface PartitionFit {
  partition: string;
  problems: RequestProblem[];
  warnings: string[];
  /** Nodes of the partition with enough GPUs, CPUs and memory for one node of the request. */
  fitting: string[];
}

export interface RequestCheck {
  ok: boolean;
  /** The partition the job can run in (the first that fits), or the first one checked. */
  partition?: string;
  problems: RequestProblem[];
  warnings: string[];
  fits: PartitionFit[];
}

const plural = (n: number, one: string, many = `${one}s`) => `${n} ${n === 1 ? one : many}`;

function maxOf(nodes: NodeFacts[], get: (n: NodeFacts) => number): { max: number; where: string } {
  const max = nodes.reduce((m, n) => Math.max(m, get(n)), 0);
  return { max, where: compressHostlist(nodes.filter((n) => get(n) === max).map((n) => n.name)) };
}

/** The partitions a request names, or the default one; an unknown name is a problem. */
function partitionsFor(
  req: ClusterRequest,
  facts: ClusterFacts,
): { list: PartitionFacts[]; problem?: RequestProblem } {
  const known =
    facts.partitions.map((p) => `${p.name}${p.isDefault ? ' (default)' : ''}`).join(', ') || 'none';
  const problem = (value: string | undefined, why: string) => ({
    list: [],
    problem: { option: 'partition', value, message: `--partition: ${why}` },
  });
  const names = (req.partition ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0) {
    const d = facts.partitions.find((p) => p.isDefault);
    return d
      ? { list: [d] }
      : problem(undefined, `this cluster has no default partition; choose one of: ${known}`);
  }
  const list = names.map((name) => facts.partitions.find((x) => x.name === name));
  const unknown = names.find((_, i) => !list[i]);
  if (unknown !== undefined)
    return problem(
      unknown,
      `${JSON.stringify(unknown)} is not a partition of this cluster; partitions: ${known}`,
    );
  return { list: list as PartitionFacts[] };
}

export function checkPartition(req: ClusterRequest, facts: ClusterFacts, p: PartitionFacts): PartitionFit {
  const problems: RequestProblem[] = [];
  const warnings: string[] = [];
  const nodes = nodesOf(facts, p);
  const all = compressHostlist(nodes.map((n) => n.name)) || '(none)';
  const add = (option: string, value: unknown, message: string) =>
    problems.push({ option, value, message: `--${option}: ${message}` });

  if (nodes.length === 0) add('partition', p.name, `partition ${p.name} has no nodes`);
  if (/^INACTIVE$/i.test(p.state))
    add('partition', p.name, `partition ${p.name} is INACTIVE and accepts no jobs`);
  else if (!/^UP$/i.test(p.state))
    warnings.push(`partition ${p.name} is ${p.state}: jobs wait until it is UP`);

  // Per node: GPUs, CPUs (tasks x CPUs per task), memory.
  const gpu = maxOf(nodes, (n) => n.gpus);
  if (req.gpusPerNode > gpu.max && nodes.length) {
    add(
      'gpus-per-node',
      req.gpusPerNode,
      gpu.max === 0
        ? `${req.gpusPerNode} is more than any node of partition ${p.name} has (its nodes have no GPUs: ${all})`
        : `${req.gpusPerNode} is more than any node of partition ${p.name} has (at most ${plural(gpu.max, 'GPU')} per node: ${gpu.where})`,
    );
  }
  const cpt = req.cpusPerTask ?? 1;
  const needCpus = req.tasksPerNode * cpt;
  const cpuCap = p.maxCpusPerNode ?? Infinity;
  const cpu = maxOf(nodes, (n) => Math.min(n.cpus, cpuCap));
  if (needCpus > cpu.max && nodes.length) {
    const what =
      req.cpusPerTask !== undefined
        ? `${plural(req.tasksPerNode, 'task')} x ${plural(cpt, 'CPU')} per task = ${needCpus} CPUs per node`
        : `${plural(req.tasksPerNode, 'task')} per node (1 CPU each)`;
    const cap = cpuCap < Infinity ? `, MaxCPUsPerNode=${cpuCap}` : '';
    add(
      req.cpusPerTask !== undefined ? 'cpus-per-task' : 'tasks-per-node',
      req.cpusPerTask ?? req.tasksPerNode,
      `${what} is more than any node of partition ${p.name} has (at most ${plural(cpu.max, 'CPU')} per node${cap}: ${cpu.where})`,
    );
  }
  const memMiB = req.mem === undefined ? undefined : parseSlurmMemoryMiB(req.mem);
  const memCap = p.maxMemPerNodeMiB ?? Infinity;
  const mem = maxOf(nodes, (n) => Math.min(n.memoryMiB, memCap));
  if (memMiB !== undefined && memMiB > 0 && memMiB > mem.max && nodes.length) {
    const cap = memCap < Infinity ? `, MaxMemPerNode=${formatMiB(memCap)}` : '';
    add(
      'mem',
      req.mem,
      `${req.mem} (${formatMiB(memMiB)}) is more than any node of partition ${p.name} has (at most ${formatMiB(mem.max)} per node${cap}: ${mem.where})`,
    );
  }

  // Nodes: how many the partition holds, its per-job limit, and how many fit everything at once.
  const fittingNodes = nodes.filter(
    (n) =>
      n.gpus >= req.gpusPerNode &&
      Math.min(n.cpus, cpuCap) >= needCpus &&
      (memMiB === undefined || memMiB === 0 || Math.min(n.memoryMiB, memCap) >= memMiB),
  );
  const fitting = fittingNodes.map((n) => n.name);
  const nodesAre = (what: string) => add('nodes', req.nodes, `${req.nodes} ${what}`);
  if (req.nodes > nodes.length && nodes.length)
    nodesAre(`is more than partition ${p.name} holds (${plural(nodes.length, 'node')}: ${all})`);
  else if (p.maxNodes !== null && req.nodes > p.maxNodes)
    nodesAre(`is over partition ${p.name}'s limit of ${plural(p.maxNodes, 'node')} per job (MaxNodes)`);
  else if (p.minNodes !== undefined && req.nodes < p.minNodes)
    nodesAre(`is under partition ${p.name}'s minimum of ${plural(p.minNodes, 'node')} per job (MinNodes)`);
  else if (problems.length === 0 && fitting.length < req.nodes) {
    const each = [
      plural(req.gpusPerNode, 'GPU'),
      plural(needCpus, 'CPU'),
      ...(memMiB ? [formatMiB(memMiB)] : []),
    ];
    nodesAre(
      `nodes with ${each.join(', ')} each: partition ${p.name} has only ${plural(fitting.length, 'such node')}${fitting.length ? ` (${compressHostlist(fitting)})` : ''}`,
    );
  }
  const up = fittingNodes.filter(usable);
  if (problems.length === 0 && up.length < req.nodes) {
    const out = fittingNodes
      .filter((n) => !usable(n))
      .map((n) => `${n.name} ${n.availability}${n.reason ? ` (${n.reason})` : ''}`);
    warnings.push(
      `only ${up.length} of the ${fitting.length} nodes of partition ${p.name} that fit are usable now (${out.join('; ')}); the job waits until ${req.nodes} are`,
    );
  }

  // --nodelist: every node exists in the partition; --exclude: names unknown to the cluster are a warning.
  const inPartition = new Set(p.nodes);
  const missing = req.nodelist ? expandHostlist(req.nodelist).filter((n) => !inPartition.has(n)) : [];
  if (missing.length)
    add(
      'nodelist',
      req.nodelist,
      `${compressHostlist(missing)} ${missing.length === 1 ? 'is' : 'are'} not in partition ${p.name} (its nodes: ${compressHostlist(p.nodes) || '(none)'})`,
    );
  const known = new Set(facts.nodes.map((n) => n.name));
  const unknown = req.exclude ? expandHostlist(req.exclude).filter((n) => !known.has(n)) : [];
  if (unknown.length) warnings.push(`--exclude: ${compressHostlist(unknown)} is not a node of this cluster`);
  const t = req.time === undefined ? undefined : parseSlurmTime(req.time);
  if (t !== undefined && p.maxTimeS !== null && t > p.maxTimeS) {
    add(
      'time',
      req.time,
      `${req.time} is over partition ${p.name}'s time limit of ${formatSeconds(p.maxTimeS)}`,
    );
  }
  if (req.gpusPerNode > 0 && req.gpusPerNode % req.tasksPerNode !== 0) {
    warnings.push(
      `${plural(req.gpusPerNode, 'GPU')} per node over ${plural(req.tasksPerNode, 'task')} per node do not divide evenly`,
    );
  }
  return { partition: p.name, problems, warnings, fitting };
}

/** Checks the request against every partition it names; it fits when one of them fits. */
export function checkRequest(req: ClusterRequest, facts: ClusterFacts): RequestCheck {
  const { list, problem } = partitionsFor(req, facts);
  if (problem) return { ok: false, problems: [problem], warnings: [], fits: [] };
  const fits = list.map((p) => checkPartition(req, facts, p));
  const good = fits.find((f) => f.problems.length === 0);
  if (good) return { ok: true, partition: good.partition, problems: [], warnings: good.warnings, fits };
  return {
    ok: false,
    partition: fits[0]?.partition,
    problems: fits.flatMap((f) => f.problems),
    warnings: [],
    fits,
  };
}

/** The refusal for a failed check (INVALID_SPEC, exit 2), or undefined when the request fits. */
export function requestError(check: RequestCheck): TrackLaunchError | undefined {
  if (check.ok) return undefined;
  const msgs = check.problems.map((p) => p.message);
  const message =
    msgs.length === 1 ? msgs[0] : `the request does not fit the cluster:\n  ${msgs.join('\n  ')}`;
  const where = check.partition ? ` --partition ${check.partition}` : '';
  return new TrackLaunchError('INVALID_SPEC', message, {
    hint: `\`track-launch cluster${where}\` shows what the cluster offers; \`--no-check\` skips this check.`,
    details: { problems: check.problems, partition: check.partition },
  });
}

/** checkRequest, throwing requestError when it does not fit. */
export function assertRequestFits(req: ClusterRequest, facts: ClusterFacts): RequestCheck {
  const check = checkRequest(req, facts);
  const err = requestError(check);
  if (err) throw err;
  return check;
}

/** One line for the plan / --dry-run: where the job fits. */
export function describeFit(check: RequestCheck, facts: ClusterFacts): string {
  if (!check.ok || !check.partition)
    return `does not fit: ${check.problems.map((p) => p.message).join('; ')}`;
  const p = facts.partitions.find((x) => x.name === check.partition)!;
  const fit = check.fits.find((f) => f.partition === check.partition)!;
  return `partition ${p.name}${p.isDefault ? ' (default)' : ''}: ${fit.fitting.length} of ${plural(p.nodes.length, 'node')} fit (${compressHostlist(fit.fitting)}), time limit ${formatSeconds(p.maxTimeS)}`;
}
