// The fast parse path (decode a piece at a time, parseInto, numbers without Number()) against the
// straightforward one it replaced, kept here verbatim as the reference: same texts, byte offsets,
// values (NaN, -0, Infinity), keys, steps, hosts, skipped counts and counters, on random input.
import fc from 'fast-check';
import { PointColumns } from '../../../tracking-plugin/logs/columns';
import { extractPoints } from '../../../tracking-plugin/logs/extract';
import { LineBatch, MAX_LINE, type LogLine } from '../../../tracking-plugin/logs/lines';
import { tsToMs } from '../../../tracking-plugin/logs/times';
import { autoParser, parserFor, type LineParser } from '../../../tracking-plugin/parsers';
import { jsonlParser } from '../../../tracking-plugin/parsers/jsonl';
import { lunaParser } from '../../../tracking-plugin/parsers/luna';
import { NUMBER_SOURCE, numberOf, parseNumber, parseStep } from '../../../tracking-plugin/parsers/number';
import { polynomialParser } from '../../../tracking-plugin/parsers/polynomial';
import type { MetricPoint } from '../../../tracking-plugin/types';
import { parseLine, type ParsedLine } from './parse-line';

/** The reference parsers: parse alone, the straightforward way. */
interface RefParser {
  name: string;
  parse(line: string): ParsedLine | null;
}

// ---------------------------------------------------------------- the reference (the old code)

function refCompleteLines(buf: Buffer, base: number): { lines: LogLine[]; consumed: number } {
  const lines: LogLine[] = [];
  let start = 0;
  for (;;) {
    const nl = buf.indexOf(0x0a, start);
    if (nl < 0) break;
    let stop = nl;
    if (nl - start > MAX_LINE)
      stop = start + MAX_LINE; // cut: the first MAX_LINE bytes, \r or not
    else if (stop > start && buf[stop - 1] === 0x0d) stop -= 1;
    lines.push({ text: buf.toString('utf8', start, stop), end: base + nl + 1 });
    start = nl + 1;
  }
  return { lines, consumed: start };
}

function refTsToMs(line: string): number | undefined {
  const m = /^\s*(\d{1,12})(?:\.(\d{1,9}))?\s*$/.exec(line);
  if (!m) return undefined;
  const frac = ((m[2] ?? '') + '000').slice(0, 3);
  return Number(m[1]) * 1000 + Number(frac);
}

function refParseNumber(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'nan' || t === '+nan' || t === '-nan') return NaN;
  if (t === 'inf' || t === '+inf' || t === 'infinity' || t === '+infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  if (!/^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isNaN(n) ? undefined : n;
}

function refParseStep(text: string | number | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = typeof text === 'number' ? text : /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}

const REF_POLY = new RegExp(
  String.raw`\bepoch\s+(\d{1,15}),\s*loss\s*=\s*(?:tensor\(\s*)?(${NUMBER_SOURCE})` +
    String.raw`(?:,\s*(?:grad_fn|device|dtype|requires_grad)=[^,)]{0,200})*\s*\)?` +
    String.raw`(?:,\s*rank\s+\d+\s*/\s*\d+\s*\(([^()\s]{1,255})\))?`,
  'i',
);
const refPolynomial: RefParser = {
  name: 'polynomial',
  parse(line: string): ParsedLine | null {
    if (line.length > 4096 && !line.includes('epoch')) return null;
    const m = REF_POLY.exec(line);
    if (!m) return null;
    const step = refParseStep(m[1]);
    const value = refParseNumber(m[2]);
    if (step === undefined || value === undefined) return null;
    return { metrics: [{ key: 'loss', value, step }], ...(m[3] ? { host: m[3] } : {}) };
  },
};

const REF_HEAD = new RegExp(
  String.raw`\bE(\d{1,15})\s+([A-Za-z][A-Za-z0-9_]{0,40})\s+(${NUMBER_SOURCE})\s+loss,\s*(${NUMBER_SOURCE})%\s+correct`,
  'i',
);
const REF_EXTRA = new RegExp(String.raw`(${NUMBER_SOURCE})\s+(precision|recall|f1 score|auc)\b`, 'gi');
const REF_EXTRA_KEY: Record<string, string> = {
  precision: 'precision',
  recall: 'recall',
  'f1 score': 'f1',
  auc: 'auc',
};
const refLuna: RefParser = {
  name: 'luna',
  parse(line: string): ParsedLine | null {
    const m = REF_HEAD.exec(line);
    if (!m) return null;
    const step = refParseStep(m[1]);
    const loss = refParseNumber(m[3]);
    const correct = refParseNumber(m[4]);
    if (step === undefined || loss === undefined || correct === undefined) return null;
    const mode = m[2];
    const metrics = [
      { key: `${mode}/loss`, value: loss, step },
      { key: `${mode}/correct`, value: correct, step },
    ];
    const rest = line.slice(m.index + m[0].length, m.index + m[0].length + 2048);
    for (const e of rest.matchAll(REF_EXTRA)) {
      const value = refParseNumber(e[1]);
      const name = REF_EXTRA_KEY[e[2].toLowerCase()];
      if (value !== undefined && name) metrics.push({ key: `${mode}/${name}`, value, step });
    }
    return { metrics };
  },
};

