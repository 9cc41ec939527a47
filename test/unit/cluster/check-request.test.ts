import {
  ClusterRequest,
  assertRequestFits,
  checkRequest,
  describeFit,
  requestError,
} from '../../../launcher/cluster/check-request';
import { factsFromScontrol } from '../../../launcher/cluster/parse-scontrol';
import { preflightCheck } from '../../../launcher/cluster/preflight';
import { TrackLaunchError } from '../../../core/errors';
import { ProcessRunner } from '../../../launcher/slurm/run-process';
import { JobSpec } from '../../../launcher/spec/types';
import { fixture } from './helpers';

const test3 = factsFromScontrol(
  fixture('testcluster.scontrol-show-partition.txt'),
  fixture('testcluster.scontrol-show-node.txt'),
);
const gpu = factsFromScontrol(
  fixture('gpucluster.scontrol-show-partition.txt'),
  fixture('gpucluster.scontrol-show-node.txt'),
);
const req = (r: Partial<ClusterRequest>): ClusterRequest => ({
  nodes: 1,
  tasksPerNode: 1,
  gpusPerNode: 0,
  ...r,
});
const messages = (r: Partial<ClusterRequest>, facts = gpu) =>
  checkRequest(req(r), facts).problems.map((p) => p.message);

describe('checkRequest on the test cluster (3 nodes, 4 CPUs, 2000 MiB, no GPUs)', () => {
  test('the polynomial job fits the default partition', () => {
    const c = checkRequest(req({ nodes: 3 }), test3);
    expect(c).toMatchObject({ ok: true, partition: 'debug', problems: [], warnings: [] });
    expect(describeFit(c, test3)).toBe(
      'partition debug (default): 3 of 3 nodes fit (tlnode[1-3]), time limit unlimited',
    );
    expect(requestError(c)).toBeUndefined();
  });

  test('oversized requests are refused, saying what the partition offers', () => {
    expect(messages({ nodes: 4 }, test3)).toEqual([
      '--nodes: 4 is more than partition debug holds (3 nodes: tlnode[1-3])',
    ]);
    expect(messages({ tasksPerNode: 5 }, test3)).toEqual([
      '--tasks-per-node: 5 tasks per node (1 CPU each) is more than any node of partition debug has (at most 4 CPUs per node: tlnode[1-3])',
    ]);
    expect(messages({ tasksPerNode: 2, cpusPerTask: 3 }, test3)).toEqual([
      '--cpus-per-task: 2 tasks x 3 CPUs per task = 6 CPUs per node is more than any node of partition debug has (at most 4 CPUs per node: tlnode[1-3])',
    ]);
    expect(messages({ mem: '4G' }, test3)).toEqual([
      '--mem: 4G (4096 MiB) is more than any node of partition debug has (at most 2000 MiB per node: tlnode[1-3])',
    ]);
    expect(messages({ gpusPerNode: 1 }, test3)).toEqual([
      '--gpus-per-node: 1 is more than any node of partition debug has (its nodes have no GPUs: tlnode[1-3])',
    ]);
    expect(messages({ partition: 'gpu' }, test3)).toEqual([
      '--partition: "gpu" is not a partition of this cluster; partitions: debug (default)',
    ]);
  });

  test('limits that fit exactly, --mem=0 (all of it), unlimited time', () => {
    expect(
      checkRequest(
        req({ nodes: 3, tasksPerNode: 2, cpusPerTask: 2, mem: '2000M', time: '30-00:00:00' }),
        test3,
      ).ok,
    ).toBe(true);
    expect(checkRequest(req({ mem: '0' }), test3).ok).toBe(true);
    expect(checkRequest(req({ time: 'INFINITE' }), test3).ok).toBe(true);
  });

  test('every problem at once, as one INVALID_SPEC error with a hint', () => {
    const err = requestError(checkRequest(req({ nodes: 9, tasksPerNode: 8, mem: '3G' }), test3))!;
    expect(err).toBeInstanceOf(TrackLaunchError);
    expect(err.code).toBe('INVALID_SPEC');
    expect(err.exitCode).toBe(2);
    expect(err.message.split('\n')).toEqual([
      'the request does not fit the cluster:',
      '  --tasks-per-node: 8 tasks per node (1 CPU each) is more than any node of partition debug has (at most 4 CPUs per node: tlnode[1-3])',
      '  --mem: 3G (3072 MiB) is more than any node of partition debug has (at most 2000 MiB per node: tlnode[1-3])',
      '  --nodes: 9 is more than partition debug holds (3 nodes: tlnode[1-3])',
    ]);
    expect(err.hint).toBe(
      '`track-launch cluster --partition debug` shows what the cluster offers; `--no-check` skips this check.',
    );
    expect(() => assertRequestFits(req({ nodes: 4 }), test3)).toThrow(
      '--nodes: 4 is more than partition debug holds',
    );
  });
});

