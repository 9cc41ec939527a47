// The LUNA classifier (Deep Learning with PyTorch, p2ch11-14) logMetrics lines, e.g.
//   ... logMetrics E1 trn      0.0185 loss,  99.7% correct, 0.8000 precision, 0.5000 recall, 0.6154 f1 score, 0.9000 auc
//   ... logMetrics E1 val_neg  0.0026 loss, 100.0% correct (494640 of 494743)
// Keys are `<mode>/<metric>`: trn/loss, val/correct, trn_neg/loss, val/f1 ... ; the step is the epoch.
import { NUMBER_SOURCE, numberOf } from './number';
import { emit, lineParser } from './out';
import type { MetricsOut } from './types';

const HEAD = new RegExp(
  String.raw`\bE(\d{1,15})\s+([A-Za-z][A-Za-z0-9_]{0,40})\s+(${NUMBER_SOURCE})\s+loss,\s*(${NUMBER_SOURCE})%\s+correct`,
  'i',
);
const EXTRA = new RegExp(String.raw`(${NUMBER_SOURCE})\s+(precision|recall|f1 score|auc)\b`, 'gi');
// HEAD and, if the line ends so, its usual rest: all four extra metrics in their order. HEAD matches
// one way only, so the optional rest leaves its groups alone; where the rest is there, EXTRA would
// find exactly its four numbers.
const HEAD_REST = new RegExp(
  HEAD.source +
    String.raw`(?:, (\d+\.\d+) precision, (\d+\.\d+) recall, (\d+\.\d+) f1 score, (\d+\.\d+) auc$)?`,
  'i',
);
const EXTRA_WORDS = ['precision', 'recall', 'f1 score', 'auc'];
const EXTRA_KEY: Record<string, string> = {
  precision: 'precision',
  recall: 'recall',
  'f1 score': 'f1',
  auc: 'auc',
};

/** One mode's keys, made once: the last few modes are kept, so most lines make no key strings. */
interface ModeKeys {
  mode: string;
  loss: string;
  correct: string;
  extra: Record<string, string>; // by EXTRA_KEY's keys
}
const recent: ModeKeys[] = [];

function keysOf(mode: string): ModeKeys {
  for (let i = 0; i < recent.length; i++) if (recent[i].mode === mode) return recent[i];
  // a copy: a capture can be a view of the whole decoded text the line was cut from
  const own = mode.length < 13 ? mode : (' ' + mode).slice(1);
  const extra: Record<string, string> = {};
  for (const w of Object.keys(EXTRA_KEY)) extra[w] = `${own}/${EXTRA_KEY[w]}`;
  const k: ModeKeys = { mode: own, loss: `${own}/loss`, correct: `${own}/correct`, extra };
  if (recent.length >= 8) recent.pop();
  recent.unshift(k);
  return k;
}

function parseInto(line: string, out: MetricsOut): void {
  let m = HEAD_REST.exec(line);
  if (!m) return;
  // \d{1,15} is a safe integer; the numbers are whole matches of NUMBER_SOURCE
  const step = Number(m[1]);
  const keys = keysOf(m[2]);
  emit(out, keys.loss, numberOf(m[3]), step);
  emit(out, keys.correct, numberOf(m[4]), step);
  if (m[5] !== undefined) {
    if (line.length <= 2048) {
      // the rest is within EXTRA's 2048 characters
      for (let i = 0; i < 4; i++) emit(out, keys.extra[EXTRA_WORDS[i]], numberOf(m[i + 5]), step);
      return;
    }
    m = HEAD.exec(line) as RegExpExecArray; // the head alone, for where the rest starts
  }
  // The extra metrics in the 2048 characters after the head; where those reach the line's end, the
  // line itself is searched from there (no copy: \b at either end sees the same as in a copy).
  const from = m.index + m[0].length;
  let text = line;
  EXTRA.lastIndex = from;
  if (line.length > from + 2048) {
    text = line.slice(from, from + 2048);
    EXTRA.lastIndex = 0;
  }
  for (let e = EXTRA.exec(text); e !== null; e = EXTRA.exec(text))
    emit(out, keys.extra[e[2].toLowerCase()], numberOf(e[1]), step);
}

export const lunaParser = lineParser('luna', parseInto);