function refToValue(v: unknown): number | undefined {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return undefined;
}
function refParseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    try {
      return JSON.parse(text.replace(/(?<=[:,[]\s*)(-?Infinity|NaN)(?=\s*[,}\]])/g, '"$1"'));
    } catch {
      return undefined;
    }
  }
}
const refJsonl: RefParser = {
  name: 'jsonl',
  parse(line: string): ParsedLine | null {
    const t = line.trim();
    if (!t.startsWith('{') || !t.includes('track_launch')) return null;
    const obj = refParseJson(t);
    if (!obj || typeof obj !== 'object' || Array.isArray(obj)) return null;
    const rec = obj as Record<string, unknown>;
    if (rec.track_launch !== 1) return null;
    const m = rec.metrics;
    if (!m || typeof m !== 'object' || Array.isArray(m)) return null;
    const step = typeof rec.step === 'number' ? refParseStep(rec.step) : undefined;
    if (rec.step !== undefined && step === undefined) return null;
    const metrics: { key: string; value: number; step?: number }[] = [];
    for (const [key, v] of Object.entries(m as Record<string, unknown>)) {
      const value = refToValue(v);
      if (value === undefined || key.length === 0) continue; // any length: the sender maps long names
      metrics.push(step === undefined ? { key, value } : { key, value, step });
    }
    return metrics.length ? { metrics } : null;
  },
};

function refRegex(source: string): RefParser {
  const re = new RegExp(source);
  const names = [...source.matchAll(/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/g)].map((m) => m[1]);
  const metricGroups = names.filter((n) => n !== 'step' && n !== 'key' && n !== 'value');
  return {
    name: 'regex',
    parse(line: string): ParsedLine | null {
      const g = re.exec(line)?.groups;
      if (!g) return null;
      const step = g.step === undefined ? undefined : refParseStep(g.step);
      if (g.step !== undefined && step === undefined) return null;
      const metrics: { key: string; value: number; step?: number }[] = [];
      const add = (key: string, raw: string | undefined) => {
        const value = raw === undefined ? undefined : refParseNumber(raw);
        if (value !== undefined && key)
          metrics.push(step === undefined ? { key, value } : { key, value, step });
      };
      if (g.key !== undefined) add(g.key, g.value); // any length: the sender maps long names
      for (const n of metricGroups) add(n, g[n]);
      return metrics.length ? { metrics } : null;
    },
  };
}

const refAuto: RefParser = {
  name: 'auto',
  parse(line: string): ParsedLine | null {
    for (const p of [refJsonl, refPolynomial, refLuna]) {
      const r = p.parse(line);
      if (r) return r;
    }
    return null;
  },
};

function refExtract(
  parser: RefParser,
  lines: readonly string[],
  times: readonly number[],
  counters: Record<string, number>,
): { points: MetricPoint[]; skipped: number; host?: string } {
  const points: MetricPoint[] = [];
  let skipped = 0;
  let host: string | undefined;
  lines.forEach((line, i) => {
    let parsed: ParsedLine | null;
    try {
      parsed = parser.parse(line);
    } catch {
      parsed = null;
    }
    if (!parsed || parsed.metrics.length === 0) {
      if (line.trim() !== '') skipped += 1;
      return;
    }
    host ??= parsed.host;
    for (const m of parsed.metrics) {
      let step = m.step;
      if (step === undefined) {
        // an own property only (the old code took Object.prototype's for `__proto__`, `toString`)
        step = Object.prototype.hasOwnProperty.call(counters, m.key) ? counters[m.key] : 0;
        const count = { value: step + 1, writable: true, enumerable: true, configurable: true };
        Object.defineProperty(counters, m.key, count);
      }
      points.push({ key: m.key, value: m.value, step, timestamp: times[i] });
    }
  });
  return host === undefined ? { points, skipped } : { points, skipped, host };
}

