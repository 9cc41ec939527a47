// Issue #6 item 12, without Slurm: every hostile string (hand corpus + fast-check, fixed seed) as a
// job name, command argument, env value, module name, container path, bind and run directory.
// Refused values are refused with a message naming the option; accepted values render scripts
// that pass `bash -n`, and running the real rendered scripts (local and sbatch, with stand-ins
// for srun, `module` and the rank bootstrap that record what they receive) delivers every value
// byte-exact and runs nothing that was not asked for.
import { spawnSync } from 'child_process';
import * as fc from 'fast-check';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { TrackLaunchError } from '../../../core/errors';
import { makePlan } from '../../../launcher/plan/plan';
import { jobEnvironment } from '../../../launcher/plan/job-env';
import { validateSubmit, type RawSubmitOptions } from '../../../launcher/spec/validate';
import type { JobSpec } from '../../../launcher/spec/types';
import { canaryFiles, generated, generatedArbitrary, handCorpus, SEED } from '../../fixtures/hostile/corpus';

jest.setTimeout(240_000);
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-hostile-unit-'));
const canary = path.join(tmp, 'canary');
fs.mkdirSync(canary);
const ctx = { cwd: tmp, now: new Date('2026-12-02T10:00:00Z') };
const CORPUS = [...handCorpus(canary), ...generated(canary, 120)];

// Stand-ins that record what they receive (NUL-separated) into $TL_OUT.*
const FAKE_BOOT =
  '#!/bin/bash\nprintf \'%s\\0\' "$@" >"$TL_OUT.args"\nprintf \'%s\' "${TL_HOSTILE-unset}" >"$TL_OUT.env"\nprintf \'%s\' "$TRACK_LAUNCH_RUN_DIR" >"$TL_OUT.rundir"\n';
const FAKE_SRUN =
  '#!/bin/bash\n# srun stand-in: drop srun options, run the rest\nwhile [[ $1 == --* ]]; do shift; done\nexec "$@"\n';
const binDir = path.join(tmp, 'fakebin');
fs.mkdirSync(binDir);
fs.writeFileSync(path.join(binDir, 'srun'), FAKE_SRUN, { mode: 0o755 });

function tryValidate(raw: Partial<RawSubmitOptions>): JobSpec | TrackLaunchError {
  try {
    return validateSubmit({ command: ['cmd'], ...raw }, ctx);
  } catch (e) {
    if (e instanceof TrackLaunchError) return e;
    throw e;
  }
}

/** Refused with exit code 2 and a message that names the option and what is allowed. */
function expectRefused(r: JobSpec | TrackLaunchError, option: string, allowed: RegExp, s: string): void {
  expect({ s, refused: r instanceof TrackLaunchError }).toEqual({ s, refused: true });
  const e = r as TrackLaunchError;
  expect(e.exitCode).toBe(2);
  expect(e.message.startsWith(`--${option}: `)).toBe(true);
  expect(e.message).toMatch(allowed);
}

const noCtl = (s: string) => !/[\0\n\r]/.test(s);

describe('each role on its own: accepted exactly when the rule says, refused with a clear message', () => {
  test(`${CORPUS.length} strings as --name`, () => {
    expect(CORPUS.length).toBeGreaterThanOrEqual(300);
    for (const s of CORPUS) {
      const r = tryValidate({ name: s });
      if (s === '') expect((r as JobSpec).name).toBe('cmd');
      else if (/^[A-Za-z0-9_.+-]{1,128}$/.test(s)) expect((r as JobSpec).name).toBe(s);
      else expectRefused(r, 'name', /use letters, digits and _ \. \+ -/, s);
    }
  });
  test('as --module', () => {
    for (const s of CORPUS) {
      const r = tryValidate({ module: [s] });
      if (/^\S+$/.test(s)) expect((r as JobSpec).module).toEqual([s]);
      else expectRefused(r, 'module', /a module name without spaces/, s);
    }
  });
  test('as --container, --bind, --run-dir, --env value and command argument', () => {
    for (const s of CORPUS) {
      const c = tryValidate({ container: s, bind: [s] });
      if (s === '') expectRefused(c, 'bind', /--bind needs --container/, s);
      else if (noCtl(s)) expect((c as JobSpec).container).toMatchObject({ image: s, binds: [s] });
      else expectRefused(c, 'container', /a non-empty string/, s);

      const d = tryValidate({ runDir: s });
      if (s === '') expect((d as JobSpec).runDir).toBe(path.join(tmp, 'runs', 'cmd-20261202-100000'));
      else if (!noCtl(s)) expectRefused(d, 'run-dir', /a non-empty string/, s);
      else if (path.resolve(tmp, s).includes('%')) expectRefused(d, 'run-dir', /without '%'/, s);
      else expect((d as JobSpec).runDir).toBe(path.resolve(tmp, s));

      const e = tryValidate({ env: [`TL_HOSTILE=${s}`], command: ['cmd', s] });
      expect(e).toMatchObject({ command: ['cmd', s] });
      // The value is kept, hidden: *** in JSON, revealed only for the job's environment.
      expect((e as JobSpec).env.map((v) => [v.name, v.value?.reveal()])).toEqual([['TL_HOSTILE', s]]);
      expect(JSON.stringify((e as JobSpec).env)).toBe('[{"name":"TL_HOSTILE","value":"***"}]');
    }
  });
  test('NUL bytes and hostile env names are refused', () => {
    expectRefused(tryValidate({ command: ['cmd', 'a\0b'] }), 'command', /NUL/, 'nul arg');
    expectRefused(tryValidate({ env: ['K=a\0b'] }), 'env', /KEY=VALUE/, 'nul env');
    for (const k of ['$(touch x)', 'A B', '1A', 'A-B', '', 'A;B', 'RANK', 'MASTER_ADDR']) {
      expectRefused(tryValidate({ env: [`${k}=v`] }), 'env', /KEY=VALUE|set by track-launch/, k);
    }
    for (const s of ['a\0b', 'x\ny', '$(id)'])
      expectRefused(tryValidate({ name: s }), 'name', /use letters/, s);
  });
});

