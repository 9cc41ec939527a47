import fc from 'fast-check';
import { parserFor, autoParser } from '../../../tracking-plugin/parsers';
import { jsonlParser } from '../../../tracking-plugin/parsers/jsonl';
import { lunaParser } from '../../../tracking-plugin/parsers/luna';
import { polynomialParser } from '../../../tracking-plugin/parsers/polynomial';
import { TrackLaunchError } from '../../../core/errors';
import { parseLine } from './parse-line';

describe('polynomial', () => {
  it('parses the seed lines', () => {
    expect(
      parseLine(polynomialParser, 'epoch 100, loss = 0.15419788658618927, rank 0/3 (cpuamdg10001).'),
    ).toEqual({
      metrics: [{ key: 'loss', value: 0.15419788658618927, step: 100 }],
      host: 'cpuamdg10001',
    });
    expect(parseLine(polynomialParser, 'epoch 0, loss = 0.6970552802085876')).toEqual({
      metrics: [{ key: 'loss', value: 0.6970552802085876, step: 0 }],
    });
  });
  it('parses tensor(...) and nan', () => {
    expect(
      parseLine(polynomialParser, 'epoch 7, loss = tensor(0.5, grad_fn=<MseLossBackward0>), rank 1/3 (n2).'),
    ).toEqual({
      metrics: [{ key: 'loss', value: 0.5, step: 7 }],
      host: 'n2',
    });
    expect(parseLine(polynomialParser, 'epoch 9, loss = nan, rank 1/3 (n2).')?.metrics[0].value).toBeNaN();
  });
  it('ignores other lines', () => {
    for (const l of [
      'Running DDP on rank 1/3.',
      'plot evaluation result to errors.pdf',
      '',
      'epoch x, loss = 1',
    ]) {
      expect(parseLine(polynomialParser, l)).toBeNull();
    }
  });
});

describe('luna', () => {
  it('parses p2ch11 and p2ch14 lines', () => {
    const a = parseLine(
      lunaParser,
      '2020-01-01 10:00:00,000 INFO     pid:1 p2ch11.training:264:logMetrics E1 trn      0.0185 loss,  99.7% correct, ',
    );
    expect(a?.metrics).toEqual([
      { key: 'trn/loss', value: 0.0185, step: 1 },
      { key: 'trn/correct', value: 99.7, step: 1 },
    ]);
    const b = parseLine(
      lunaParser,
      'E3 val      0.2500 loss,  90.1% correct, 0.8000 precision, 0.5000 recall, 0.6154 f1 score, 0.9000 auc',
    );
    expect(b?.metrics.map((m) => [m.key, m.value])).toEqual([
      ['val/loss', 0.25],
      ['val/correct', 90.1],
      ['val/precision', 0.8],
      ['val/recall', 0.5],
      ['val/f1', 0.6154],
      ['val/auc', 0.9],
    ]);
    const c = parseLine(lunaParser, 'E2 val_neg  0.0026 loss, 100.0% correct (494640 of 494743)');
    expect(c?.metrics.map((m) => m.key)).toEqual(['val_neg/loss', 'val_neg/correct']);
  });
});

describe('jsonl', () => {
  it('parses the protocol, incl. Python NaN literals', () => {
    expect(
      parseLine(jsonlParser, '{"track_launch": 1, "step": 3, "metrics": {"loss": 0.5, "acc": 1}}')?.metrics,
    ).toEqual([
      { key: 'loss', value: 0.5, step: 3 },
      { key: 'acc', value: 1, step: 3 },
    ]);
    const r = parseLine(
      jsonlParser,
      '{"track_launch": 1, "step": 4, "metrics": {"loss": NaN, "g": -Infinity, "h": "Infinity"}}',
    );
    expect(r?.metrics.map((m) => m.value)).toEqual([NaN, -Infinity, Infinity]);
    expect(parseLine(jsonlParser, '{"track_launch": 1, "metrics": {"x": 2}}')?.metrics).toEqual([
      { key: 'x', value: 2 },
    ]);
  });
  it('rejects other JSON', () => {
    expect(parseLine(jsonlParser, '{"step": 1, "metrics": {"x": 1}}')).toBeNull();
    expect(parseLine(jsonlParser, '{"track_launch": 1, "step": -1, "metrics": {"x": 1}}')).toBeNull();
    expect(parseLine(jsonlParser, '{"track_launch": 1, "step": 1, "metrics": [1]}')).toBeNull();
    expect(parseLine(jsonlParser, '{"track_launch": 1, broken')).toBeNull();
  });
});