// ---------------------------------------------------------------- inputs

const SPACES = [' ', '  ', '\t', '\u00a0', '\ufeff', '\u2028', '\u3000', '\u180e', '\v', '\r'];
const space = fc.constantFrom(...SPACES);
const digits = (max: number) =>
  fc.stringOf(fc.constantFrom(...'0123456789'), { minLength: 1, maxLength: max });

/** Numbers as scripts print them, and near misses. */
const numberText: fc.Arbitrary<string> = fc.oneof(
  fc.double().map(String),
  fc
    .tuple(fc.double(), fc.integer({ min: 1, max: 21 }))
    .map(([x, p]) => (Number.isFinite(x) ? x.toPrecision(p) : String(x))),
  fc
    .tuple(fc.double(), fc.integer({ min: 0, max: 20 }))
    .map(([x, p]) => (Number.isFinite(x) ? x.toExponential(p) : String(x))),
  fc
    .tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 25 }))
    .map(([x, p]) => x.toFixed(p)),
  fc.integer().map(String),
  digits(40),
  fc
    .tuple(digits(20), digits(30), fc.constantFrom('', 'e', 'E', 'e-', 'e+', 'E-'), digits(5))
    .map(([a, b, e, x]) => `${a}.${b}${e}${e ? x : ''}`),
  fc.stringOf(fc.constantFrom(...'0123456789.eE+-'), { maxLength: 12 }),
  fc.constantFrom(
    'nan',
    'NaN',
    '-nan',
    '+NAN',
    'inf',
    '-inf',
    '+Inf',
    'Infinity',
    '-Infinity',
    '+infinity',
    'INFINITY',
    'infinit',
    'nanx',
    '1e',
    '1e+',
    '.',
    '.e1',
    '-.5',
    '5.',
    '+5.e3',
    '0.0',
    '-0',
    '-0.0e-0',
    '00012.5000',
    '1e400',
    '1e-400',
    '-1e-324',
    '4.9e-324',
    '1.7976931348623157e308',
    '1.7976931348623159e308',
    '9007199254740993',
    '0.1234567890123456789',
    '123456789012345.6',
    '0.000000000000000000000001',
    '1e22',
    '1e23',
    '999999999999999e22',
    '0.15419788658618927',
  ),
);
const spaced = (a: fc.Arbitrary<string>) =>
  fc.tuple(fc.option(space, { nil: '' }), a, fc.option(space, { nil: '' })).map(([x, s, y]) => x + s + y);
const word = fc.stringOf(fc.constantFrom(...'abcXYZ_09-.:'), { minLength: 1, maxLength: 12 });
const garbage = fc.oneof(
  fc.string(),
  fc.fullUnicodeString({ maxLength: 40 }),
  fc.uint8Array({ maxLength: 60 }).map((b) => Buffer.from(b).toString('utf8')),
);

/** Lines built from a format's pieces: valid ones with random fields, and every kind of near miss. */
function linesOf(pieces: fc.Arbitrary<string>[], valid: fc.Arbitrary<string>): fc.Arbitrary<string> {
  const piece = fc.oneof(...pieces, numberText, space, word);
  return fc.oneof(
    { arbitrary: valid, weight: 4 },
    { arbitrary: fc.array(piece, { maxLength: 24 }).map((ps) => ps.join('')), weight: 3 },
    {
      // a valid line with a piece changed, inserted or removed
      arbitrary: fc
        .tuple(valid, fc.nat(), fc.nat({ max: 6 }), piece)
        .map(([l, at, cut, p]) => l.slice(0, at % (l.length + 1)) + p + l.slice((at % (l.length + 1)) + cut)),
      weight: 3,
    },
    { arbitrary: garbage, weight: 1 },
    { arbitrary: fc.tuple(garbage, valid, garbage).map((xs) => xs.join('')), weight: 1 },
  );
}

const caseOf = (w: string) =>
  fc.constantFrom(
    w,
    w.toUpperCase(),
    w[0].toUpperCase() + w.slice(1),
    w.replace(/./, (c) => c.toUpperCase()),
  );

/** The line as the polynomial example prints it (the benchmark's), fields random. */
const polyCanonical = fc
  .tuple(digits(15), numberText, digits(3), digits(3), word)
  .map(([e, v, r, w, h]) => `epoch ${e}, loss = ${v}, rank ${r}/${w} (${h}).`);

