// GroupedSaver: saves grouped while answers come, never a caller answered before a write that
// started after it asked (what it asked to save is in that write), one write at a time.
import fc from 'fast-check';
import { GroupedSaver } from '../../../tracking-plugin/ingest/saver';

/** A saver over a write that the test finishes by hand, on jest's fake timers and its own clock. */
function rig(gapMs = 50, mark: () => number = () => 0) {
  let clock = 0;
  let version = 0; // the state: bumped by the test, captured by a write when it starts
  const writes: { version: number; startedAt: number; mark: number; finish: (ok: boolean) => void }[] = [];
  let running = 0;
  let maxRunning = 0;
  const saver = new GroupedSaver(
    () =>
      new Promise<void>((resolve, reject) => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        writes.push({
          version,
          startedAt: clock,
          mark: mark(),
          finish: (ok) => {
            running--;
            if (ok) resolve();
            else reject(new Error('disk full'));
          },
        });
      }),
    gapMs,
    () => clock,
  );
  const flush = () =>
    new Promise((r) => jest.requireActual<typeof import('timers')>('timers').setImmediate(r));
  return {
    saver,
    writes,
    bump: () => ++version,
    get version() {
      return version;
    },
    get maxRunning() {
      return maxRunning;
    },
    /** Moves the clock and jest's timers together. */
    advance: async (ms: number) => {
      clock += ms;
      jest.advanceTimersByTime(ms);
      await flush();
    },
    flush,
  };
}

beforeEach(() => jest.useFakeTimers());
afterEach(() => jest.useRealTimers());

test('grouped saves within the gap share one write, started once the gap has passed', async () => {
  const r = rig(50);
  r.bump();
  const first = r.saver.grouped(); // nothing written yet: at once
  await r.flush();
  expect(r.writes).toHaveLength(1);
  r.writes[0].finish(true);
  await first;
  await r.advance(10);
  r.bump();
  const a = r.saver.grouped();
  await r.advance(15);
  r.bump();
  const b = r.saver.grouped();
  expect(r.writes).toHaveLength(1); // 25 ms after the last write started: waits
  await r.advance(24);
  expect(r.writes).toHaveLength(1);
  await r.advance(1); // 50 ms after the first write started
  expect(r.writes).toHaveLength(2);
  expect(r.writes[1].version).toBe(3); // both changes in the one write
  let answered = false;
  void Promise.all([a, b]).then(() => (answered = true));
  await r.flush();
  expect(answered).toBe(false); // not before the write is done
  r.writes[1].finish(true);
  await Promise.all([a, b]);
});

test('a save asked for at once answers the grouped saves waiting for their gap', async () => {
  const r = rig(50);
  const first = r.saver.now();
  await r.flush();
  r.writes[0].finish(true);
  await first;
  r.bump();
  const waiting = r.saver.grouped();
  await r.advance(5);
  expect(r.writes).toHaveLength(1);
  r.bump();
  const last = r.saver.now(); // the last answer: nothing more will join
  await r.flush();
  expect(r.writes).toHaveLength(2);
  expect(r.writes[1].version).toBe(2);
  r.writes[1].finish(true);
  await Promise.all([waiting, last]);
  await r.advance(100);
  expect(r.writes).toHaveLength(2); // the cancelled timer wrote nothing more
});

test('a failed write fails its callers only; the next write goes on', async () => {
  const r = rig(50);
  const a = r.saver.now();
  await r.flush();
  const b = r.saver.now(); // queued behind the write in progress
  r.writes[0].finish(false);
  await expect(a).rejects.toThrow('disk full');
  await r.flush();
  expect(r.writes).toHaveLength(2);
  r.writes[1].finish(true);
  await expect(b).resolves.toBeUndefined();
});

test('any sequence: one write at a time, each caller answered by a write that holds its change, grouped writes a gap apart', async () => {
  const op = fc.oneof(
    fc.constant({ kind: 'now' as const }),
    fc.constant({ kind: 'grouped' as const }),
    fc.record({ kind: fc.constant('advance' as const), ms: fc.integer({ min: 1, max: 80 }) }),
    fc.record({ kind: fc.constant('finish' as const), ok: fc.boolean() }),
  );
  await fc.assert(
    fc.asyncProperty(fc.array(op, { maxLength: 60 }), async (ops) => {
      let nowCalls = 0;
      const r = rig(50, () => nowCalls);
      const calls: { version: number; kind: string; settled?: { ok: boolean; after: number } }[] = [];
      let finished = 0; // writes finished so far
      for (const o of ops) {
        if (o.kind === 'now' || o.kind === 'grouped') {
          const call: (typeof calls)[number] = { version: r.bump(), kind: o.kind };
          calls.push(call);
          if (o.kind === 'now') nowCalls++;
          const p = o.kind === 'now' ? r.saver.now() : r.saver.grouped();
          p.then(
            () => (call.settled = { ok: true, after: finished }),
            () => (call.settled = { ok: false, after: finished }),
          );
        } else if (o.kind === 'advance') await r.advance(o.ms);
        else {
          const w = r.writes[finished];
          if (w) {
            finished++;
            w.finish(o.ok);
          }
        }
        await r.flush();
      }
      // drain: time passes and every write finishes
      for (let i = 0; i < 200 && calls.some((c) => !c.settled); i++) {
        await r.advance(50);
        while (finished < r.writes.length) r.writes[finished++].finish(true);
        await r.flush();
      }
      expect(r.maxRunning).toBeLessThanOrEqual(1);
      for (const c of calls) {
        expect(c.settled).toBeDefined();
        // the write that answered it (the last finished when it settled) started after its change
        const w = r.writes[c.settled!.after - 1];
        expect(w.version).toBeGreaterThanOrEqual(c.version);
      }
      // with no now() between two writes' starts, the second started a gap after the first
      for (let i = 1; i < r.writes.length; i++) {
        if (r.writes[i].mark !== r.writes[i - 1].mark) continue;
        expect(r.writes[i].startedAt - r.writes[i - 1].startedAt).toBeGreaterThanOrEqual(50);
      }
    }),
    { numRuns: 150 },
  );
});