/** The spec with every role this string may take, and a run dir we can really create. */
function specFor(s: string, i: number): { spec: JobSpec; runDirUsed: boolean } {
  const base = path.join(tmp, `r${i}`);
  const asDir = path.resolve(base, s);
  const dirOk =
    s !== '' &&
    noCtl(s) &&
    !asDir.includes('%') &&
    asDir.startsWith(base + path.sep) &&
    asDir.split('/').every((c) => Buffer.byteLength(c) <= 200);
  const raw: Partial<RawSubmitOptions> = {
    command: ['cmd', s, 'after'],
    env: [`TL_HOSTILE=${s}`],
    runDir: dirOk ? asDir : path.join(base, 'plain'),
  };
  if (/^[A-Za-z0-9_.+-]{1,128}$/.test(s)) raw.name = s;
  if (/^\S+$/.test(s)) raw.module = [s];
  if (s !== '' && noCtl(s)) Object.assign(raw, { container: s, bind: [s, `x:${s}`] });
  const spec = validateSubmit(raw as RawSubmitOptions, ctx);
  return { spec, runDirUsed: dirOk };
}

function runRendered(s: string, i: number, executor: 'local' | 'slurm'): void {
  const { spec } = specFor(s, i);
  const plan = makePlan(spec, { cwd: tmp, version: 't', executor });
  // The local script takes its run directory from where it lies: it is written there, as the executor does.
  fs.mkdirSync(spec.runDir, { recursive: true });
  const script =
    executor === 'local'
      ? path.join(spec.runDir, 'job.local.sh')
      : path.join(tmp, `script-${i}-${executor}.sh`);
  fs.writeFileSync(script, plan.script);
  const n = spawnSync('bash', ['-n', script], { encoding: 'utf8' });
  expect({ s, executor, syntax: n.stderr }).toEqual({ s, executor, syntax: '' });
  if (executor === 'slurm') expect(plan.script).toContain(`#SBATCH --job-name=${spec.name}\n`);

  fs.mkdirSync(path.join(spec.runDir, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(spec.runDir, 'bin', 'rank-bootstrap.sh'), FAKE_BOOT);
  const out = path.join(tmp, `out-${i}-${executor}`);
  // --env reaches the script through its environment, as the executors hand it over.
  const env: NodeJS.ProcessEnv = jobEnvironment(spec, {
    PATH: `${binDir}:/usr/bin:/bin`,
    HOME: tmp,
    TL_OUT: out,
    'BASH_FUNC_module%%': '() { printf \'%s\\0\' "$@" >>"$TL_OUT.mod"; }',
    ...(executor === 'slurm' ? { SLURM_JOB_ID: '42' } : {}),
  });
  const r = spawnSync('bash', [script], { cwd: tmp, env, encoding: 'utf8', timeout: 30_000 });
  expect({ s, executor, code: r.status, stderr: r.stderr }).toEqual({ s, executor, code: 0, stderr: '' });

  const rdzv =
    executor === 'local'
      ? `${spec.runDir}/rendezvous/local.r0.addr`
      : `${spec.runDir}/rendezvous/42.r0.a1.addr`;
  const expected = [
    '--launcher',
    executor === 'local' ? 'local' : 'srun',
    '--run-dir',
    spec.runDir,
    '--rdzv-file',
    rdzv,
    '--timeout',
    '120',
    '--backend',
    'gloo',
    ...(spec.container ? ['--container', s, '--bind', s, '--bind', `x:${s}`] : []),
    '--',
    'cmd',
    s,
    'after',
  ];
  const args = fs.readFileSync(`${out}.args`).toString('utf8').split('\0').slice(0, -1);
  expect({ s, args }).toEqual({ s, args: expected });
  expect(fs.readFileSync(`${out}.env`)).toEqual(Buffer.from(s));
  if (s.length >= 4)
    expect({ s, inScript: plan.script.includes(`TL_HOSTILE=${s}`) }).toEqual({ s, inScript: false });
  expect(fs.readFileSync(`${out}.rundir`, 'utf8')).toBe(spec.runDir);
  const mod = fs.existsSync(`${out}.mod`) ? fs.readFileSync(`${out}.mod`) : Buffer.alloc(0);
  expect({ s, mod: mod.toString('utf8') }).toEqual({ s, mod: spec.module.length ? `load\0${s}\0` : '' });
}

describe('the real rendered scripts, run with recording stand-ins', () => {
  test('hand corpus and generated strings: bash -n passes, values arrive byte-exact, nothing runs (local + sbatch)', () => {
    let dirs = 0;
    CORPUS.forEach((s, i) => {
      if (specFor(s, i).runDirUsed) dirs++;
      runRendered(s, i, 'local');
      runRendered(s, i + 100000, 'slurm');
    });
    expect(dirs).toBeGreaterThan(100); // most strings really were a run directory too
    expect(canaryFiles(canary)).toEqual([]);
  });

  test('property: any generated string (fast-check, fixed seed) survives the local script', () => {
    let i = 200000;
    fc.assert(
      fc.property(generatedArbitrary(canary), (s) => {
        runRendered(s, i++, 'local');
      }),
      { seed: SEED + 1, numRuns: 60 },
    );
    expect(canaryFiles(canary)).toEqual([]);
  });
});
