// The summary page: where the job ran (run dir, cluster, partition, nodes once), its MLflow run, and the
// efficiency figures from the node samples, checked against sums over the committed sample files.
import * as fs from 'fs';
import * as path from 'path';
import { loadReportData } from '../../../reports/load/run-dir';
import { nodesText, summaryRows } from '../../../reports/specs/summary';
import { FIXTURES } from './helpers/check-output';

const THREE_NODES = path.join(FIXTURES, 'polynomial-3-nodes');
const HOSTS = ['tlnode1', 'tlnode2', 'tlnode3'];

/** The samples of one node, read here with JSON.parse (not through the code under test). */
const samples = (host: string) =>
  fs
    .readFileSync(path.join(THREE_NODES, 'logs', `node-${host}.resources.jsonl`), 'utf8')
    .split('\n')
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l));

describe('the 3-node run', () => {
  let rows: Record<string, string>;
  beforeAll(async () => {
    const url = 'http://mlflow.example:5000/#/experiments/3/runs/abc';
    rows = Object.fromEntries(summaryRows(await loadReportData(THREE_NODES, { mlflowUrl: url })));
  });

  it('names the run directory, the cluster and partition, the MLflow run and each node once', () => {
    expect(rows['Run directory']).toBe(THREE_NODES);
    expect(rows.Job).toBe('train, job id 127');
    expect(rows.Cluster).toBe("slurm, partition the cluster's default");
    expect(rows.MLflow).toBe('http://mlflow.example:5000/#/experiments/3/runs/abc');
    expect(rows.Nodes).toBe('3 nodes: tlnode1, tlnode2, tlnode3 (Slurm: tlnode[1-3])');
    expect(rows.Hosts).toBeUndefined();
  });

  it('gives CPU time used against CPU time allocated, summed over the nodes', () => {
    let used = 0;
    let allocated = 0;
    for (const h of HOSTS)
      for (const s of samples(h)) {
        used += s.job.cpu_s;
        allocated += s.dt * (s.alloc_cpus ?? s.ncpu);
      }
    const pct = ((100 * used) / allocated).toFixed(1);
    expect(rows['CPU efficiency']).toBe(
      `${pct}%: ${used.toFixed(1)} s of CPU time used of ${allocated.toFixed(1)} s allocated (sampled time x CPUs per node, 3 nodes)`,
    );
  });

  it('gives the peak RSS of every node, largest first', () => {
    const peaks = HOSTS.map((h) => ({ h, mb: Math.max(...samples(h).map((s) => s.job.rss_mb)) })).sort(
      (a, b) => b.mb - a.mb,
    );
    expect(rows['Max RSS per node']).toBe(peaks.map((p) => `${p.h} ${p.mb} MiB`).join(', '));
  });
});

describe('nodesText', () => {
  it('says the count once and each host once', () => {
    expect(nodesText(1, ['vm'], 'vm')).toBe('1 node: vm');
    expect(nodesText(undefined, ['a', 'b'])).toBe('2 nodes: a, b');
    expect(nodesText(2, [], 'n[1-2]')).toBe('2 nodes: n[1-2]');
    expect(nodesText(3, ['n1', 'n2'], 'n[1-3]')).toBe(
      '3 nodes requested; ranks ran on 2 hosts: n1, n2 (Slurm: n[1-3])',
    );
    expect(nodesText(3, ['vm'])).toBe('3 nodes requested; ranks ran on 1 host: vm'); // the local executor
  });
});
