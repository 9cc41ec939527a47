import * as fs from 'fs';
import * as path from 'path';

export const GOLDEN_DIR = path.join(__dirname, '..', '..', 'golden');

/** Whole-text compare with test/golden/<name>. A missing golden fails; UPDATE_GOLDEN=1 writes it. */
export function expectGolden(name: string, actual: string): void {
  const file = path.join(GOLDEN_DIR, name);
  if (process.env.UPDATE_GOLDEN === '1') fs.writeFileSync(file, actual);
  if (!fs.existsSync(file))
    throw new Error(`golden file ${file} is missing; run with UPDATE_GOLDEN=1 once and review it`);
  expect(actual).toBe(fs.readFileSync(file, 'utf8'));
}
