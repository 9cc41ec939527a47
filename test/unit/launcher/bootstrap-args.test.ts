// The bootstrap arguments the registry can emit against what sbatch/rank-bootstrap.sh parses: the
// two are written in two languages, so this test is what keeps them from drifting apart.
import * as fs from 'fs';
import * as path from 'path';
import { SUBMIT_OPTIONS } from '../../../launcher/options/registry';
import { BOOTSTRAP_HEAD_FLAGS, bootstrapArgs } from '../../../launcher/plan/bootstrap-args';
import { LAUNCHERS } from '../../../launcher/spec/types';
import { NAMED_SPECS, spec } from './specs';

const SBATCH = path.join(__dirname, '..', '..', '..', 'sbatch');
const bootstrap = fs.readFileSync(path.join(SBATCH, 'rank-bootstrap.sh'), 'utf8');

/** The options of rank-bootstrap.sh's parse loop: flag -> whether it takes a value (shift 2). */
function acceptedFlags(): Map<string, boolean> {
  const loop = /while \(\(\$#\)\); do\n\s*case "\$1" in\n([\s\S]*?)\n\s*esac\ndone/.exec(bootstrap);
  if (!loop)
    throw new Error('rank-bootstrap.sh: its argument loop (while (($#)); do case "$1" in ...) was not found');
  const flags = new Map<string, boolean>();
  for (const m of loop[1].matchAll(/^\s*(--[a-z][a-z-]*)\)(.*);;\s*$/gm)) {
    flags.set(m[1], /\bshift 2\b/.test(m[2]));
  }
  return flags;
}

/** The modes --launcher may name: tl_derive_ranks' cases, and torchrun, which the bootstrap renames. */
function acceptedModes(): string[] {
  const ranks = fs.readFileSync(path.join(SBATCH, 'lib', 'ranks.sh'), 'utf8');
  const body = /tl_derive_ranks\(\) \{\n\s*case "\$1" in\n([\s\S]*?)\n\s*esac/.exec(ranks)![1];
  const modes = [...body.matchAll(/^\s{4}([a-z-]+)\)/gm)].map((m) => m[1]);
  if (/\[\[ \$TL_MODE == torchrun \]\] && TL_MODE=torchrun-agent/.test(bootstrap)) modes.push('torchrun');
  return modes;
}

// Specs that together make every declaration emit what it can.
const EVERYTHING = [
  ...Object.values(NAMED_SPECS),
  spec({
    nodes: 2,
    gpusPerNode: 2,
    launcher: 'torchrun',
    signal: 'USR2@30',
    requeue: true,
    stage: '/data/set one',
    masterIface: 'ib0',
    container: 'img.sif',
    bind: ['/a', '/b:/c:ro'],
    nv: true,
    mlflowEnv: true,
    command: ['train.py'],
  }),
  spec({ masterCidr: '10.0.0.0/8', launcher: 'mpiexec', backend: 'mpi', command: ['x'] }),
];

const declaredFlags = (): string[] =>
  Object.values(SUBMIT_OPTIONS).flatMap((d) =>
    'bootstrap' in d && d.bootstrap ? [...d.bootstrap.flags] : [],
  );

describe('the rank bootstrap accepts every argument the registry can emit', () => {
  const accepted = acceptedFlags();

  test('the parse loop was read', () => {
    expect(accepted.get('--run-dir')).toBe(true);
    expect(accepted.get('--nv')).toBe(false);
  });

  test('every declared flag is one rank-bootstrap.sh parses', () => {
    const unknown = [...BOOTSTRAP_HEAD_FLAGS, ...declaredFlags()].filter((f) => !accepted.has(f));
    expect(unknown).toEqual([]);
  });

  test('every emitted argument is declared, parsed, and given a value exactly when it takes one', () => {
    const declared = new Set<string>([...BOOTSTRAP_HEAD_FLAGS, ...declaredFlags()]);
    const emitted = new Set<string>();
    const problems: string[] = [];
    for (const s of EVERYTHING) {
      for (const mode of [s.launcher, 'local']) {
        for (const arg of bootstrapArgs(s, mode)) {
          const [flag, ...value] = arg.split(' ');
          emitted.add(flag);
          if (!declared.has(flag)) problems.push(`${arg}: not declared`);
          if (!accepted.has(flag)) problems.push(`${arg}: rank-bootstrap.sh does not parse ${flag}`);
          else if (accepted.get(flag) !== value.length > 0)
            problems.push(`${arg}: rank-bootstrap.sh expects ${accepted.get(flag) ? 'a value' : 'no value'}`);
        }
      }
    }
    expect(problems).toEqual([]);
    expect([...declared].filter((f) => !emitted.has(f))).toEqual([]); // the specs above cover them all
  });

  test('every --launcher mode the plans use is one the bootstrap knows', () => {
    expect([...LAUNCHERS, 'local'].filter((m) => !acceptedModes().includes(m))).toEqual([]);
  });

  test('the declared options come after the mode, the run dir and the rendezvous file, in their slots', () => {
    const args = bootstrapArgs(EVERYTHING[EVERYTHING.length - 2]);
    expect(args.slice(0, 3).map((a) => a.split(' ')[0])).toEqual([...BOOTSTRAP_HEAD_FLAGS]);
    expect(args.slice(3).map((a) => a.split(' ')[0])).toEqual([
      '--timeout',
      '--backend',
      '--nproc-per-node',
      '--signal',
      '--requeue',
      '--stage',
      '--master-iface',
      '--container',
      '--nv',
      '--bind',
      '--bind',
      '--mlflow-env',
    ]);
  });
});
