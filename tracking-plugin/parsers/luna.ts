// The LUNA classifier (Deep Learning with PyTorch, p2ch11-14) logMetrics lines, e.g.
//   ... logMetrics E1 trn      0.0185 loss,  99.7% correct, 0.8000 precision, 0.5000 recall, 0.6154 f1 score, 0.9000 auc
//   ... logMetrics E1 val_neg  0.0026 loss, 100.0% correct (494640 of 494743)
// Keys are `<mode>/<metric>`: trn/loss, val/correct, trn_neg/loss, val/f1 ... ; the step is the epoch.
import { NUMBER_SOURCE, parseNumber, parseStep } from './number';
import type { LineParser, ParsedLine, ParsedMetric } from './types';

const HEAD = new RegExp(
  String.raw`\bE(\d{1,15})\s+([A-Za-z][A-Za-z0-9_]{0,40})\s+(${NUMBER_SOURCE})\s+loss,\s*(${NUMBER_SOURCE})%\s+correct`,
  'i',
);
const EXTRA = new RegExp(String.raw`(${NUMBER_SOURCE})\s+(precision|recall|f1 score|auc)\b`, 'gi');
const EXTRA_KEY: Record<string, string> = {
  precision: 'precision',
  recall: 'recall',
  'f1 score': 'f1',
  auc: 'auc',
};

export const lunaParser: LineParser = {
  name: 'luna',
  parse(line: string): ParsedLine | null {
    const m = HEAD.exec(line);
    if (!m) return null;
    const step = parseStep(m[1]);
    const loss = parseNumber(m[3]);
    const correct = parseNumber(m[4]);
    if (step === undefined || loss === undefined || correct === undefined) return null;
    const mode = m[2];
    const metrics: ParsedMetric[] = [
      { key: `${mode}/loss`, value: loss, step },
      { key: `${mode}/correct`, value: correct, step },
    ];
    const rest = line.slice(m.index + m[0].length, m.index + m[0].length + 2048);
    for (const e of rest.matchAll(EXTRA)) {
      const value = parseNumber(e[1]);
      const name = EXTRA_KEY[e[2].toLowerCase()];
      if (value !== undefined && name) metrics.push({ key: `${mode}/${name}`, value, step });
    }
    return { metrics };
  },
};
