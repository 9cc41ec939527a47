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
function net(host: string, fn: string, args: string[], opts: { pathDirs?: string[] } = {}): Result {
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
