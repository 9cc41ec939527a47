// Issue 16, item 1: master discovery on a multi-homed master node. Node 1 gets a second interface,
// tlpub0 (192.0.2.11/24, TEST-NET-1), whose other end lives in a throwaway namespace no other node
// reaches, and its default route goes through it: a "public NIC". Today's rule (the default route's
// interface) publishes 192.0.2.11, which tlnode2 and tlnode3 cannot reach; the bootstrap must publish
// the address its peers reach (10.77.77.11, on the cluster bridge) without any discovery flag.
// Nothing is sent beyond the throwaway namespace; afterAll removes the interface, the route and the
// namespace, also when a test failed.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import type { RankFacts } from '../../../core/rundir/layout';
import {
  NODE_ADDR,
  NODES,
  PYTHON,
  REPO,
  TRAIN,
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  rankFacts,
  requireCluster,
  said,
  tmpDir,
} from './cluster';

jest.setTimeout(180_000);

const NODE1_NS = 'tl-node1'; // test/cluster/common.sh: tlc_node_ns 1
const NODE2_NS = 'tl-node2';
const PUB_NS = `tl-pub-${process.pid}`; // the far end of the "public" NIC
const PUB_IF = 'tlpub0'; // not veth*: net.sh must take it for a physical NIC
const PUB_ADDR = '192.0.2.11';
const PUB_GW = '192.0.2.1';
const NET_SH = path.join(REPO, 'sbatch', 'lib', 'net.sh');

