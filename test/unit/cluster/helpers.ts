import * as fs from 'fs';
import * as path from 'path';

export const FIXTURES = path.resolve(__dirname, '..', '..', 'fixtures', 'slurm-output');
export const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name), 'utf8');
