// Issue #6 item 13: every CLI option given wrong values. Each must end with a non-zero exit (2),
// a message naming the option and what is allowed, nothing submitted (a recording sbatch is first
// on PATH) and nothing written (the working directory and an existing run directory unchanged).
import * as fs from 'fs';
import * as path from 'path';
import { cli, clusterEnv, REPO, requireCluster, tmpDir } from '../launcher/cluster';

jest.setTimeout(240_000);
beforeAll(requireCluster);

const fakeBin = tmpDir('fake-sbatch');
const marker = path.join(fakeBin, 'sbatch-called');
fs.writeFileSync(path.join(fakeBin, 'sbatch'), `#!/bin/sh\necho "$@" >>'${marker}'\necho 4242\n`, {
  mode: 0o755,
});
const env = clusterEnv({ PATH: `${fakeBin}:${process.env.PATH}` });

/** Every file under dir with its size and mtime: "nothing written" means this does not change. */
function snapshot(dir: string): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const e of fs.readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      const st = fs.lstatSync(p);
      out.push(`${path.relative(dir, p)} ${st.size} ${st.mtimeMs}`);
      if (e.isDirectory()) walk(p);
    }
  };
  walk(dir);
  return out.sort();
}

type Case = [args: string[], option: string, allowed: RegExp];
const A = (s: string) => new RegExp(s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
const NUM = /use a whole number from \d+ to \d+/;

const SUBMIT: Case[] = [
  [['--nodes=0'], 'nodes', NUM],
  [['--nodes=abc'], 'nodes', NUM],
  [['--nodes=1.5'], 'nodes', NUM],
  [['-N', '-3'], 'nodes', NUM],
  [['--tasks-per-node=0'], 'tasks-per-node', NUM],
  [['--tasks-per-node=2000'], 'tasks-per-node', NUM],
  [['--gpus-per-node=-1'], 'gpus-per-node', NUM],
  [['--gpus-per-node=65'], 'gpus-per-node', NUM],
  [['--cpus-per-task=0'], 'cpus-per-task', NUM],
  [['-c', 'x'], 'cpus-per-task', NUM],
  [['--mem=4X'], 'mem', A('K, M, G or T suffix')],
  [['--mem=-1G'], 'mem', A('K, M, G or T suffix')],
  [['--time=abc'], 'time', A('HH:MM:SS')],
  [['--time=1:2:3:4'], 'time', A('HH:MM:SS')],
  [['-t', '-5'], 'time', A('HH:MM:SS')],
  [['--partition=a b'], 'partition', A('a partition name')],
  [['-p', 'x;y'], 'partition', A('a partition name')],
  [['--account=a b'], 'account', A('an account name')],
  [['--qos=q q'], 'qos', A('a QOS name')],
  [['--constraint=$(id)'], 'constraint', A('node features')],
  [['--name=a b'], 'name', A('use letters, digits')],
  [['-J', 'x'.repeat(129)], 'name', A('use letters, digits')],
  [['--run-dir=runs/%j'], 'run-dir', A("without '%'")],
  [['--launcher=slurm'], 'launcher', A('"srun", "torchrun", "mpiexec"')],
  [['--backend=tcp'], 'backend', A('"nccl", "gloo", "mpi"')],
  [['--backend=mpi'], 'backend', A('needs --launcher mpiexec')],
  [['--module=GCC 11'], 'module', A('without spaces')],
  [['--bind=/a:/b'], 'bind', A('--bind needs --container')],
  [['--container=a\nb'], 'container', A('a non-empty string')],
  [['--env=NOEQ'], 'env', A('KEY=VALUE')],
  [['--env=1A=b'], 'env', A('KEY=VALUE')],
  [['--env=RANK=3'], 'env', A('set by track-launch')],
  [['--sbatch=no-dash'], 'sbatch', A('starts with - or --')],
  [['--sbatch=--output=x'], 'sbatch', A('logs/job.out')],
  [['--stage=/nonexistent/tl-no-such-path'], 'stage', /exist/],
  [['--signal=KILL'], 'signal', A('SIG[@SECONDS]')],
  [['--signal=USR1@0'], 'signal', A('SECONDS 1-65535')],
  [['--signal=USR1@x'], 'signal', A('SIG[@SECONDS]')],
  [['--requeue'], 'requeue', A('needs --signal')],
  [['--master-iface=a b'], 'master-iface', A('network interface name')],
  [['--master-iface=' + 'e'.repeat(16)], 'master-iface', A('network interface name')],
  [['--master-cidr=10.0.0.0/33'], 'master-cidr', A('IPv4 network')],
  [['--master-cidr=300.1.1.1/8'], 'master-cidr', A('IPv4 network')],
  [['--master-iface=eth0', '--master-cidr=10.0.0.0/8'], 'master-cidr', A('not both')],
  [['--rendezvous-timeout=0'], 'rendezvous-timeout', NUM],
  [['--rendezvous-timeout=x'], 'rendezvous-timeout', NUM],
  [['--experiment=a\nb'], 'experiment', A('a non-empty string')],
  [['--metrics-format=bogus'], 'metrics-format', A('auto, polynomial, luna, jsonl, regex:')],
  [['--metrics-format=regex:('], 'metrics-format', /regular expression/],
  [['--artifact=[z-a]*', '--follow'], 'artifact', A('"[z-a]*" cannot be matched (Range out of order')],
  [['--artifact=out/**/[9-0].pt'], 'artifact', A('"[9-0].pt" cannot be matched')],
  [['--param=noeq'], 'param', A('KEY=VALUE')],
  [['--param=a$b=1'], 'param', A('KEY=VALUE')],
  [['--executor=k8s'], 'executor', A('"slurm", "local"')],
  [['--sample-interval=-1'], 'sample-interval', NUM],
  [['--sample-interval=3601'], 'sample-interval', NUM],
  [['--exclusive=maybe'], 'exclusive', /true|false/],
  [['--follow', '--poll=x'], 'poll', /number|seconds/],
  [['--nodez=3'], 'nodez', A('Unknown argument')],
  [['--config=/nonexistent/tl.json'], 'config', /does not exist/],
];

test(`submit: ${SUBMIT.length} wrong values, each refused with the option and what is allowed; nothing submitted or written`, async () => {
  const cwd = tmpDir('opts');
  const problems: string[] = [];
  for (let i = 0; i < SUBMIT.length; i += 4) {
    const rs = await Promise.all(
      SUBMIT.slice(i, i + 4).map(async ([args, option, allowed]) => {
        const r = await cli(['submit', '--executor', 'slurm', ...args, '--', 'python3', 'train.py'], {
          env,
          cwd,
          timeoutMs: 20_000,
        }); // a --follow that was not refused waits on the fake job: cut short
        const named =
          r.stderr.includes(`--${option}`) ||
          r.stderr.includes(`Argument: ${option}`) ||
          r.stderr.includes(`argument: ${option}`);
        if (r.code !== (option === 'config' ? 3 : 2) || !named || !allowed.test(r.stderr))
          problems.push(
            `${JSON.stringify(args)}: exit ${r.code}; stderr: ${JSON.stringify(r.stderr.slice(0, 300))}`,
          );
        return r;
      }),
    );
    expect(rs.length).toBeGreaterThan(0);
  }
  const sbatchCalls = fs.existsSync(marker) ? fs.readFileSync(marker, 'utf8').trim().split('\n') : [];
  fs.rmSync(marker, { force: true });
  expect({ problems, sbatchCalls, written: fs.readdirSync(cwd) }).toEqual({
    problems: [],
    sbatchCalls: [],
    written: [],
  });
});

test('a bad config file or TRACK_LAUNCH_ variable is refused the same way', async () => {
  const cwd = tmpDir('opts-cfg');
  fs.writeFileSync(path.join(cwd, 'track-launch.config.json'), JSON.stringify({ nodes: 'many' }));
  const r1 = await cli(['submit', '--', 'true'], { env, cwd });
  expect({ code: r1.code, nodes: /--nodes: .* is not valid; use a whole number/.test(r1.stderr) }).toEqual({
    code: 2,
    nodes: true,
  });
  fs.writeFileSync(path.join(cwd, 'track-launch.config.json'), '{ not json');
  const r2 = await cli(['submit', '--', 'true'], { env, cwd });
  expect(r2.code).toBe(2);
  expect(r2.stderr).toMatch(/track-launch\.config\.json/);
  fs.rmSync(path.join(cwd, 'track-launch.config.json'));
  const r3 = await cli(['submit', '--', 'true'], { env: { ...env, TRACK_LAUNCH_PARTITION: 'a;b' }, cwd });
  expect({ code: r3.code, p: /--partition: "a;b" is not valid/.test(r3.stderr) }).toEqual({
    code: 2,
    p: true,
  });
  expect(fs.existsSync(marker)).toBe(false);
  expect(fs.readdirSync(cwd)).toEqual([]);
});

test('the other commands: wrong values refused with the option named, the run directory unchanged', async () => {
  const cwd = tmpDir('opts-other');
  const runDir = path.join(cwd, 'run');
  fs.cpSync(path.join(REPO, 'test', 'fixtures', 'runs', 'polynomial-1'), runDir, { recursive: true });
  const before = snapshot(cwd);
  const cases: Case[] = [
    [['logs', runDir, '--rank=-1'], 'rank', A('whole number from 0')],
    [['logs', runDir, '--rank=x'], 'rank', A('whole number from 0')],
    [['logs', runDir, '--rank=1.5'], 'rank', A('whole number from 0')],
    [['cancel', runDir, '--signal=BOGUS'], 'signal', /USR1|signal/],
    [
      ['ingest', runDir, '--offline', '--metrics-format=bogus'],
      'metrics-format',
      A('auto, polynomial, luna, jsonl, regex:'),
    ],
    [['ingest', runDir, '--offline', '--poll=x'], 'poll', /number|seconds/],
    [['ingest', runDir, '--tracking-uri=ftp://x'], 'tracking-uri', /http\(s\)/],
    [['sync', runDir, '--tracking-uri=ftp://x'], 'tracking-uri', /http\(s\)/],
    [['report', runDir, '--format=gif'], 'format', A('pdf, png, html')],
    [['report', runDir, '--metrics-format=regex:('], 'metrics-format', /regular expression/],
    [['cluster', '-p', 'a;b'], 'partition', /partition/],
    [['status', runDir, '--bogus'], 'bogus', A('Unknown argument')],
  ];
  const problems: string[] = [];
  for (const [args, option, allowed] of cases) {
    const r = await cli(args, { env, cwd, timeoutMs: 60_000 });
    const named =
      r.stderr.includes(`--${option}`) ||
      r.stderr.includes(`Argument: ${option}`) ||
      r.stderr.includes(`argument: ${option}`);
    if (r.code !== 2 || !named || !allowed.test(r.stderr))
      problems.push(
        `${JSON.stringify(args.slice(0, 1).concat(args.slice(2)))}: exit ${r.code}; stderr: ${JSON.stringify(r.stderr.slice(0, 300))}`,
      );
  }
  const after = snapshot(cwd);
  expect({ problems, written: after.filter((f) => !before.includes(f)) }).toEqual({
    problems: [],
    written: [],
  });
});