function sh(argv: string[]) {
  const r = spawnSync(argv[0], argv.slice(1), { encoding: 'utf8', timeout: 20_000 });
  return { code: r.status, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function must(argv: string[]): string {
  const r = sh(argv);
  if (r.code !== 0) throw new Error(`${argv.join(' ')} failed (exit ${r.code}): ${r.stderr}`);
  return r.stdout;
}

/** Runs `fn args...` from net.sh in bash inside a node's network namespace. */
function inNode(ns: string, fn: string, args: string[]) {
  return sh([
    'nsenter',
    `--net=/var/run/netns/${ns}`,
    '/bin/bash',
    '-c',
    'set -euo pipefail; . "$0"; "$@"',
    NET_SH,
    fn,
    ...args,
  ]);
}

let originalDefault = ''; // node 1's default route before the test (none on the test cluster)
const jobs: string[] = [];

function restore(): string[] {
  const errors: string[] = [];
  const step = (argv: string[], okIf?: RegExp) => {
    const r = sh(argv);
    if (r.code !== 0 && !(okIf && okIf.test(r.stderr))) errors.push(`${argv.join(' ')}: ${r.stderr.trim()}`);
  };
  // Deleting tlpub0 deletes its peer and the routes through it.
  step(['ip', '-n', NODE1_NS, 'link', 'del', PUB_IF], /Cannot find device/);
  if (originalDefault)
    step(['ip', '-n', NODE1_NS, 'route', 'replace', ...originalDefault.trim().split(/\s+/)]);
  step(['ip', 'netns', 'del', PUB_NS], /No such file|Invalid argument/);
  return errors;
}

beforeAll(() => {
  requireCluster();
  // A namespace left by an earlier run of this test that died before its afterAll.
  for (const ns of must(['ip', 'netns', 'list'])
    .split('\n')
    .map((l) => l.split(' ')[0])) {
    const m = /^tl-pub-(\d+)$/.exec(ns);
    if (m && !fs.existsSync(`/proc/${m[1]}`)) sh(['ip', 'netns', 'del', ns]);
  }
  sh(['ip', '-n', NODE1_NS, 'link', 'del', PUB_IF]);
  originalDefault = must(['ip', '-n', NODE1_NS, '-4', 'route', 'show', 'default']).split('\n')[0] ?? '';
  try {
    must(['ip', 'netns', 'add', PUB_NS]);
    must([
      'ip',
      'link',
      'add',
      PUB_IF,
      'netns',
      NODE1_NS,
      'type',
      'veth',
      'peer',
      'name',
      `${PUB_IF}p`,
      'netns',
      PUB_NS,
    ]);
    must(['ip', '-n', NODE1_NS, 'addr', 'add', `${PUB_ADDR}/24`, 'dev', PUB_IF]);
    must(['ip', '-n', PUB_NS, 'addr', 'add', `${PUB_GW}/24`, 'dev', `${PUB_IF}p`]);
    must(['ip', '-n', PUB_NS, 'link', 'set', 'lo', 'up']);
    must(['ip', '-n', PUB_NS, 'link', 'set', `${PUB_IF}p`, 'up']);
    must(['ip', '-n', NODE1_NS, 'link', 'set', PUB_IF, 'up']);
    must(['ip', '-n', NODE1_NS, 'route', 'replace', 'default', 'via', PUB_GW, 'dev', PUB_IF]);
  } catch (e) {
    restore();
    throw e;
  }
});

afterAll(() => {
  cancelJobs(jobs);
  const errors = restore();
  if (errors.length) throw new Error(`could not restore ${NODE1_NS}:\n${errors.join('\n')}`);
});

describe('a master node whose default route is a NIC the other nodes cannot reach', () => {
  it("makes today's rule fail: it picks the public address, which node 2 has no route to", () => {
    const picked = inNode(NODE1_NS, 'tl_pick_address', ['', '']);
    expect(picked).toMatchObject({ code: 0, stdout: `${PUB_IF} ${PUB_ADDR}\n` });
    const route = inNode(NODE2_NS, 'tl_route_to', [PUB_ADDR]);
    expect(route.code).toBe(1);
    expect(route.stderr).toContain(`has no route to the master ${PUB_ADDR}`);
    // The rank-side choice among candidates fails the same way, in one line naming the flags.
    const chosen = inNode(NODE2_NS, 'tl_choose_master', ['rank 1 on tlnode2', 'tlnode1', PUB_ADDR]);
    expect(chosen.code).toBe(1);
    expect(chosen.stderr).toMatch(
      new RegExp(
        `^track-launch: rank 1 on tlnode2 has no route to the master \\(tlnode1\\) at any of its addresses ${PUB_ADDR.replace(/\./g, '\\.')}; this node's addresses: eth0 ${NODE_ADDR[1].replace(/\./g, '\\.')}/24\\. Set --master-iface IFACE or --master-cidr CIDR .*\\n$`,
      ),
    );
  });

  it('completes a 3-node job without discovery flags, every rank on the cluster address of node 1', async () => {
    const env = clusterEnv();
    const runDir = path.join(tmpDir('multi-homed'), 'run');
    const r = await cli(
      [
        'submit',
        '-N',
        '3',
        '--follow',
        '--poll',
        '0.5',
        '--rendezvous-timeout',
        '60',
        '--run-dir',
        runDir,
        '--',
        PYTHON,
        TRAIN,
        '--epochs',
        '20',
        '--log-every',
        '10',
      ],
      { env },
    );
    const m = /Submitted job (\d+)/.exec(r.stderr);
    if (m) jobs.push(m[1]);
    if (r.code !== 0) throw new Error(`submit --follow failed:\n${said(r)}`);
    const jobId = jobIdOf(r);
    expect(r.stderr).toContain(`job ${jobId} COMPLETED`);

    const facts = [0, 1, 2].map(
      (rank) => rankFacts(runDir, rank) as RankFacts & { master_candidates?: string[] },
    );
    // -N 3 on the 3-node cluster: rank 0 (the publisher) on tlnode1, the node with the public NIC.
    expect(facts.map((f) => f.host)).toEqual(NODES);
    facts.forEach((f, rank) => {
      expect(f).toMatchObject({
        rank,
        exit_code: 0,
        master_addr: NODE_ADDR[0],
        ip: NODE_ADDR[rank],
        iface: 'eth0',
        master_candidates: [NODE_ADDR[0]],
      });
    });
    expect(facts.every((f) => f.master_port === facts[0].master_port)).toBe(true);
    expect(fs.readFileSync(path.join(runDir, 'logs', 'job.out'), 'utf8')).not.toContain(PUB_ADDR);
  });
});
