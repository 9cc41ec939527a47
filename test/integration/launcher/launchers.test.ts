// Issue #2: the same DDP job under mpiexec and torchrun, and the rank variables with 2 tasks per node.
import * as path from 'path';
import {
  NODE_ADDR,
  NODES,
  PYTHON,
  TRAIN,
  checkPolynomialRank,
  cli,
  clusterEnv,
  jobIdOf,
  lines,
  logFile,
  rankFacts,
  ranksWithLogs,
  requireCluster,
  said,
  statusJson,
  tmpDir,
} from './cluster';

jest.setTimeout(180_000);

const EPOCHS = 300;
const EVERY = 50;
const trainArgs = [PYTHON, TRAIN, '--epochs', String(EPOCHS), '--log-every', String(EVERY)];

describe('launchers on the test cluster', () => {
  const env = clusterEnv();
  beforeAll(() => requireCluster());

  it('mpiexec: -N 3 --launcher mpiexec completes with 3 correct rank logs', async () => {
    const runDir = path.join(tmpDir('mpiexec'), 'run');
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--launcher',
        'mpiexec',
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--',
        ...trainArgs,
      ],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    const jobId = jobIdOf(r);
    expect(ranksWithLogs(runDir)).toEqual([0, 1, 2]);
    for (const rank of [0, 1, 2]) {
      checkPolynomialRank(runDir, rank, 3, NODES[rank], EPOCHS, EVERY);
      expect(rankFacts(runDir, rank)).toMatchObject({
        rank,
        local_rank: 0,
        node_rank: rank,
        world_size: 3,
        host: NODES[rank],
        ip: NODE_ADDR[rank],
        master_addr: '10.77.77.11',
        launcher: 'mpiexec',
        exit_code: 0,
      });
    }
    expect((await statusJson(jobId, env)).job.state?.name).toBe('COMPLETED');
  });

  it('torchrun: -N 3 --tasks-per-node 2 completes with 6 rank logs; local_rank = rank % 2, node_rank = rank / 2', async () => {
    const runDir = path.join(tmpDir('torchrun'), 'run');
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--tasks-per-node',
        '2',
        '--launcher',
        'torchrun',
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--',
        ...trainArgs,
      ],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    const jobId = jobIdOf(r);
    expect(ranksWithLogs(runDir)).toEqual([0, 1, 2, 3, 4, 5]);
    const ports = new Set<number>();
    for (let rank = 0; rank < 6; rank++) {
      const node = Math.floor(rank / 2);
      checkPolynomialRank(runDir, rank, 6, NODES[node], EPOCHS, EVERY);
      const f = rankFacts(runDir, rank);
      expect(f).toMatchObject({
        rank,
        local_rank: rank % 2,
        node_rank: node,
        world_size: 6,
        local_world_size: 2,
        host: NODES[node],
        ip: NODE_ADDR[node],
        iface: 'eth0',
        master_addr: '10.77.77.11',
        launcher: 'torchrun',
        exit_code: 0,
      });
      ports.add(f.master_port);
    }
    expect(ports.size).toBe(1);
    expect((await statusJson(jobId, env)).job.state?.name).toBe('COMPLETED');
  });

  it('srun with 2 tasks per node (world size 6): every rank gets RANK, LOCAL_RANK, NODE_RANK, sizes, master, GLOO and NCCL iface', async () => {
    const runDir = path.join(tmpDir('srun2'), 'run');
    const show =
      'echo "RANK=$RANK LOCAL_RANK=$LOCAL_RANK LOCAL_WORLD_SIZE=$LOCAL_WORLD_SIZE NODE_RANK=$NODE_RANK WORLD_SIZE=$WORLD_SIZE MASTER_ADDR=$MASTER_ADDR GLOO=$GLOO_SOCKET_IFNAME NCCL=$NCCL_SOCKET_IFNAME HOST=$(hostname)"';
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--tasks-per-node',
        '2',
        '--follow',
        '--poll',
        '0.5',
        '--run-dir',
        runDir,
        '--',
        'bash',
        '-c',
        show,
      ],
      { env },
    );
    expect({ code: r.code, out: said(r) }).toMatchObject({ code: 0 });
    expect(ranksWithLogs(runDir)).toEqual([0, 1, 2, 3, 4, 5]);
    for (let rank = 0; rank < 6; rank++) {
      const node = Math.floor(rank / 2);
      expect(lines(logFile(runDir, `rank-${rank}.out`))).toEqual([
        `RANK=${rank} LOCAL_RANK=${rank % 2} LOCAL_WORLD_SIZE=2 NODE_RANK=${node} WORLD_SIZE=6 MASTER_ADDR=10.77.77.11 GLOO=eth0 NCCL=eth0 HOST=${NODES[node]}`,
      ]);
      expect(rankFacts(runDir, rank)).toMatchObject({
        rank,
        local_rank: rank % 2,
        node_rank: node,
        world_size: 6,
        local_world_size: 2,
        host: NODES[node],
        exit_code: 0,
      });
    }
  });
});
