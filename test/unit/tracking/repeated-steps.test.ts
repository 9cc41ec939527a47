// A step logged more than once (a requeue that restarts at step 0, a line logged twice): the latest
// line of each rank's step wins, in the series (latestPerStep), the live aggregates and the final
// settle of the parent's aggregates, on real spool files across ingests and crashes.
import fc from 'fast-check';
import { promises as fs } from 'fs';
import * as path from 'path';
import { Aggregator, settle, type KeySeries } from '../../../tracking-plugin/ingest/aggregate';
import { decodeRecords } from '../../../tracking-plugin/ingest/records';
import { SpoolStage } from '../../../tracking-plugin/ingest/spool-stage';
import { latestPerStep } from '../../../tracking-plugin/steps';
import type { MetricPoint } from '../../../tracking-plugin/types';
import { appendLines, endJob, jobRecord, makeRunDir, polyLine, writeJob } from './fixture';

const f64 = (xs: number[]) => Float64Array.from(xs);

/** The test's own reading: each step's value is the one written last; steps ascending. */
function lastWritten(steps: number[], values: number[]): [number, number][] {
  const byStep = new Map<number, number>();
  steps.forEach((s, i) => byStep.set(s, values[i]));
  return [...byStep.entries()].sort((a, b) => a[0] - b[0]);
}

describe('latestPerStep', () => {
  it('within one attempt: the last line of a step wins', () => {
    const l = latestPerStep(f64([0, 1, 1, 2]), f64([10, 11, 12, 13]), f64([100, 101, 102, 103]));
    expect([...l.steps]).toEqual([0, 1, 2]);
    expect([...l.values]).toEqual([10, 12, 13]);
    expect([...l.times]).toEqual([100, 102, 103]);
    expect(l.repeats).toEqual([]); // the same step twice: no step went back
  });

  it('across attempts: the latest attempt wins, and where the steps went back is recorded', () => {
    // attempt 1: steps 0..4; attempt 2 restarts at step 0 and reaches step 2
    const steps = [0, 1, 2, 3, 4, 0, 1, 2];
    const values = [9, 8, 7, 6, 5, 1, 2, 3];
    const times = [0, 1, 2, 3, 4, 60, 61, 62];
    const l = latestPerStep(f64(steps), f64(values), f64(times));
    expect([...l.steps]).toEqual([0, 1, 2, 3, 4]);
    expect([...l.values]).toEqual([1, 2, 3, 6, 5]);
    expect([...l.times]).toEqual([60, 61, 62, 3, 4]);
    expect(l.repeats).toEqual([{ from: 0, to: 2, before: 4, after: 60 }]); // steps 0..2 logged again
  });

  it('steps never go backwards, and each holds its last line (any series)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: -3, max: 8 }), fc.integer()), { maxLength: 40 }),
        (pts) => {
          const steps = pts.map((p) => p[0]);
          const values = pts.map((p) => p[1]);
          const l = latestPerStep(f64(steps), f64(values), f64(steps.map((_, i) => i)));
          for (let i = 1; i < l.steps.length; i++) expect(l.steps[i]).toBeGreaterThan(l.steps[i - 1]);
          expect([...l.steps].map((s, i) => [s, l.values[i]])).toEqual(lastWritten(steps, values));
        },
      ),
    );
  });

  it('returns the usual series (ascending, no step twice) as it is', () => {
    const s = f64([0, 1, 5]);
    expect(latestPerStep(s, f64([1, 2, 3]), f64([0, 0, 0])).steps).toBe(s);
  });
});

