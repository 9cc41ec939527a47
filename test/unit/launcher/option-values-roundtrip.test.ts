// Every option of the registry: a value submit accepts reaches its later stages in its parsed form.
// What an option renders as its #SBATCH directive, read back by the option's own parser, is the
// value submit parsed (sbatch gets what was checked, not a re-spelling of it); what it records in
// job.json survives JSON unchanged (the trackers read what was checked). Values: the hostile corpus,
// malformed ones (ranges out of order, unbalanced brackets, out-of-range numbers) and valid ones.
import { flagName } from '../../../launcher/options/types';
import { ownValue, submitOptionEntries, type SubmitOptionKey } from '../../../launcher/options/registry';
import type { JobSpec } from '../../../launcher/spec/types';
import { generated, handCorpus } from '../../fixtures/hostile/corpus';
import { spec } from './specs';

const HOSTILE = [...handCorpus('/nonexistent/tl-canary'), ...generated('/nonexistent/tl-canary', 150)];
const MALFORMED = [
  '[z-a]*',
  '[',
  ']',
  '((',
  '0-',
  '5-2',
  '3-1:0',
  '1,,2',
  '-1',
  '1e3',
  '0x10',
  '99999999999',
  '1:2:3:4',
  '2-25:00',
  '4X',
  '1.5G',
  'USR1@0',
  'B:',
  '@60',
  'SIGKILL',
];
const VALID: Partial<Record<SubmitOptionKey, string[]>> = {
  nodes: ['1', '3', '100000'],
  tasksPerNode: ['1', '8'],
  gpusPerNode: ['0', '4'],
  cpusPerTask: ['1', '32'],
  mem: ['100', '64G', '16000M', '1T', '512K'],
  time: ['5', '90', '10:30', '1:02:03', '1-12', '1-12:30', '1-12:00:00'],
  array: ['0-2', '1,3,5', '0-15:4%2', '7'],
  signal: ['USR1', 'usr1@90', 'B:USR1@60', '10@60', 'SIGUSR2@120', 'B:12'],
  name: ['train', 'a.b+c-d_e'],
  partition: ['gpu', 'debug'],
  gres: ['gpu:2', 'gpu:a100:4'],
  dependency: ['afterok:123', 'afterany:1:2'],
  sampleInterval: ['0', '10', '3600'],
};

/** The raw value an option takes on the command line for `s` (a list option takes it as one item). */
const rawFor = (type: string, s: string): unknown =>
  type === 'list' ? [s] : type === 'boolean' ? s === 'true' : s;

/** The spec for one option set to `raw` (the rest as in the golden specs), or undefined if refused. */
function accepted(key: SubmitOptionKey, raw: unknown): JobSpec | undefined {
  const base = { command: ['python3', 'train.py'], ...(key === 'requeue' ? { signal: 'USR1' } : {}) };
  try {
    return spec({ ...base, [key]: raw });
  } catch {
    return undefined; // refused (with the option named: options-registry.test and cli-options)
  }
}

const entries = submitOptionEntries();
const withDirective = entries.filter(([, d]) => d.sbatch !== undefined);
const recorded = entries.filter(([, d]) => d.record !== undefined);

describe.each(withDirective.map(([key, decl]) => [key, decl] as const))('--%s', (key, decl) => {
  const flag = flagName(key);
  const values = [...(VALID[key] ?? []), ...(decl.choices ?? []), ...MALFORMED, ...HOSTILE, 'true'];

  test('its #SBATCH value, read back by its own parser, is the value submit accepted', () => {
    let checked = 0;
    for (const s of values) {
      const js = accepted(key, rawFor(decl.type, s));
      if (!js) continue;
      const d = decl.sbatch!;
      const own = ownValue(js, key);
      const rendered =
        typeof d === 'string' ? (own === true ? true : own === false ? undefined : own) : d.value(js);
      if (rendered === undefined || rendered === '') continue;
      const again = decl.parse(rendered, flag, {
        cwd: '/elsewhere',
      });
      expect({ value: s, parsed: again }).toEqual({ value: s, parsed: own });
      checked++;
    }
    // Each option took at least one of the values: the property was checked, not skipped.
    expect(checked).toBeGreaterThan(0);
  });
});

describe.each(recorded.map(([key, decl]) => [key, decl] as const))('--%s in job.json', (key, decl) => {
  test('what it records survives JSON unchanged', () => {
    const values = [...(VALID[key] ?? []), ...(decl.choices ?? []), ...MALFORMED, ...HOSTILE];
    for (const s of values) {
      const js = accepted(key, rawFor(decl.type, s));
      if (!js) continue;
      const r = decl.record!;
      const v = typeof r === 'string' ? ownValue(js, key) : r.value(js);
      if (v === undefined) continue;
      expect({ value: s, recorded: JSON.parse(JSON.stringify(v)) }).toEqual({ value: s, recorded: v });
    }
  });
});
