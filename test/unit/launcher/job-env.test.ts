// The job's environment: MLflow credentials of the submitting shell stay behind unless --env names
// them; --env values arrive; nothing of them in the script or the printed plan.
import { jobEnvironment } from '../../../launcher/plan/job-env';
import { makePlan } from '../../../launcher/plan/plan';
import { checkCommand, scriptOf } from '../../../launcher/spec/check-command';
import { validateSubmit } from '../../../launcher/spec/validate';
import { spec } from './specs';

const parent = {
  PATH: '/usr/bin',
  MLFLOW_TRACKING_URI: 'https://u:pw@mlflow.lan',
  MLFLOW_TRACKING_TOKEN: 'tok-1',
  MLFLOW_TRACKING_PASSWORD: 'pw',
  MLFLOW_TRACKING_USERNAME: 'u',
  MLFLOW_EXPERIMENT_NAME: 'e',
};

describe('jobEnvironment', () => {
  test('credentials stay behind; the rest and --env values go', () => {
    const s = spec({ env: ['CANARY=c-123', 'EMPTY='], command: ['x'] });
    expect(jobEnvironment(s, parent)).toEqual({
      PATH: '/usr/bin',
      MLFLOW_EXPERIMENT_NAME: 'e',
      CANARY: 'c-123',
      EMPTY: '',
    });
    const plan = makePlan(s, { cwd: '/w', version: 't' });
    expect(plan.script).toContain('CANARY=***');
    expect(`${plan.script}${JSON.stringify(plan)}`).not.toContain('c-123');
  });

  test("--env NAME passes this shell's value, credentials included when asked", () => {
    const s = spec({ env: ['MLFLOW_TRACKING_TOKEN', 'MLFLOW_TRACKING_URI'], command: ['x'] });
    expect(jobEnvironment(s, parent)).toMatchObject({
      MLFLOW_TRACKING_TOKEN: 'tok-1',
      MLFLOW_TRACKING_URI: 'https://u:pw@mlflow.lan',
    });
  });
});

describe('checkCommand', () => {
  const probes = (files: string[], programs: string[]) => ({
    cwd: '/w',
    isFile: (f: string) => files.includes(f),
    exists: (f: string) => files.includes(f),
    onPath: (p: string) => programs.includes(p),
  });

  test.each([
    [['python3', '-u', 'train.py'], 'train.py'],
    [['python3', '-W', 'ignore', 'train.py', '--lr', '1'], 'train.py'],
    [['python3', '-m', 'pkg.train'], undefined],
    [['bash', '-c', 'echo'], undefined],
    [['./run.sh', 'a'], './run.sh'],
    [['hostname'], undefined],
  ])('%j runs the script %s', (cmd, script) => expect(scriptOf(cmd)).toBe(script));

  test('a missing script or interpreter is refused, with what to do', () => {
    expect(() => checkCommand(['python3', 'trian.py'], probes([], ['python3']))).toThrow(
      /--command: "trian\.py" is not valid; no such file from \/w/,
    );
    expect(() => checkCommand(['pyhton3', 'train.py'], probes(['/w/train.py'], ['python3']))).toThrow(
      /"pyhton3" is not on PATH here/,
    );
    expect(() => checkCommand(['python3', 'train.py'], probes(['/w/train.py'], ['python3']))).not.toThrow();
  });

  test('in a container or with modules the interpreter is not looked up here; the script still is', () => {
    expect(() =>
      checkCommand(['python', 'main.py'], { ...probes(['/w/main.py'], []), container: true }),
    ).not.toThrow();
    expect(() =>
      checkCommand(['python', 'main.py'], { ...probes(['/w/main.py'], []), modules: true }),
    ).not.toThrow();
    expect(() => checkCommand(['python', 'mian.py'], { ...probes([], []), container: true })).toThrow(
      /mian\.py/,
    );
  });
});

describe('validateSubmit with the submitting shell', () => {
  const ctx = { cwd: '/w', now: new Date('2026-12-02T10:11:12Z') };
  test('--env NAME of an unset variable is refused; the command is checked only when probes are given', () => {
    expect(() => validateSubmit({ env: ['NOPE'], command: ['x'] }, { ...ctx, isSet: () => false })).toThrow(
      /--env: "NOPE" is not valid; it is not set in this shell/,
    );
    const probes = { isFile: () => false, onPath: () => true, exists: () => false };
    expect(() =>
      validateSubmit({ command: ['python3', 'gone.py'] }, { ...ctx, commandProbes: probes }),
    ).toThrow(/gone\.py/);
    expect(() => validateSubmit({ command: ['python3', 'gone.py'] }, ctx)).not.toThrow();
  });

  test('param keys MLflow refuses are refused at submit', () => {
    const isValidParamKey = (k: string) => !k.includes('..');
    expect(() => validateSubmit({ param: ['../x=1'], command: ['x'] }, { ...ctx, isValidParamKey })).toThrow(
      /--param: "\.\.\/x" is not valid; MLflow refuses this key/,
    );
  });

  test('param values longer than MLflow keeps are refused at submit, with the length', () => {
    const at = (n: number) =>
      validateSubmit({ param: [`p=${'v'.repeat(n)}`], command: ['x'] }, { ...ctx, maxParamValue: 10 });
    expect(at(10).param).toEqual({ p: 'v'.repeat(10) });
    expect(() => at(11)).toThrow(/--param: .*the value has 11 characters; MLflow keeps at most 10 per param/);
  });
});