const polyLine = linesOf(
  [
    caseOf('epoch'),
    caseOf('loss'),
    caseOf('rank'),
    fc.constantFrom(
      'epoch ',
      ', loss = ',
      ',loss=',
      'tensor(',
      'TENSOR( ',
      ')',
      ', grad_fn=<MseLossBackward0>',
      ', device=cuda:0',
      ',dtype=torch.float32',
      ', requires_grad=True',
      ', rank ',
      ' (',
      '(node001)',
      ').',
      '/',
      ',',
      'xepoch',
      '_epoch',
      '1epoch',
      '(a b)',
      '(' + 'h'.repeat(255) + ')',
      '(' + 'h'.repeat(256) + ')',
    ),
    digits(17),
  ],
  fc.oneof(
    polyCanonical,
    fc
      .record({
        e: caseOf('epoch'),
        s1: fc.oneof(fc.constant(' '), space),
        step: digits(16),
        l: caseOf('loss'),
        eq: fc.constantFrom(' = ', '=', ' =', '\u00a0=\t'),
        tensor: fc.constantFrom('', 'tensor(', 'tensor( '),
        v: numberText,
        extra: fc.constantFrom('', ', grad_fn=<AddBackward0>', ', device=cpu', ')', ' )', ', grad_fn=<x>)'),
        rank: fc.constantFrom('', ', rank ', ', RANK ', ',rank  ', ', rank', ' , rank '),
        r: fc.tuple(digits(3), fc.constantFrom('/', ' / ', '/ '), digits(3)).map((x) => x.join('')),
        host: fc.oneof(
          word,
          fc.stringOf(fc.constantFrom('a', '-', '1', '.'), { minLength: 1, maxLength: 260 }),
          fc.constantFrom('', 'a b', 'h(', 'nöde-1', 'x'.repeat(300)),
        ),
        tail: fc.constantFrom('.', '', ')', ' trailing words', '.\r'),
        pre: fc.constantFrom('', 'INFO ', '[rank0] ', 'x', '0'),
      })
      .map(
        (f) =>
          `${f.pre}${f.e}${f.s1}${f.step},${f.l}${f.eq}${f.tensor}${f.v}${f.extra}${f.rank}${f.rank ? `${f.r} (${f.host})` : ''}${f.tail}`,
      ),
  ),
);

/** The line as LUNA's logMetrics prints it (the benchmark's), numbers random: its usual tail. */
const lunaCanonical = fc
  .tuple(
    digits(3),
    fc.constantFrom('trn', 'val', 'trn_neg'),
    fc.array(numberText, { minLength: 6, maxLength: 6 }),
  )
  .map(
    ([e, mode, v]) =>
      `2026-12-02 11:00:00,000 INFO     pid:4242 p2ch12.training:3:logMetrics E${e} ${mode}      ${v[0]} loss,  ${v[1]}% correct, ${v[2]} precision, ${v[3]} recall, ${v[4]} f1 score, ${v[5]} auc`,
  );
const decimal = fc.tuple(digits(4), digits(6)).map(([a, b]) => `${a}.${b}`);
const lunaTail = fc
  .tuple(
    fc.array(
      fc.oneof(
        decimal,
        fc.nat({ max: 9 }).map((d) => `0.${String(d).repeat(700)}`),
      ),
      {
        minLength: 4,
        maxLength: 4,
      },
    ),
    fc.tuple(caseOf('precision'), caseOf('recall'), caseOf('f1 score'), caseOf('auc')),
    fc.constantFrom('', 'x'.repeat(2100) + ' ', 'E2 val 1 loss, 2% correct '),
    fc.nat(),
    fc.constantFrom('', ' ', ',', 'x', '1', 'E', '\r', '  '),
  )
  .map(([v, w, pre, at, ch]) => {
    const line = `${pre}E1 trn 0.5 loss, 90.0% correct, ${v[0]} ${w[0]}, ${v[1]} ${w[1]}, ${v[2]} ${w[2]}, ${v[3]} ${w[3]}`;
    const i = at % (line.length + 1);
    return line.slice(0, i) + ch + line.slice(i); // one character more, somewhere (or none)
  });

