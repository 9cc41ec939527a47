// The pump's tickets against a scripted server and a slow disk: a request's ticket is free as soon
// as its answer is in, not once its cursor is saved (saves are fsyncs, done off the event loop), and
// after a refusal no request goes out, though tickets came free.
import * as fs from 'fs';
import * as path from 'path';
import { pump, type PumpIo, type Stream } from '../../../tracking-plugin/ingest/pump';
import { encodeRecords } from '../../../tracking-plugin/ingest/records';
import type { Sent } from '../../../tracking-plugin/ingest/sender';
import type { MetricPoint } from '../../../tracking-plugin/types';
import { makeRunDir } from './fixture';

const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

/** A spool file of `n` points (steps 0..n-1) and its stream. */
function spool(dir: string, id: string, n: number): Stream {
  const points: MetricPoint[] = Array.from({ length: n }, (_, i) => ({
    key: 'loss',
    value: i / 7,
    step: i,
    timestamp: 1_764_669_000_000 + i,
  }));
  const file = path.join(dir, `${id}.jsonl`);
  fs.writeFileSync(file, encodeRecords(points));
  return { id, file, size: fs.statSync(file).size, run: () => Promise.resolve(`run-${id}`) };
}

const sent = (delivered: number): Sent => ({ delivered, lost: new Map() });

function io(dir: string, over: Partial<PumpIo>): PumpIo {
  return {
    runDir: dir,
    tickets: 2,
    cursor: () => 0,
    send: (_run, points) => Promise.resolve(sent(points.length)),
    commit: () => Promise.resolve(),
    unsent: () => undefined,
    ...over,
  };
}

test('a ticket is free once the answer is in: requests go out while a cursor save is still on disk', async () => {
  const dir = await makeRunDir();
  const st = spool(dir, 'rank-0', 6000); // 6 requests, 2 tickets
  let saving = 0;
  let sentWhileSaving = 0;
  let sends = 0;
  let release!: () => void;
  // every save waits until the sends are done (or, where a ticket waits for its save, 3 s, so
  // that the test fails on the count below instead of hanging)
  const disk = Promise.race([
    new Promise<void>((r) => (release = r)),
    new Promise((r) => setTimeout(r, 3000)),
  ]);
  const done = pump([st], {
    ...io(dir, {}),
    send: async (_run, points) => {
      sends++;
      if (saving > 0) sentWhileSaving++;
      await turns(1);
      if (sends === 6) setImmediate(release);
      return sent(points.length);
    },
    commit: async () => {
      saving++;
      await disk;
      saving--;
    },
  });
  await done;
  expect(sends).toBe(6);
  // with a ticket held until its save, the third request would wait for the disk, forever here
  expect(sentWhileSaving).toBe(4);
});

test('after a refusal no further request goes out, though its ticket came free', async () => {
  const dir = await makeRunDir();
  const streams = [spool(dir, 'rank-0', 3000), spool(dir, 'rank-1', 3000)];
  const asked: string[] = [];
  let n = 0;
  const done = pump(streams, {
    ...io(dir, {}),
    send: async (run, points) => {
      const k = n++;
      asked.push(`${run}:${points[0].step}`);
      await turns(1);
      if (k === 0) throw new Error('refused (test)');
      return sent(points.length);
    },
  });
  await expect(done).rejects.toThrow(/refused \(test\)/);
  // the two tickets' requests were out when the first was refused; nothing after
  expect(asked).toHaveLength(2);
});
