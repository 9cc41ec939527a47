// The layer rule of eslint-rules/layers.js, run through the repository's real ESLint config: an import
// that points up a layer, sideways between parts, or into another package's internals fails lint.
import * as path from 'path';
import { Linter } from 'eslint';

const ROOT = path.resolve(__dirname, '..', '..', '..');
// eslint-disable-next-line @typescript-eslint/no-require-imports -- the CommonJS config file itself
const config = require(path.join(ROOT, 'eslint.config.js')) as Linter.Config[];
const linter = new Linter({ cwd: ROOT, configType: 'flat' });

async function layerErrors(file: string, code: string): Promise<string[]> {
  const messages = linter.verify(code, config, path.join(ROOT, file));
  return messages.filter((m) => m.ruleId === 'layers/imports').map((m) => m.message);
}

const cases: Array<[string, string, RegExp | null]> = [
  // [importing file, import source, expected message or null when allowed]
  ['core/errors.ts', '../launcher', /a layer above it/],
  ['core/rundir/layout.ts', '../../cli/main', /reaches into cli\/main|a layer above/],
  ['tracking-plugin/ingest/x.ts', '../../launcher', /a part beside it/],
  ['launcher/plan/x.ts', '../../tracking-plugin', /a part beside it/],
  ['tracking-plugin/x.ts', '../core/rundir/layout', /reaches into core\/rundir\/layout/],
  [
    'cli/commands/x.ts',
    '../../tracking-plugin/mlflow/config',
    /reaches into tracking-plugin\/mlflow\/config/,
  ],
  ['launcher/x.ts', '../cli', /a layer above it/],
  ['reports/load/x.ts', '../../tracking-plugin', null], // the one sideways edge
  ['cli/commands/x.ts', '../../launcher', null],
  ['launcher/plan/x.ts', '../../core', null],
  ['launcher/plan/x.ts', '../spec/types', null], // inside its own package
  ['launcher/plan/x.ts', 'path', null],
];

test.each(cases)('%s importing %s', async (file, source, expected) => {
  const errors = await layerErrors(file, `import { x } from '${source}';\nexport const y = x;\n`);
  if (expected === null) expect(errors).toEqual([]);
  else {
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(expected);
  }
});

test('require() and export-from are checked too', async () => {
  expect(await layerErrors('core/x.ts', `export { a } from '../reports';\n`)).toHaveLength(1);
  expect(
    await layerErrors('data/x.ts', `const r = require('../reports/report');\nexport default r;\n`),
  ).toHaveLength(1);
});
