// The seed's polynomial example: `epoch 100, loss = 0.154, rank 0/3 (cpuamdg10001).`
// Also accepts `loss = tensor(0.154, grad_fn=...)`, which the script prints without .item().
import { NUMBER_SOURCE, numberIn, numberOf } from './number';
import { emit, parseVia } from './out';
import type { LineParser, MetricsOut, ParsedLine } from './types';

const LINE = new RegExp(
  String.raw`\bepoch\s+(\d{1,15}),\s*loss\s*=\s*(?:tensor\(\s*)?(${NUMBER_SOURCE})` +
    String.raw`(?:,\s*(?:grad_fn|device|dtype|requires_grad)=[^,)]{0,200})*\s*\)?` +
    String.raw`(?:,\s*rank\s+\d+\s*/\s*\d+\s*\(([^()\s]{1,255})\))?`,
  'i',
);

// The line as the example prints it, from its first character. There LINE matches (nothing can
// start before), with these groups: its number is greedy and ends at the comma, the optional
// grad_fn=... part cannot start at `, rank`, and the host is the run of [^()\s] before `)`. A test
// is cheaper than LINE's match and its substrings; the groups are then found with indexOf.
const USUAL = /^epoch \d{1,15}, loss = -?\d+(?:\.\d+)?(?:e-?\d+)?, rank \d+\/\d+ \([^()\s]{1,255}\)/;

function parseInto(line: string, out: MetricsOut): void {
  if (USUAL.test(line)) {
    const comma = line.indexOf(',', 6);
    let step = 0;
    for (let i = 6; i < comma; i++) step = step * 10 + (line.charCodeAt(i) - 0x30);
    const v = comma + ', loss = '.length;
    const ve = line.indexOf(',', v);
    const h = line.indexOf('(', ve) + 1;
    emit(out, 'loss', numberIn(line, v, ve), step);
    out.host = line.slice(h, line.indexOf(')', h));
    return;
  }
  if (line.length > 4096 && !line.includes('epoch')) return;
  const m = LINE.exec(line);
  if (!m) return;
  // \d{1,15} is a safe integer; m[2] is a whole number as NUMBER_SOURCE matches it
  emit(out, 'loss', numberOf(m[2]), Number(m[1]));
  if (m[3]) out.host = m[3];
}

export const polynomialParser: LineParser = {
  name: 'polynomial',
  parse: (line: string): ParsedLine | null => parseVia(parseInto, line),
  parseInto,
};