const lunaLine = linesOf(
  [
    caseOf('loss,'),
    caseOf('correct'),
    caseOf('precision'),
    caseOf('recall'),
    caseOf('f1 score'),
    caseOf('auc'),
    fc.constantFrom(
      'E1 ',
      'e12 ',
      ' trn ',
      'val_neg',
      '% correct',
      ', ',
      ' loss, ',
      'xE1',
      'f1  score',
      'aucx',
      '(494640 of 494743)',
    ),
  ],
  fc.oneof(
    lunaCanonical,
    lunaTail,
    fc
      .record({
        pre: fc.constantFrom(
          '',
          '2026-12-02 11:00:00,000 INFO     pid:4242 p2ch12.training:3:logMetrics ',
          'x',
          'eE ',
        ),
        e: fc.constantFrom('E', 'e'),
        step: digits(16),
        mode: fc.oneof(
          fc.constantFrom(
            'trn',
            'val',
            'val_neg',
            'TRN',
            'trn_all',
            'a'.repeat(41),
            'a'.repeat(42),
            'mode_with_long_name',
          ),
          word,
        ),
        s: fc.constantFrom(' ', '      ', '\t', '\u00a0'),
        loss: numberText,
        lossw: caseOf('loss,'),
        correct: numberText,
        cw: caseOf('correct'),
        extras: fc.array(
          fc.tuple(
            fc.constantFrom(', ', ',', ' ', ', x', ''),
            numberText,
            fc.constantFrom(' ', '  ', '\t'),
            fc.oneof(caseOf('precision'), caseOf('recall'), caseOf('f1 score'), caseOf('auc'), word),
          ),
          { maxLength: 6 },
        ),
        tail: fc.constantFrom('', ' ', 'x', ' (494640 of 494743)', '\r'),
      })
      .map(
        (f) =>
          `${f.pre}${f.e}${f.step}${f.s}${f.mode}${f.s}${f.loss} ${f.lossw}  ${f.correct}% ${f.cw}` +
          f.extras.map((x) => x.join('')).join('') +
          f.tail,
      ),
  ),
);

const jsonValue = fc.oneof(
  fc.double().map((x) => (Number.isFinite(x) ? JSON.stringify(x) : String(x))),
  fc.constantFrom(
    'NaN',
    '-Infinity',
    'Infinity',
    '"NaN"',
    '"Infinity"',
    '"-Infinity"',
    'null',
    'true',
    '"x"',
    '[1]',
    '{}',
  ),
  numberText,
);
const jsonKey = fc.oneof(
  fc.constantFrom(
    'loss',
    'acc',
    '"',
    '',
    'a/b',
    '__proto__',
    '0',
    '12',
    'x'.repeat(240),
    'x'.repeat(241),
    'x'.repeat(300),
    'ü',
    '\\u0041',
  ),
  word,
);
/** Protocol lines as JSON.stringify and Python's json.dumps write them (the canonical path). */
const jsonlCanonical = fc
  .tuple(
    fc.option(fc.oneof(fc.nat(), fc.constant(2 ** 53), fc.constant(999999999999999)), { nil: undefined }),
    fc.array(fc.tuple(jsonKey, fc.oneof(fc.double(), fc.integer(), fc.constant(-0))), { maxLength: 5 }),
    fc.boolean(),
    fc.constantFrom('', ' ', '\u00a0'),
  )
  .map(([step, pairs, python, pad]) => {
    const sep = python ? [', ', ': '] : [',', ':'];
    const m = pairs.map(([k, v]) => `"${k}"${sep[1]}${Number.isFinite(v) ? JSON.stringify(v) : String(v)}`);
    const s = step === undefined ? '' : `"step"${sep[1]}${step}${sep[0]}`;
    return `${pad}{"track_launch"${sep[1]}1${sep[0]}${s}"metrics"${sep[1]}{${m.join(sep[0])}}}${pad}`;
  });

const jsonlLine = linesOf(
  [
    fc.constantFrom(
      '{',
      '}',
      '"track_launch"',
      ':',
      '1',
      ',',
      '"step"',
      '"metrics"',
      '{"a":1}',
      'NaN',
      '-Infinity',
    ),
  ],
  fc.oneof(
    jsonlCanonical,
    fc
      .record({
        tl: fc.constantFrom('1', '1.0', '2', '"1"', 'true'),
        step: fc.oneof(
          fc.constant(undefined),
          fc.constantFrom(
            '0',
            '5',
            '-1',
            '1.5',
            '1e3',
            '"5"',
            'null',
            '9007199254740993',
            '12345678901234567',
          ),
          digits(10),
        ),
        metrics: fc.array(fc.tuple(jsonKey, jsonValue), { maxLength: 5 }),
        order: fc.boolean(),
        sp: fc.constantFrom('', ' ', '  '),
        pad: fc.constantFrom('', ' ', '\t', '\u00a0'),
      })
      .map((f) => {
        const m = `{${f.metrics.map(([k, v]) => `"${k}":${f.sp}${v}`).join(`,${f.sp}`)}}`;
        const parts = [`"track_launch":${f.sp}${f.tl}`, `"metrics":${f.sp}${m}`];
        if (f.step !== undefined) parts.splice(1, 0, `"step":${f.sp}${f.step}`);
        if (f.order) parts.reverse();
        return `${f.pad}{${parts.join(`,${f.sp}`)}}${f.pad}`;
      }),
  ),
);

