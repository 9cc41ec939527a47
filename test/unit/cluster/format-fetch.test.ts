import {
  fetchClusterFacts,
  SCONTROL_NODES_ARGV,
  SCONTROL_PARTITIONS_ARGV,
} from '../../../launcher/cluster/fetch';
import { formatCluster, selectPartitions } from '../../../launcher/cluster/format';
import { factsFromScontrol } from '../../../launcher/cluster/parse-scontrol';
import { SINFO_ARGV } from '../../../launcher/cluster/parse-sinfo';
import { TrackLaunchError } from '../../../core/errors';
import { ProcessRunner } from '../../../launcher/slurm/run-process';
import { fixture } from './helpers';

const outputs = (prefix: string, fail: string[] = []): { run: ProcessRunner; calls: string[][] } => {
  const calls: string[][] = [];
  const text: Record<string, string> = {
    [SCONTROL_PARTITIONS_ARGV.join(' ')]: fixture(`${prefix}.scontrol-show-partition.txt`),
    [SCONTROL_NODES_ARGV.join(' ')]: fixture(`${prefix}.scontrol-show-node.txt`),
    [SINFO_ARGV.join(' ')]: fixture(`${prefix}.sinfo.txt`),
  };
  const run: ProcessRunner = async (argv) => {
    calls.push(argv);
    const key = argv.join(' ');
    if (fail.includes(argv[0] + ' ' + argv[argv.length - 1]) || !(key in text))
      return { argv, code: 1, stdout: '', stderr: `${argv[0]}: Access/permission denied` };
    return { argv, code: 0, stdout: text[key], stderr: '' };
  };
  return { run, calls };
};

describe('fetchClusterFacts', () => {
  test('scontrol when it answers', async () => {
    const { run, calls } = outputs('testcluster');
    const facts = await fetchClusterFacts(run);
    expect(facts.source).toBe('scontrol');
    expect(facts.nodes).toHaveLength(3);
    expect(calls.map((c) => c[0])).toEqual(['scontrol', 'scontrol']);
  });

  test("sinfo when scontrol hides nodes, keeping scontrol's partition limits", async () => {
    const { run } = outputs('gpucluster', ['scontrol node']);
    const facts = await fetchClusterFacts(run);
    expect(facts.source).toBe('sinfo');
    expect(facts.partitions.find((p) => p.name === 'gpu')).toMatchObject({
      maxNodes: 3,
      maxCpusPerNode: 96,
      nodes: ['gpu-01', 'gpu-02', 'gpu-03', 'gpu-04'],
    });
    expect(facts.nodes.find((n) => n.name === 'gpu-01')).toMatchObject({ gpus: 4, cpus: 128 });
  });

  test('a COMMAND_FAILED error with the command when nothing answers', async () => {
    const run: ProcessRunner = async (argv) => ({
      argv,
      code: 1,
      stdout: '',
      stderr: 'slurm_load_partitions: Unable to contact slurm controller (connect failure)',
    });
    const err = (await fetchClusterFacts(run).catch((e) => e)) as TrackLaunchError;
    expect(err).toBeInstanceOf(TrackLaunchError);
    expect(err.code).toBe('COMMAND_FAILED');
    expect(err.message).toContain(
      "could not read the cluster's partitions and nodes: `scontrol --oneliner show partition` exited with 1",
    );
    expect(err.message).toContain('Unable to contact slurm controller');
    expect(err.hint).toContain('--no-check');
  });
});

describe('formatCluster', () => {
  test('the test cluster, as a person reads it', () => {
    const facts = factsFromScontrol(
      fixture('testcluster.scontrol-show-partition.txt'),
      fixture('testcluster.scontrol-show-node.txt'),
    );
    const text = formatCluster(facts);
    expect(text.split('\n')[0]).toMatch(
      /^PARTITION\s+STATE\s+NODES\s+IDLE\s+MIXED\s+ALLOC\s+OTHER\s+CPUS\/NODE\s+MEMORY\/NODE\s+GPUS\/NODE\s+TIME LIMIT$/,
    );
    // Recorded while jobs ran on tlnode1 and tlnode2.
    expect(text.split('\n')[1]).toMatch(/^debug\*\s+up\s+3\s+1\s+2\s+0\s+0\s+4\s+2000 MiB\s+-\s+unlimited$/);
    expect(text).toContain('debug (default): time limit unlimited');
    expect(text).toMatch(
      / {2}tlnode\[1-2\]\s+2\s+mixed\s+4\s+2000 MiB\s+-\n {2}tlnode3\s+1\s+idle\s+4\s+2000 MiB\s+-\n/,
    );
  });

  test('a GPU cluster: groups of like nodes, gres, reasons', () => {
    const facts = factsFromScontrol(
      fixture('gpucluster.scontrol-show-partition.txt'),
      fixture('gpucluster.scontrol-show-node.txt'),
    );
    const text = formatCluster(facts);
    expect(text).toMatch(/\ncpu\*\s+up\s+2\s+1\s+0\s+1\s+0\s+48\s+186.5 GiB\s+0-7\s+1-00:00:00\n/);
    expect(text).toMatch(/\ngpu\s+up\s+4\s+1\s+1\s+0\s+2\s+64-128\s+250 GiB-502.9 GiB\s+4\s+2-00:00:00\n/);
    expect(text).toContain(
      'gpu: time limit 2-00:00:00, default 0:30:00, at most 3 node(s) per job, at most 96 CPUs per node, at most 468.8 GiB per node',
    );
    expect(text).toMatch(/gpu-01\s+1\s+mixed\s+128\s+502.9 GiB\s+4 x a100 \(gpu:a100:4\)/);
    expect(text).toMatch(/gpu-04\s+1\s+down\s+64\s+250 GiB\s+2 x a100 \+ 2 x v100 \(gpu:a100:2,gpu:v100:2\)/);
    expect(text).toContain('  gpu-03: drained, GPU 2 fell off the bus [admin@2026-12-01T20:05:12]');
    const only = selectPartitions(facts, ['cpu']);
    expect(only.partitions.map((p) => p.name)).toEqual(['cpu']);
    expect(only.nodes.map((n) => n.name)).toEqual(['cpu-001', 'cpu-002']);
  });
});