describe('aggregates of a repeated step', () => {
  const p = (key: string, step: number, value: number, timestamp = 10) => ({ key, step, value, timestamp });

  it('live: the last line of a rank wins; a step already aggregated is counted for the end', () => {
    const a = new Aggregator();
    a.add(0, p('loss', 0, 1, 5));
    a.add(1, p('loss', 0, 3, 9));
    a.add(1, p('loss', 0, 5, 11)); // the same step again before the others: the last line counts
    expect(a.take(2)).toEqual([p('loss/mean', 0, 3, 11), p('loss/min', 0, 1, 11), p('loss/max', 0, 5, 11)]);
    a.add(0, p('loss', 0, 7, 20)); // a requeue logs step 0 again
    expect(a.take(2)).toEqual([]);
    expect(a.repeatedCount).toBe(1);
    expect(a.pendingCount).toBe(0);
  });

  it('at the end: every step from the ranks latest points; only what changed is given', () => {
    // 3 ranks, two attempts each: attempt 1 steps 0..3, attempt 2 restarts at step 0 and reaches 1;
    // rank 2 also logs step 3 twice in attempt 1. Values are exact in binary: any sum order agrees.
    const series = (r: number): KeySeries => ({
      steps: [0, 1, 2, 3, ...(r === 2 ? [3] : []), 0, 1],
      values: [1, 2, 3, 4, ...(r === 2 ? [40] : []), 0.5 + r, 0.25 * r].map((v) => v + r),
      times: [1, 2, 3, 4, ...(r === 2 ? [5] : []), 100 + r, 101 + r],
    });
    const ranks = new Map([0, 1, 2].map((r) => [r, new Map([['loss', series(r)]])]));
    // the test's own reading: per step, each rank's last line, then mean/min/max over the ranks
    const want = new Map<number, number[]>();
    for (const r of [0, 1, 2])
      for (const [step, v] of lastWritten(series(r).steps, series(r).values))
        want.set(step, [...(want.get(step) ?? []), v]);
    const expected = (step: number) => {
      const vs = want.get(step) as number[];
      return [vs.reduce((a, b) => a + b) / vs.length, Math.min(...vs), Math.max(...vs)];
    };
    const out = settle(ranks, new Map());
    expect(out.map((q) => [q.key, q.step, q.value])).toEqual(
      [0, 1, 2, 3].flatMap((s) => ['mean', 'min', 'max'].map((k, i) => [`loss/${k}`, s, expected(s)[i]])),
    );
    // step 0's timestamp: the latest of the points that won (attempt 2's)
    expect(out[0].timestamp).toBe(102);
    // what the parent already holds for steps 2 and 3 is left out
    const last = new Map(
      ['mean', 'min', 'max'].map((k, i) => [`loss/${k}`, new Map([2, 3].map((s) => [s, expected(s)[i]]))]),
    );
    expect(settle(ranks, last).map((q) => q.step)).toEqual([0, 0, 0, 1, 1, 1]);
  });
});

describe('the spool stage with a requeue that restarts at step 0', () => {
  const spooled = async (dir: string, name: string): Promise<MetricPoint[]> =>
    decodeRecords(await fs.readFile(path.join(dir, 'tracking', 'spool', name)), 0).map((r) => r.point);
  const attempt1 = (r: number) => [0, 1, 2, 3, 4].map((e) => polyLine(e, r, 2, 1 + e + r));
  // attempt 2 restarts at step 0 with other values; rank 1 logs step 1 twice (the last line counts)
  const attempt2 = (r: number) => [
    ...[0, 1].map((e) => polyLine(e, r, 2, 0.25 * (e + 1) + r)),
    ...(r === 1 ? [polyLine(1, r, 2, 8)] : []),
    polyLine(2, r, 2, 0.5 + r),
  ];
  /** The test's own reading of the logs: per step, each rank's last line; the mean over the ranks. */
  const expectedMeans = () => {
    const last = [0, 1].map((r) => {
      const lines = [...attempt1(r), ...attempt2(r)];
      const m = new Map<number, number>();
      for (const l of lines) {
        const [, e, v] = /^epoch (\d+), loss = ([^,]+),/.exec(l) as RegExpExecArray;
        m.set(Number(e), Number(v));
      }
      return m;
    });
    return [0, 1, 2, 3, 4].map((s) => [s, ((last[0].get(s) as number) + (last[1].get(s) as number)) / 2]);
  };
  const latestMeans = (parent: MetricPoint[]) => {
    const m = new Map<number, number>();
    for (const q of parent) if (q.key === 'loss/mean') m.set(q.step, q.value);
    return [...m.entries()].sort((a, b) => a[0] - b[0]);
  };

  it.each([false, true])(
    'the parent ends with the latest values (crash before the end: %s)',
    async (crash) => {
      const dir = await makeRunDir();
      const job = jobRecord({}, 2);
      await writeJob(dir, job);
      const step = async (final: boolean) => (await SpoolStage.open(dir, job, undefined)).step(job, final);
      for (const r of [0, 1]) await appendLines(dir, r, attempt1(r), 1764669000);
      await step(false);
      expect(await spooled(dir, 'parent.jsonl')).toHaveLength(15);
      for (const r of [0, 1]) await appendLines(dir, r, attempt2(r), 1764669100);
      await step(false);
      expect(await spooled(dir, 'parent.jsonl')).toHaveLength(15); // live: the repeats wait for the end
      if (crash) {
        // a crash after an append, before state.json: cut back at the next open
        await fs.appendFile(path.join(dir, 'tracking', 'spool', 'parent.jsonl'), '["loss/mean",9,0,9]\n["lo');
      }
      await endJob(dir, 'COMPLETED');
      await step(true);
      const parent = await spooled(dir, 'parent.jsonl');
      expect(latestMeans(parent)).toEqual(expectedMeans());
      // steps 0..2 changed: sent again once, as new points; steps 3..4 not
      expect(parent.slice(15).map((q) => q.step)).toEqual([0, 0, 0, 1, 1, 1, 2, 2, 2]);
      const state = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8'));
      expect(state.parent).toMatchObject({ points: 24, pending: 0, repeated: 0 });
      await step(true); // ingest again: nothing more
      expect(await spooled(dir, 'parent.jsonl')).toHaveLength(24);
    },
  );
});