const regexLine = linesOf(
  [fc.constantFrom('it=', ' loss=', ' lr=', 'acc: ', ': ')],
  fc
    .tuple(fc.oneof(digits(17), fc.constantFrom('x', '-1', '')), spaced(numberText), numberText, word)
    .map(([s, l, r, k]) => fc.sample(fc.constantFrom(`it=${s} loss=${l} lr=${r}`, `${k}: ${l}`), 1)[0]),
);

// ---------------------------------------------------------------- helpers

/** Random bytes that exercise the split: newlines, CRs, ASCII, valid and invalid UTF-8. */
const logBytes = fc
  .array(
    fc.oneof(
      fc.constantFrom(
        Buffer.from('\n'),
        Buffer.from('\r\n'),
        Buffer.from('\r'),
        Buffer.from('\n\n'),
        Buffer.from('epoch 1, loss = 0.5, rank 0/2 (n1).\n'),
        Buffer.from('ü€😀'),
        Buffer.from([0xff]),
        Buffer.from([0xe2, 0x82]), // a cut 3-byte sequence
        Buffer.from([0xf0, 0x9f, 0x98]),
        Buffer.from([0xc3]),
        Buffer.from([0xed, 0xa0, 0x80]), // a surrogate, encoded
        Buffer.from([0x80, 0xbf]),
        Buffer.from([0xe2, 0x82, 0x0d, 0x0a]),
      ),
      fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b)),
      fc.string({ maxLength: 40 }).map((s) => Buffer.from(s)),
    ),
    { maxLength: 40 },
  )
  .map((bs) => Buffer.concat(bs));

/** The first line where two splits differ (as [text, end] pairs), or undefined: one expect per call,
 *  so that large inputs stay quick. */
function firstDiff(a: LogLine[], b: LogLine[]): unknown {
  for (let i = 0; i < Math.max(a.length, b.length); i++)
    if (a[i]?.text !== b[i]?.text || a[i]?.end !== b[i]?.end)
      return {
        line: i,
        got: a[i] && [a[i].text.slice(0, 80), a[i].end],
        want: b[i] && [b[i].text.slice(0, 80), b[i].end],
      };
  return undefined;
}

function sameLines(buf: Buffer, base: number): void {
  const ref = refCompleteLines(buf, base);
  const batch = new LineBatch(buf, base);
  expect(batch.consumed).toBe(ref.consumed);
  expect(firstDiff(batch.toLogLines(), ref.lines)).toBeUndefined();
  const cut = Array.from({ length: batch.length }, (_, i) => ({ text: batch.text(i), end: batch.end(i) }));
  expect(firstDiff(cut, ref.lines)).toBeUndefined();
  // final: the bytes after the last newline are one more line, as they are (the old readLines)
  const fin = new LineBatch(buf, base, true);
  const tail =
    ref.consumed < buf.length
      ? [
          {
            text: buf.toString('utf8', ref.consumed, Math.min(buf.length, ref.consumed + MAX_LINE)),
            end: base + buf.length,
          },
        ]
      : [];
  expect(firstDiff(fin.toLogLines(), [...ref.lines, ...tail])).toBeUndefined();
  expect(fin.consumed).toBe(buf.length);
}

function sameParse(fast: LineParser, ref: RefParser, line: string): void {
  expect(parseLine(fast, line)).toStrictEqual(ref.parse(line));
}

const RUNS = { numRuns: 2000 };

// ---------------------------------------------------------------- the properties

