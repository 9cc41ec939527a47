// Master address and socket interface selection in sbatch/lib/net.sh, run in bash against a stub
// `ip` that answers from iproute2 output recorded for a few hosts (test/fixtures/net/, see record.sh
// there). The stub refuses commands net.sh is not expected to run, so a changed command fails too.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

const ROOT = path.resolve(__dirname, '../../..');
const NET_SH = path.join(ROOT, 'sbatch/lib/net.sh');
const HOSTS = path.join(ROOT, 'test/fixtures/net');
const HOSTNAME = 'tlnode7';

let tmp: string;
let bin: string; // fake ip + fake hostname
let noIpBin: string; // fake hostname only
beforeAll(() => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-net-'));
  bin = path.join(tmp, 'bin');
  noIpBin = path.join(tmp, 'noip');
  for (const d of [bin, noIpBin]) {
    fs.mkdirSync(d);
    fs.writeFileSync(path.join(d, 'hostname'), `#!/bin/sh\necho ${HOSTNAME}\n`, { mode: 0o755 });
  }
  fs.copyFileSync(path.join(HOSTS, 'fake-ip'), path.join(bin, 'ip'));
  fs.chmodSync(path.join(bin, 'ip'), 0o755);
});
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }));

interface Result {
  code: number | null;
  stdout: string;
  stderr: string;
  ipCalls: string[];
}

/** Runs `fn args...` from net.sh on `host` under the bootstrap's shell options. */
function net(
  host: string,
  fn: string,
  args: string[],
  opts: { pathDirs?: string[]; env?: Record<string, string> } = {},
): Result {
  const log = path.join(tmp, `ip-${process.hrtime.bigint()}.log`);
  const r = spawnSync('/bin/bash', ['-c', 'set -euo pipefail; . "$NET_SH"; "$@"', 'bash', fn, ...args], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'], // stdin a socket (libuv) would make bash read ~/.bashrc
    env: {
      PATH: (opts.pathDirs ?? [bin, process.env.PATH ?? '/usr/bin:/bin']).join(path.delimiter),
      LC_ALL: 'C',
      NET_SH,
      FAKE_IP_HOST: path.join(HOSTS, host),
      FAKE_IP_LOG: log,
      ...opts.env,
    },
  });
  const ipCalls = fs.existsSync(log) ? fs.readFileSync(log, 'utf8').trim().split('\n') : [];
  return { code: r.status, stdout: r.stdout, stderr: r.stderr, ipCalls };
}

const pick = (host: string, iface = '', cidr = '') => net(host, 'tl_pick_address', [iface, cidr]);
const routeTo = (host: string, master: string) => net(host, 'tl_route_to', [master]);

function expectPicked(r: Result, line: string) {
  expect(r.stderr).toBe('');
  expect(r.stdout).toBe(`${line}\n`);
  expect(r.code).toBe(0);
}

function expectFailed(r: Result, message: string) {
  expect(r.stdout).toBe('');
  expect(r.stderr).toBe(`${message}\n`);
  expect(r.code).toBe(1);
}