describe('checkRequest on a GPU cluster', () => {
  test('more GPUs per node than any node has', () => {
    expect(messages({ partition: 'gpu', gpusPerNode: 8, tasksPerNode: 8 })).toEqual([
      '--gpus-per-node: 8 is more than any node of partition gpu has (at most 4 GPUs per node: gpu-[01-04])',
    ]);
  });

  test('partition caps: MaxCPUsPerNode, MaxMemPerNode, MaxNodes, MaxTime', () => {
    expect(messages({ partition: 'gpu', tasksPerNode: 4, gpusPerNode: 4, cpusPerTask: 32 })).toEqual([
      '--cpus-per-task: 4 tasks x 32 CPUs per task = 128 CPUs per node is more than any node of partition gpu has (at most 96 CPUs per node, MaxCPUsPerNode=96: gpu-[01-03])',
    ]);
    expect(messages({ partition: 'gpu', mem: '500G' })).toEqual([
      '--mem: 500G (500 GiB) is more than any node of partition gpu has (at most 468.8 GiB per node, MaxMemPerNode=468.8 GiB: gpu-[01-03])',
    ]);
    expect(messages({ partition: 'gpu', nodes: 4 })).toEqual([
      "--nodes: 4 is over partition gpu's limit of 3 nodes per job (MaxNodes)",
    ]);
    expect(messages({ partition: 'gpu', time: '3-00:00:00' })).toEqual([
      "--time: 3-00:00:00 is over partition gpu's time limit of 2-00:00:00",
    ]);
    expect(messages({ time: '1-00:00:01' })).toEqual([
      "--time: 1-00:00:01 is over partition cpu's time limit of 1-00:00:00",
    ]);
  });

  test('nodes that fit every per-node need at once', () => {
    // 4 GPUs, 72 CPUs and 300G each: gpu-[01-03] have them (gpu-04 has 64 CPUs), enough for 2 nodes.
    expect(
      messages({ partition: 'gpu', nodes: 2, gpusPerNode: 4, tasksPerNode: 4, cpusPerTask: 18, mem: '300G' }),
    ).toEqual([]);
    expect(
      messages({ partition: 'gpu-long', nodes: 3, gpusPerNode: 4, tasksPerNode: 4, cpusPerTask: 18 }),
    ).toEqual([]);
    expect(
      messages({ partition: 'gpu-long', nodes: 3, gpusPerNode: 4, tasksPerNode: 1, cpusPerTask: 65 }),
    ).toEqual([]);
    expect(
      messages({ partition: 'gpu', nodes: 3, gpusPerNode: 4, tasksPerNode: 1, cpusPerTask: 65 }),
    ).toEqual([]);
    expect(messages({ partition: 'cpu', nodes: 2, gpusPerNode: 7 })).toEqual([
      '--nodes: 2 nodes with 7 GPUs, 1 CPU each: partition cpu has only 1 such node (cpu-002)',
    ]);
  });

  test('fits, with warnings: drained and down nodes, a DOWN partition, uneven GPUs per task', () => {
    const c = checkRequest(req({ partition: 'gpu', nodes: 3, gpusPerNode: 4, tasksPerNode: 3 }), gpu);
    expect(c.ok).toBe(true);
    expect(c.warnings).toEqual([
      'only 2 of the 4 nodes of partition gpu that fit are usable now (gpu-03 drained (GPU 2 fell off the bus [admin@2026-12-01T20:05:12]); gpu-04 down (Not responding [slurm@2026-11-30T10:05:00])); the job waits until 3 are',
      '4 GPUs per node over 3 tasks per node do not divide evenly',
    ]);
    expect(checkRequest(req({ partition: 'gpu-long' }), gpu).warnings).toEqual([
      'partition gpu-long is DOWN: jobs wait until it is UP',
    ]);
  });

  test('several partitions: fits when one does', () => {
    const c = checkRequest(req({ partition: 'cpu,gpu', gpusPerNode: 4, cpusPerTask: 60 }), gpu);
    expect(c).toMatchObject({ ok: true, partition: 'gpu' });
    expect(describeFit(c, gpu)).toBe('partition gpu: 4 of 4 nodes fit (gpu-[01-04]), time limit 2-00:00:00');
    expect(checkRequest(req({ partition: 'cpu,gpu', gpusPerNode: 4 }), gpu).partition).toBe('cpu'); // cpu-002's 7 MIG slices count
    const bad = checkRequest(req({ partition: 'cpu,gpu', gpusPerNode: 8 }), gpu);
    expect(bad.ok).toBe(false);
    expect(bad.problems.map((p) => p.message)).toEqual([
      '--gpus-per-node: 8 is more than any node of partition cpu has (at most 7 GPUs per node: cpu-002)',
      '--gpus-per-node: 8 is more than any node of partition gpu has (at most 4 GPUs per node: gpu-[01-04])',
    ]);
  });

  test('unknown partition and no default', () => {
    expect(messages({ partition: 'a100' })).toEqual([
      '--partition: "a100" is not a partition of this cluster; partitions: cpu (default), gpu, gpu-long',
    ]);
    const noDefault = { ...gpu, partitions: gpu.partitions.map((p) => ({ ...p, isDefault: false })) };
    expect(messages({}, noDefault)).toEqual([
      '--partition: this cluster has no default partition; choose one of: cpu, gpu, gpu-long',
    ]);
  });
});