describe('line split', () => {
  it('matches a decode per line on random bytes (CRLF, invalid UTF-8)', () => {
    fc.assert(
      fc.property(logBytes, fc.nat({ max: 2 ** 40 }), (buf, base) => sameLines(buf, base)),
      RUNS,
    );
  });
  it('across pieces: long lines, lines around the 1 MiB piece size, multi-byte characters at the cuts', () => {
    const mib = 1 << 20;
    const parts = [
      Buffer.alloc(mib - 3, 'a'),
      Buffer.from('ü\r\n'),
      Buffer.alloc(3 * mib, 'b'),
      Buffer.from('\n€'),
      Buffer.alloc(mib - 2, 'c'),
      Buffer.from([0xe2, 0x82, 0x0a]),
      Buffer.from('x\n'.repeat(300000)),
      Buffer.from('tail without newline ü'),
    ];
    sameLines(Buffer.concat(parts), 7);
    sameLines(Buffer.concat(parts.slice(0, 3)), 0);
    sameLines(Buffer.from('\n'.repeat(mib + 5)), 1);
  });
  it('keeps the old .out.ts times', () => {
    const ts = fc.oneof(
      fc
        .tuple(
          digits(14),
          fc.option(fc.constantFrom('.', '. '), { nil: '' }),
          fc.option(digits(11), { nil: '' }),
        )
        .map((xs) => xs.join('')),
      spaced(fc.tuple(digits(12), digits(9)).map(([a, b]) => `${a}.${b}`)),
      garbage,
      numberText,
    );
    fc.assert(
      fc.property(ts, (t) => {
        expect(tsToMs(t)).toBe(refTsToMs(t));
      }),
      RUNS,
    );
  });
});

describe('numbers', () => {
  it('parseNumber as before, on numbers as printed and near misses, with white space', () => {
    fc.assert(
      fc.property(fc.oneof(spaced(numberText), garbage), (t) => {
        expect(Object.is(parseNumber(t), refParseNumber(t)) || parseNumber(t) === refParseNumber(t)).toBe(
          true,
        );
        expect(parseNumber(t)).toStrictEqual(refParseNumber(t));
      }),
      { numRuns: 20000 },
    );
  });
  it('numberOf of a regex match is its value, as Number() has it (-0 too)', () => {
    const re = new RegExp(`^(?:${NUMBER_SOURCE})$`, 'i');
    fc.assert(
      fc.property(numberText, (t) => {
        if (!re.test(t)) return;
        expect(Object.is(numberOf(t), refParseNumber(t))).toBe(true);
      }),
      { numRuns: 20000 },
    );
    for (const t of ['-0', '-0.0', '0e5', '-0e-5', '+0.', '-.0'])
      expect(Object.is(numberOf(t), refParseNumber(t))).toBe(true);
  });
  it('parseStep as before', () => {
    fc.assert(
      fc.property(
        fc.oneof(spaced(numberText), digits(20), garbage, fc.double(), fc.integer(), fc.constant(undefined)),
        (s) => {
          expect(parseStep(s)).toBe(refParseStep(s));
        },
      ),
      { numRuns: 5000 },
    );
  });
});

describe('parsers', () => {
  it('polynomial', () => {
    fc.assert(
      fc.property(polyLine, (l) => sameParse(polynomialParser, refPolynomial, l)),
      RUNS,
    );
  });
  it('luna', () => {
    fc.assert(
      fc.property(lunaLine, (l) => sameParse(lunaParser, refLuna, l)),
      RUNS,
    );
  });
  it('jsonl', () => {
    fc.assert(
      fc.property(jsonlLine, (l) => sameParse(jsonlParser, refJsonl, l)),
      RUNS,
    );
  });
  it('regex', () => {
    const sources = [
      'it=(?<step>\\d+) loss=(?<loss>\\S+) lr=(?<lr>\\S+)',
      '(?<key>\\w+): (?<value>\\S+)',
      '(?<key>[^:]+): (?<value>.*)',
      'it=(?<step>\\S*) loss=(?<loss>.*)',
    ];
    const pairs = sources.map((s) => [parserFor(`regex:${s}`), refRegex(s)] as const);
    fc.assert(
      fc.property(regexLine, (l) => {
        for (const [fast, ref] of pairs) sameParse(fast, ref, l);
      }),
      RUNS,
    );
  });
  it('auto', () => {
    fc.assert(
      fc.property(fc.oneof(polyLine, lunaLine, jsonlLine), (l) => sameParse(autoParser, refAuto, l)),
      RUNS,
    );
  });
  it('1 MB lines', () => {
    const mb = 1 << 20;
    const lines = [
      'epoch '.repeat(180000),
      'epoch 1, loss = 0.5, rank 0/1 (h).' + ' '.repeat(mb),
      'x'.repeat(mb) + 'epoch 1, loss = 0.5',
      'E1 trn 0.1 loss, 50.0% correct' + ', 0.5 auc'.repeat(200) + ' '.repeat(mb),
      'E1 trn 0.1 loss, 50.0% correct' + ' '.repeat(2040) + '0.5 auc, 0.7 recall',
      'E1 trn 0.1 loss, 50.0% correct' + ' '.repeat(2044) + '0.5 aucx',
      'E1 trn 0.1 loss, 50.0% correct' + ' '.repeat(2044) + '0.5 auc',
      '{"track_launch":1,"metrics":{"a":1}}' + ' '.repeat(mb),
    ];
    for (const l of lines) {
      sameParse(polynomialParser, refPolynomial, l);
      sameParse(lunaParser, refLuna, l);
      sameParse(jsonlParser, refJsonl, l);
      sameParse(autoParser, refAuto, l);
    }
  });
});

