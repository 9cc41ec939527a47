// The seed's polynomial example: `epoch 100, loss = 0.154, rank 0/3 (cpuamdg10001).`
// Also accepts `loss = tensor(0.154, grad_fn=...)`, which the script prints without .item().
import { NUMBER_SOURCE, parseNumber, parseStep } from './number';
import type { LineParser, ParsedLine } from './types';

const LINE = new RegExp(
  String.raw`\bepoch\s+(\d{1,15}),\s*loss\s*=\s*(?:tensor\(\s*)?(${NUMBER_SOURCE})` +
    String.raw`(?:,\s*(?:grad_fn|device|dtype|requires_grad)=[^,)]{0,200})*\s*\)?` +
    String.raw`(?:,\s*rank\s+\d+\s*/\s*\d+\s*\(([^()\s]{1,255})\))?`,
  'i',
);

export const polynomialParser: LineParser = {
  name: 'polynomial',
  parse(line: string): ParsedLine | null {
    if (line.length > 4096 && !line.includes('epoch')) return null;
    const m = LINE.exec(line);
    if (!m) return null;
    const step = parseStep(m[1]);
    const value = parseNumber(m[2]);
    if (step === undefined || value === undefined) return null;
    return { metrics: [{ key: 'loss', value, step }], ...(m[3] ? { host: m[3] } : {}) };
  },
};