describe('tl_pick_address: the default-route interface, else the first global address', () => {
  test('lo + eth0 (default route) + docker0: eth0', () => {
    const r = pick('docker-host');
    expectPicked(r, 'eth0 10.20.0.11');
    expect(r.ipCalls).toEqual(['-4 -o route show default', '-4 -o addr show scope global']);
  });

  test('the default-route interface wins over global addresses listed before it', () => {
    // hpc-node lists eno1 (10.10.3.21) and ib0 (10.1.4.17) before eno2, which holds the default route.
    expectPicked(pick('hpc-node'), 'eno2 192.168.50.21');
  });

  test('a host bridge named br0 is a real interface (only docker networks br-<id> are skipped)', () => {
    expectPicked(pick('bridged-host'), 'br0 10.20.0.12');
  });

  test('no default route: the first global address after lo, link-local, bridges, veth and CNI ones', () => {
    // no-default lists, in order: lo 10.255.0.17/32 (scope global), eth0 169.254.10.20 (scope global),
    // eth1 169.254.77.3 (scope link), docker0, br-3f2a9c1d7e60, virbr0, lxcbr0, podman0, vethb1c2d3e,
    // cni0, flannel.1, vxlan.calico, kube-ipvs0, and last ens1f0: any of them not skipped would win.
    expectPicked(pick('no-default'), 'ens1f0 10.30.4.17');
  });

  test('only link-local and bridge addresses: a clear failure', () => {
    expectFailed(
      pick('isolated'),
      `track-launch: ${HOSTNAME} has no routable IPv4 address (only loopback, link-local or bridge ones); set --master-iface or --master-cidr`,
    );
  });

  test('no ip (iproute2) on PATH: says so', () => {
    const r = net('docker-host', 'tl_pick_address', ['', ''], { pathDirs: [noIpBin] });
    expectFailed(
      r,
      `track-launch: 'ip' (iproute2) is not installed on ${HOSTNAME}; it is needed to find this node's address`,
    );
  });

  const skipped = [
    'lo',
    'docker0',
    'docker_gwbridge',
    'br-3f2a9c1d7e60',
    'virbr0',
    'veth1a2b3c4',
    'cni0',
    'flannel.1',
    'cali5f1e8a9b2c3',
    'vxlan.calico',
    'wireguard.cali',
    'lxcbr0',
    'podman0',
    'kube-ipvs0',
    'tunl0',
    'dummy0',
  ];
  const kept = ['eth0', 'eno1', 'ens1f0', 'enp65s0f0', 'ib0', 'bond0', 'br0', 'eth0.100', 'team0', 'hsn0'];
  test('tl_iface_excluded: container, VM and CNI interfaces only', () => {
    const names = [...skipped, ...kept];
    const script =
      'for n in "$@"; do if tl_iface_excluded "$n"; then echo "$n skip"; else echo "$n keep"; fi; done';
    const r = spawnSync('/bin/bash', ['-c', `. "${NET_SH}"; ${script}`, 'bash', ...names], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    expect(r.stdout.trim().split('\n')).toEqual([
      ...skipped.map((n) => `${n} skip`),
      ...kept.map((n) => `${n} keep`),
    ]);
  });
});

describe('--master-iface', () => {
  test('the named interface, over the default route', () => {
    expectPicked(pick('hpc-node', 'ib0'), 'ib0 10.1.4.17');
    expectPicked(pick('hpc-node', 'eno1'), 'eno1 10.10.3.21');
  });

  test('an explicit interface is used even when it is a bridge', () => {
    expectPicked(pick('hpc-node', 'docker0'), 'docker0 172.17.0.1');
  });

  test('the name must match exactly', () => {
    expectFailed(
      pick('hpc-node', 'eno'),
      `track-launch: interface 'eno' (--master-iface) has no usable IPv4 address on ${HOSTNAME}`,
    );
  });

  test('an interface that does not exist: a clear failure naming it', () => {
    expectFailed(
      pick('hpc-node', 'eth9'),
      `track-launch: interface 'eth9' (--master-iface) has no usable IPv4 address on ${HOSTNAME}`,
    );
  });

  test('an interface with only link-local IPv4 (scope global or scope link): a clear failure', () => {
    for (const iface of ['eth0', 'eth1'])
      expectFailed(
        pick('no-default', iface),
        `track-launch: interface '${iface}' (--master-iface) has no usable IPv4 address on ${HOSTNAME}`,
      );
  });
});

describe('--master-cidr', () => {
  test.each([
    ['10.1.0.0/16', 'ib0 10.1.4.17'],
    ['10.10.0.0/16', 'eno1 10.10.3.21'],
    ['192.168.50.0/24', 'eno2 192.168.50.21'],
    ['10.1.4.16/28', 'ib0 10.1.4.17'],
    ['10.0.0.0/8', 'eno1 10.10.3.21'], // eno1 and ib0 both match: the first listed
  ])('%s on hpc-node -> %s', (cidr, expected) => {
    expectPicked(pick('hpc-node', '', cidr), expected);
  });

  test('no address inside the CIDR: a clear failure naming it', () => {
    for (const cidr of ['10.99.0.0/16', '10.1.4.0/28'])
      expectFailed(
        pick('hpc-node', '', cidr),
        `track-launch: no IPv4 address of ${HOSTNAME} lies in ${cidr} (--master-cidr)`,
      );
  });

  test('link-local addresses are never picked, even inside the CIDR', () => {
    expectFailed(
      pick('no-default', '', '169.254.0.0/16'),
      `track-launch: no IPv4 address of ${HOSTNAME} lies in 169.254.0.0/16 (--master-cidr)`,
    );
  });

  test('tl_ip_in_cidr: prefix boundaries', () => {
    const cases: Array<[string, string, boolean]> = [
      ['10.1.4.17', '10.1.0.0/16', true],
      ['10.2.4.17', '10.1.0.0/16', false],
      ['10.1.4.17', '10.1.4.16/28', true],
      ['10.1.4.17', '10.1.4.0/28', false],
      ['10.1.4.17', '10.1.4.17/32', true],
      ['10.1.4.18', '10.1.4.17/32', false],
      ['10.1.4.17', '0.0.0.0/0', true],
      ['255.255.255.255', '255.0.0.0/8', true],
      ['192.168.50.21', '192.168.0.0/16', true],
      ['192.169.50.21', '192.168.0.0/16', false],
      ['10.1.4.17', '10.1.0.0/33', false],
      ['10.1.4.17', '10.1.0.0', false],
    ];
    const script =
      'while (($#)); do if tl_ip_in_cidr "$1" "$2"; then echo yes; else echo no; fi; shift 2; done';
    const r = spawnSync(
      '/bin/bash',
      ['-c', `. "${NET_SH}"; ${script}`, 'bash', ...cases.flatMap(([a, c]) => [a, c])],
      {
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    expect(r.stderr).toBe('');
    expect(r.stdout.trim().split('\n')).toEqual(cases.map(([, , inside]) => (inside ? 'yes' : 'no')));
  });
});

describe('tl_route_to: the interface towards the master (GLOO_SOCKET_IFNAME / NCCL_SOCKET_IFNAME)', () => {
  test.each([
    ['hpc-node', '10.1.0.5', 'ib0 10.1.4.17'], // on-link over InfiniBand, not the default-route NIC
    ['hpc-node', '10.10.0.7', 'eno1 10.10.3.21'],
    ['hpc-node', '172.31.9.9', 'eno2 192.168.50.21'], // via the default gateway
    ['docker-host', '10.20.0.12', 'eth0 10.20.0.11'],
    ['bridged-host', '10.20.0.11', 'br0 10.20.0.12'],
    ['no-default', '10.30.4.20', 'ens1f0 10.30.4.17'],
  ])('%s, master %s -> %s', (host, master, expected) => {
    const r = routeTo(host, master);
    expectPicked(r, expected);
    expect(r.ipCalls).toEqual([`-4 -o route get ${master}`]);
  });

  test('the master is this node: the interface holding its address, not lo', () => {
    const r = routeTo('hpc-node', '10.1.4.17');
    expectPicked(r, 'ib0 10.1.4.17');
    expect(r.ipCalls).toEqual(['-4 -o route get 10.1.4.17', '-4 -o addr show']);
    expectPicked(routeTo('hpc-node', '192.168.50.21'), 'eno2 192.168.50.21');
    expectPicked(routeTo('docker-host', '10.20.0.11'), 'eth0 10.20.0.11');
  });

  test('no route to the master: a clear failure naming it', () => {
    expectFailed(
      routeTo('no-default', '10.1.0.5'),
      `track-launch: ${HOSTNAME} has no route to the master 10.1.0.5`,
    );
    expectFailed(
      routeTo('isolated', '10.1.0.5'),
      `track-launch: ${HOSTNAME} has no route to the master 10.1.0.5`,
    );
  });
});

// --- multi-homed nodes (issue 16): the master's addresses chosen for its peers -------------------
// Hosts recorded by test/fixtures/net/record-multi-homed.sh. A stub `scontrol` answers
// `show hostnames` and `-o show node LIST` with the job's nodes as slurmctld would; a stub `getent`
// resolves node names that are not addresses.

let slurmBin: string; // fake scontrol + getent, put on PATH before the fake ip
beforeAll(() => {
  slurmBin = path.join(tmp, 'slurm');
  fs.mkdirSync(slurmBin);
  fs.writeFileSync(
    path.join(slurmBin, 'scontrol'),
    `#!/bin/sh
printf '%s\\n' "$*" >>"$FAKE_SCONTROL_LOG"
if [ -n "\${FAKE_SCONTROL_FAIL:-}" ]; then
  echo "slurm_load_node error: Unable to contact slurm controller (connect failure)" >&2; exit 1
fi
case "$*" in
  "show hostnames $FAKE_NODELIST") printf '%s\\n' "$FAKE_HOSTNAMES" ;;
  "-o show node $FAKE_NODELIST") cat "$FAKE_NODES_FILE" ;;
  *) echo "fake scontrol: unexpected arguments: $*" >&2; exit 99 ;;
esac
`,
    { mode: 0o755 },
  );
  fs.writeFileSync(
    path.join(slurmBin, 'getent'),
    `#!/bin/sh
printf '%s\\n' "$*" >>"$FAKE_GETENT_LOG"
[ "$1" = ahostsv4 ] || exit 99
shift; rc=0
for n in "$@"; do
  a=$(printf '%s\\n' "$FAKE_HOSTS" | awk -v n="$n" '$1 == n { print $2 }')
  if [ -n "$a" ]; then printf '%-15s STREAM %s\\n%-15s DGRAM  \\n%-15s RAW    \\n' "$a" "$n" "$a" "$a"; else rc=2; fi
done
exit $rc
`,
    { mode: 0o755 },
  );
});

interface Job {
  /** [NodeName, NodeAddr] of every node of the job, this one included, in Slurm's order. */
  nodes: Array<[string, string]>;
  self?: string; // SLURMD_NODENAME
  nodelist?: string;
  aliases?: string; // SLURM_NODE_ALIASES
  hosts?: Array<[string, string]>; // what getent resolves
  scontrolFails?: boolean;
}

interface SlurmResult extends Result {
  scontrolCalls: string[];
  getentCalls: string[];
}

const readLog = (f: string) => (fs.existsSync(f) ? fs.readFileSync(f, 'utf8').trim().split('\n') : []);

/** tl_pick_candidates on `host` inside the job `job` (none: outside Slurm). */
function candidates(
  host: string,
  job?: Job,
  opts: { iface?: string; cidr?: string; noScontrol?: boolean } = {},
): SlurmResult {
  const id = process.hrtime.bigint();
  const scontrolLog = path.join(tmp, `scontrol-${id}.log`);
  const getentLog = path.join(tmp, `getent-${id}.log`);
  const env: Record<string, string> = { FAKE_SCONTROL_LOG: scontrolLog, FAKE_GETENT_LOG: getentLog };
  if (job) {
    const nodelist = job.nodelist ?? 'tlnode[1-3]';
    Object.assign(env, {
      SLURM_JOB_NODELIST: nodelist,
      SLURMD_NODENAME: job.self ?? job.nodes[0][0],
      FAKE_NODELIST: nodelist,
      FAKE_HOSTNAMES: job.nodes.map(([n]) => n).join('\n'),
      FAKE_NODES_FILE: path.join(tmp, `nodes-${id}.txt`),
      FAKE_HOSTS: (job.hosts ?? []).map(([n, a]) => `${n} ${a}`).join('\n'),
    });
    fs.writeFileSync(
      env.FAKE_NODES_FILE,
      job.nodes
        .map(
          ([n, a]) =>
            `NodeName=${n} Arch=x86_64 CoresPerSocket=1  CPUAlloc=1 CPUEfctv=4 CPUTot=4 NodeAddr=${a} NodeHostName=${n} Version=23.02.6 State=ALLOCATED Reason=maintenance window next week [root@2024-05-01T10:00:00]`,
        )
        .join('\n') + '\n',
    );
    if (job.aliases !== undefined) env.SLURM_NODE_ALIASES = job.aliases;
    if (job.scontrolFails) env.FAKE_SCONTROL_FAIL = '1';
  }
  const pathDirs = [...(opts.noScontrol ? [] : [slurmBin]), bin, process.env.PATH ?? '/usr/bin:/bin'];
  const r = net(host, 'tl_pick_candidates', [opts.iface ?? '', opts.cidr ?? ''], { pathDirs, env });
  return { ...r, scontrolCalls: readLog(scontrolLog), getentCalls: readLog(getentLog) };
}

const job3 = (a1: string, a2: string, a3: string): Job => ({
  nodes: [
    ['tlnode1', a1],
    ['tlnode2', a2],
    ['tlnode3', a3],
  ],
});

describe('tl_pick_candidates: the addresses the peers reach, from the routes to their NodeAddr', () => {
  test('default route on a public NIC, cluster network on eth1: the eth1 address, not the default-route one', () => {
    // Today's rule (tl_pick_address) takes the default route's interface: the peers cannot reach it.
    expectPicked(pick('public-default'), 'eth0 203.0.113.5');
    const r = candidates('public-default', job3('10.40.0.5', '10.40.0.6', '10.40.0.7'));
    expectPicked(r, '10.40.0.5');
    // One controller call for all nodes; one route lookup per peer, never one for this node.
    expect(r.scontrolCalls).toEqual(['-o show node tlnode[1-3]']);
    expect(r.ipCalls).toEqual(['-4 -o route get 10.40.0.6', '-4 -o route get 10.40.0.7']);
  });

  test('management NIC with the default route, InfiniBand and Ethernet cluster networks: both, IB first', () => {
    expectPicked(pick('mgmt-ib'), 'eno1 192.168.99.5'); // the "no route to the master 192.168.99.5"
    const nodes: Array<[string, string]> = [
      ['hn1', '10.1.4.17'],
      ['hn2', '10.10.3.19'], // an Ethernet-only node, listed first
      ['hn3', '10.1.4.18'],
      ['hn4', '10.1.4.19'],
    ];
    const r = candidates('mgmt-ib', { nodes, nodelist: 'hn[1-4]' });
    // ib0 reaches two peers, eno2 one: the address reaching the most peers first.
    expectPicked(r, '10.1.4.17\n10.10.3.17');
  });

  test('public + private with a private gateway: the private address (a gateway that is not the default route)', () => {
    expectPicked(pick('public-private'), 'ens3 198.51.100.20');
    expectPicked(candidates('public-private', job3('10.0.5.20', '10.0.7.30', '10.0.5.21')), '10.0.5.20');
  });

  test('a source reaching its peers on-link ranks before one reaching more of them through a gateway', () => {
    const nodes: Array<[string, string]> = [
      ['n1', '10.40.0.5'],
      ['n2', '10.99.0.1'], // through the public default gateway
      ['n3', '10.99.0.1'], // same address twice (one node counted once per address)
      ['n4', '10.40.0.6'],
    ];
    const r = candidates('public-default', { nodes, nodelist: 'n[1-4]' });
    expectPicked(r, '10.40.0.5\n203.0.113.5');
    expect(r.ipCalls).toEqual(['-4 -o route get 10.99.0.1', '-4 -o route get 10.40.0.6']);
  });

  test('--master-iface / --master-cidr still win, without asking Slurm', () => {
    const j = job3('10.40.0.5', '10.40.0.6', '10.40.0.7');
    const byIface = candidates('public-default', j, { iface: 'eth0' });
    expectPicked(byIface, '203.0.113.5');
    expect(byIface.scontrolCalls).toEqual([]);
    const byCidr = candidates('mgmt-ib', j, { cidr: '10.10.0.0/16' });
    expectPicked(byCidr, '10.10.3.17');
    expect(byCidr.scontrolCalls).toEqual([]);
    expectFailed(
      candidates('public-default', j, { iface: 'ib0' }),
      `track-launch: interface 'ib0' (--master-iface) has no usable IPv4 address on ${HOSTNAME}`,
    );
  });

  test("outside Slurm, without scontrol, or when slurmctld does not answer: today's rule", () => {
    const j = job3('10.40.0.5', '10.40.0.6', '10.40.0.7');
    const local = candidates('public-default');
    expectPicked(local, '203.0.113.5');
    expect(local.scontrolCalls).toEqual([]);
    expect(local.ipCalls).toEqual(['-4 -o route show default', '-4 -o addr show scope global']);
    expectPicked(candidates('public-default', j, { noScontrol: true }), '203.0.113.5');
    const down = candidates('public-default', { ...j, scontrolFails: true });
    expectPicked(down, '203.0.113.5');
    expect(down.scontrolCalls).toEqual(['-o show node tlnode[1-3]']);
  });

  test('peers this node has no route to: the fallback, and its failure when there is nothing routable', () => {
    const r = candidates('isolated', job3('10.1.0.4', '10.1.0.5', '10.1.0.6'));
    expectFailed(
      r,
      `track-launch: ${HOSTNAME} has no routable IPv4 address (only loopback, link-local or bridge ones); set --master-iface or --master-cidr`,
    );
  });

  test('SLURM_NODE_ALIASES naming every other node: no controller call', () => {
    const r = candidates('public-default', {
      ...job3('10.40.0.5', '10.77.0.1', '10.77.0.2'), // NodeAddr the aliases replace
      aliases: 'tlnode2:10.40.0.6:tlnode2,tlnode3:[10.40.0.7]:tlnode3',
    });
    expectPicked(r, '10.40.0.5');
    expect(r.scontrolCalls).toEqual(['show hostnames tlnode[1-3]']);
    expect(r.ipCalls).toEqual(['-4 -o route get 10.40.0.6', '-4 -o route get 10.40.0.7']);
  });

  test('SLURM_NODE_ALIASES naming some nodes: they win over NodeAddr, scontrol gives the rest', () => {
    const r = candidates('public-default', {
      ...job3('10.40.0.5', '10.77.0.1', '10.40.0.7'),
      aliases: 'tlnode2:10.40.0.6:tlnode2',
    });
    expectPicked(r, '10.40.0.5');
    expect(r.scontrolCalls).toEqual(['show hostnames tlnode[1-3]', '-o show node tlnode[1-3]']);
    expect(r.ipCalls).toEqual(['-4 -o route get 10.40.0.6', '-4 -o route get 10.40.0.7']);
    // "(null)" is Slurm's way of saying none.
    expectPicked(
      candidates('public-default', { ...job3('10.40.0.5', '10.40.0.6', '10.40.0.7'), aliases: '(null)' }),
      '10.40.0.5',
    );
  });

  test('NodeAddr that are host names: resolved in one getent call', () => {
    const r = candidates('mgmt-ib', {
      nodes: [
        ['hn1', 'hn1-ib'],
        ['hn2', 'hn2-ib'],
        ['hn3', 'hn3-eth'],
        ['hn4', 'hn4-gone'],
      ],
      nodelist: 'hn[1-4]',
      hosts: [
        ['hn2-ib', '10.1.4.18'],
        ['hn3-eth', '10.10.3.19'],
      ],
    });
    expectPicked(r, '10.1.4.17\n10.10.3.17');
    expect(r.getentCalls).toEqual(['ahostsv4 hn2-ib hn3-eth hn4-gone']);
  });

  test('a thousand-node job: one route lookup per /24 past 64 peers', () => {
    const nodes: Array<[string, string]> = [['n0', '10.40.0.5']];
    for (let i = 1; i < 1000; i++) nodes.push([`n${i}`, `10.40.${Math.floor(i / 200)}.${6 + (i % 200)}`]);
    const r = candidates('public-default', { nodes, nodelist: 'n[0-999]' });
    expectPicked(r, '10.40.0.5');
    expect(r.ipCalls).toEqual([0, 1, 2, 3, 4].map((k) => `-4 -o route get 10.40.${k}.${k === 0 ? 7 : 6}`));
  });
});

describe('tl_choose_master: each rank takes the first candidate it reaches, non-default routes first', () => {
  const choose = (host: string, cands: string[]) =>
    net(host, 'tl_choose_master', [`rank 1 on ${HOSTNAME}`, 'tlnode1', ...cands]);

  test.each([
    ['public-default-peer', ['10.40.0.5'], '10.40.0.5'],
    ['mgmt-ib-peer', ['10.1.4.17', '10.10.3.17'], '10.1.4.17'],
    // No InfiniBand here: 10.1.4.17 only through the default gateway, so the Ethernet candidate.
    ['mgmt-eth-peer', ['10.1.4.17', '10.10.3.17'], '10.10.3.17'],
    // Only through the default route: still taken, as a last resort.
    ['mgmt-eth-peer', ['192.168.99.5'], '192.168.99.5'],
    // A gateway that is not the default route counts as a route to the cluster network.
    ['public-private-peer', ['10.0.5.20'], '10.0.5.20'],
    // The ranks on the master's own node: its own (local) address.
    ['mgmt-ib', ['10.1.4.17', '10.10.3.17'], '10.1.4.17'],
  ])('%s, candidates %j -> %s', (host, cands, expected) => {
    const r = choose(host, cands);
    expectPicked(r, expected);
    expect(r.ipCalls[0]).toBe('-4 -o route show default');
  });

  test('no candidate reachable: one line naming the candidates, its own addresses and the flags', () => {
    // What a rank of today's code met: the master published its public default-route address.
    expectFailed(
      choose('public-default-peer', ['203.0.113.5']),
      `track-launch: rank 1 on ${HOSTNAME} has no route to the master (tlnode1) at any of its addresses 203.0.113.5; ` +
        `this node's addresses: eth1 10.40.0.6/16. Set --master-iface IFACE or --master-cidr CIDR to the master's interface or network that every node reaches.`,
    );
    expectFailed(
      choose('isolated', ['10.1.4.17', '10.10.3.17']),
      `track-launch: rank 1 on ${HOSTNAME} has no route to the master (tlnode1) at any of its addresses 10.1.4.17 10.10.3.17; ` +
        `this node's addresses: eth0 169.254.10.20/16, docker0 172.17.0.1/16. Set --master-iface IFACE or --master-cidr CIDR to the master's interface or network that every node reaches.`,
    );
  });
});

describe('rendezvous file: the candidates line', () => {
  const RDZV_SH = path.join(ROOT, 'sbatch/lib/rendezvous.sh');
  /** Runs a script with net.sh and rendezvous.sh sourced, in a fresh directory ($D). */
  function rdzv(script: string) {
    const d = fs.mkdtempSync(path.join(tmp, 'rdzv-'));
    const r = spawnSync('/bin/bash', ['-c', `set -euo pipefail; . "$NET_SH"; . "$RDZV_SH"; ${script}`], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { PATH: [bin, process.env.PATH ?? '/usr/bin:/bin'].join(path.delimiter), NET_SH, RDZV_SH, D: d },
    });
    return { code: r.status, stdout: r.stdout, stderr: r.stderr, dir: d };
  }
  const show =
    'printf "%s|%s|%s|%s\\n" "$TL_RDZV_ADDR" "$TL_RDZV_PORT" "$TL_RDZV_HOST" "${TL_RDZV_CANDIDATES[*]}"';

  test('published with candidates: addr is the first, old readers see the same addr and port', () => {
    const r = rdzv(
      `tl_publish "$D/rdzv/j.r0.a0.addr" 10.1.4.17 29500 10.1.4.17 10.10.3.17; tl_read_rendezvous "$D/rdzv/j.r0.a0.addr"; ${show}`,
    );
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`10.1.4.17|29500|${HOSTNAME}|10.1.4.17 10.10.3.17\n`);
    expect(fs.readFileSync(path.join(r.dir, 'rdzv/j.r0.a0.addr'), 'utf8')).toBe(
      `version=1\naddr=10.1.4.17\nport=29500\nhost=${HOSTNAME}\ncandidates=10.1.4.17,10.10.3.17\n`,
    );
  });

  test('a file without the line (older bootstrap, local executor): addr is the only candidate', () => {
    const r = rdzv(`tl_publish "$D/f" 127.0.0.1 29501; tl_read_rendezvous "$D/f"; ${show}`);
    expect(r.stdout).toBe(`127.0.0.1|29501|${HOSTNAME}|127.0.0.1\n`);
    expect(fs.readFileSync(path.join(r.dir, 'f'), 'utf8')).toBe(
      `version=1\naddr=127.0.0.1\nport=29501\nhost=${HOSTNAME}\n`,
    );
  });

  test('malformed candidates: refused (exit 2) with the content', () => {
    const r = rdzv(
      `printf 'version=1\\naddr=10.1.4.17\\nport=29500\\ncandidates=10.1.4.17,ib0\\n' >"$D/f"; rc=0; tl_read_rendezvous "$D/f" || rc=$?; echo "rc=$rc"`,
    );
    expect(r.stdout).toBe('rc=2\n');
    expect(r.stderr).toBe(
      `track-launch: rendezvous file ${r.dir}/f holds candidates='10.1.4.17,ib0', not up to 16 comma-separated IPv4 addresses\n`,
    );
  });
});