/** extractPoints' points as objects: appended to columns that already hold a point (kept as it was). */
function extract(
  parser: LineParser,
  lines: readonly string[] | LineBatch,
  times: readonly number[],
  counters: Record<string, number>,
  count?: number,
): { points: MetricPoint[]; skipped: number; host?: string } {
  const pre = { key: 'pre', value: -1, step: 7, timestamp: 8 };
  const cols = PointColumns.from([pre]);
  const { added, ...rest } = extractPoints(parser, lines, times, counters, cols, count);
  expect(added).toBe(cols.length - 1);
  expect(cols.toPoints(0, 1)).toStrictEqual([pre]);
  return { points: cols.toPoints(1), ...rest };
}

describe('extractPoints', () => {
  const formats: [string, fc.Arbitrary<string>, RefParser][] = [
    ['polynomial', polyLine, refPolynomial],
    ['luna', lunaLine, refLuna],
    ['jsonl', jsonlLine, refJsonl],
    ['regex:(?<key>\\w+): (?<value>\\S+)', regexLine, refRegex('(?<key>\\w+): (?<value>\\S+)')],
    ['auto', fc.oneof(polyLine, lunaLine, jsonlLine), refAuto],
  ];
  it.each(formats)(
    '%s: points, skipped, host and counters as before, from texts and from a LineBatch',
    (f, line, ref) => {
      const parser = parserFor(f);
      const blank = fc.constantFrom('', ' ', '\t', '\u00a0', '\u2028');
      fc.assert(
        fc.property(
          fc.array(fc.oneof({ arbitrary: line, weight: 5 }, { arbitrary: blank, weight: 1 }), {
            maxLength: 12,
          }),
          fc.dictionary(fc.constantFrom('acc', 'loss', 'a', 'x'), fc.nat(100)),
          fc.nat(),
          (lines, counters, cut) => {
            const texts = lines.map((l) => l.replace(/[\r\n]/g, ' '));
            const times = texts.map((_, i) => 1764669000000 + i * 1000);
            const want = refExtract(ref, texts, times, { ...counters });
            const wantCounters = { ...counters };
            refExtract(ref, texts, times, wantCounters);
            const got = { ...counters };
            expect(extract(parser, texts, times, got)).toStrictEqual(want);
            expect(got).toStrictEqual(wantCounters);
            // the same lines through a LineBatch, the first `count` of them
            const batch = new LineBatch(Buffer.from(texts.map((t) => t + '\n').join('')), 0);
            const count = texts.length ? cut % (texts.length + 1) : 0;
            const part = { ...counters };
            expect(extract(parser, batch, times, part, count)).toStrictEqual(
              refExtract(ref, texts.slice(0, count), times, { ...counters }),
            );
          },
        ),
        { numRuns: 300 },
      );
    },
  );
  it("numbers the values of keys named like Object.prototype's from 0, in the counters as own keys", () => {
    const texts = [
      '{"track_launch":1,"metrics":{"__proto__":1,"toString":2}}',
      '{"track_launch":1,"metrics":{"__proto__":3}}',
    ];
    const counters: Record<string, number> = {};
    const got = extract(parserFor('jsonl'), texts, [1, 2], counters);
    expect(got.points.map((p) => [p.key, p.step])).toEqual([
      ['__proto__', 0],
      ['toString', 0],
      ['__proto__', 1],
    ]);
    expect(JSON.stringify(counters)).toBe('{"__proto__":2,"toString":1}');
  });
  it('a parser that throws', () => {
    const throwing: LineParser = {
      name: 'y',
      parseInto: () => {
        throw new Error('bug');
      },
    };
    const texts = ['epoch 1, loss = nan, rank 0/2 (h1).', 'garbage', '', 'epoch 2, loss = 0.5'];
    const times = [1, 2, 3, 4];
    expect(extract(throwing, texts, times, {})).toStrictEqual({ points: [], skipped: 3 });
  });
});