describe('regex and choice', () => {
  it('uses named groups', () => {
    const p = parserFor('regex:it=(?<step>\\d+) loss=(?<loss>\\S+) lr=(?<lr>\\S+)');
    expect(parseLine(p, 'it=5 loss=0.25 lr=1e-3')?.metrics).toEqual([
      { key: 'loss', value: 0.25, step: 5 },
      { key: 'lr', value: 0.001, step: 5 },
    ]);
    const kv = parserFor('regex:(?<key>\\w+): (?<value>\\S+)');
    expect(parseLine(kv, 'acc: 0.5')?.metrics).toEqual([{ key: 'acc', value: 0.5 }]);
  });
  it('refuses bad formats with a clear error', () => {
    expect(() => parserFor('csv')).toThrow(TrackLaunchError);
    expect(() => parserFor('regex:(')).toThrow(/metrics-format regex/);
    expect(() => parserFor('regex:\\d+')).toThrow(/names no metric/);
  });
  it('auto understands all built-in formats', () => {
    expect(parseLine(autoParser, 'epoch 1, loss = 2, rank 0/1 (h).')?.metrics[0].key).toBe('loss');
    expect(parseLine(autoParser, 'E1 trn 0.1 loss, 50.0% correct')?.metrics[0].key).toBe('trn/loss');
    expect(parseLine(autoParser, '{"track_launch":1,"step":1,"metrics":{"a":1}}')?.metrics[0].key).toBe('a');
  });
});

describe('parsers never throw', () => {
  const parsers = ['auto', 'polynomial', 'luna', 'jsonl', 'regex:(?<step>\\d+) (?<x>\\S+)'].map((f) =>
    parserFor(f),
  );
  it('on arbitrary strings, incl. invalid UTF-8 decoded', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.string(),
          fc.fullUnicodeString(),
          fc.uint8Array().map((b) => Buffer.from(b).toString('utf8')),
        ),
        (s) => {
          for (const p of parsers) {
            const r = parseLine(p, s);
            if (r) for (const m of r.metrics) expect(typeof m.value).toBe('number');
          }
        },
      ),
      { numRuns: 500 },
    );
  });
  it('on near-miss lines built from the formats', () => {
    const piece = fc.constantFrom(
      'epoch ',
      '1',
      ', loss = ',
      'nan',
      'tensor(',
      ')',
      ' rank 0/3 (h).',
      'E1 ',
      'trn ',
      ' loss, ',
      '% correct',
      '{"track_launch":1',
      ',"step":',
      '"metrics":{',
      '}',
      'NaN',
      '-Infinity',
      ' ',
    );
    fc.assert(
      fc.property(fc.array(piece, { maxLength: 30 }), (ps) => {
        for (const p of parsers) parseLine(p, ps.join(''));
      }),
      { numRuns: 1000 },
    );
  });
  it('on 1 MB lines, quickly', () => {
    const big = [
      'x'.repeat(1 << 20),
      'epoch '.repeat(180000),
      '{"track_launch":1,' + ' '.repeat(1 << 20),
      'E1 trn '.repeat(150000),
      '1 '.repeat(500000),
    ];
    const t0 = Date.now();
    for (const s of big) for (const p of parsers) parseLine(p, s);
    expect(Date.now() - t0).toBeLessThan(5000);
  });
});