describe('preflightCheck (what submit calls)', () => {
  const runner =
    (prefix: string): ProcessRunner =>
    async (argv) => {
      const file =
        argv[0] === 'sinfo'
          ? 'sinfo'
          : argv.includes('partition')
            ? 'scontrol-show-partition'
            : 'scontrol-show-node';
      return { argv, code: 0, stdout: fixture(`${prefix}.${file}.txt`), stderr: '' };
    };

  test('a JobSpec is a ClusterRequest; the fit line and warnings', async () => {
    const spec = {
      nodes: 3,
      tasksPerNode: 1,
      gpusPerNode: 0,
      cpusPerTask: undefined,
      mem: undefined,
      time: '10',
      partition: undefined,
    } as Pick<
      JobSpec,
      'nodes' | 'tasksPerNode' | 'gpusPerNode' | 'cpusPerTask' | 'mem' | 'time' | 'partition'
    >;
    const p = await preflightCheck(spec, runner('testcluster'));
    expect(p.fit).toBe('partition debug (default): 3 of 3 nodes fit (tlnode[1-3]), time limit unlimited');
    expect(p.warnings).toEqual([]);
  });

  test('refuses with INVALID_SPEC', async () => {
    const err = await preflightCheck(req({ nodes: 4 }), runner('testcluster')).catch((e) => e);
    expect(err).toBeInstanceOf(TrackLaunchError);
    expect((err as TrackLaunchError).code).toBe('INVALID_SPEC');
    expect((err as TrackLaunchError).message).toBe(
      '--nodes: 4 is more than partition debug holds (3 nodes: tlnode[1-3])',
    );
  });
});
