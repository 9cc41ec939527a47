import * as fs from 'fs';
import * as path from 'path';

export const GOLDEN_DIR = path.join(__dirname, '..', '..', 'golden');

/** True where CI is set (any value but empty, "0" or "false"), as CI services set it. */
export function underCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const v = env.CI;
  return v !== undefined && v !== '' && v !== '0' && v.toLowerCase() !== 'false';
}

/**
 * Whole-text compare with test/golden/<name>. A missing golden fails; UPDATE_GOLDEN=1 writes it,
 * except under CI, where rewriting the expected output would make every compare pass: refused.
 */
export function expectGolden(name: string, actual: string, env: NodeJS.ProcessEnv = process.env): void {
  const file = path.join(GOLDEN_DIR, name);
  if (env.UPDATE_GOLDEN === '1') {
    if (underCi(env))
      throw new Error(
        `UPDATE_GOLDEN=1 is refused under CI (CI=${env.CI}): goldens are reviewed changes; rewrite ${name} locally and commit it`,
      );
    fs.writeFileSync(file, actual);
  }
  if (!fs.existsSync(file))
    throw new Error(`golden file ${file} is missing; run with UPDATE_GOLDEN=1 once and review it`);
  expect(actual).toBe(fs.readFileSync(file, 'utf8'));
}
