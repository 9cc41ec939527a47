import { limiter } from '../../../tracking-plugin/ingest/limiter';

test('never more than N tasks in flight, all of them run, errors reach their caller', async () => {
  const limit = limiter(3);
  let active = 0;
  let peak = 0;
  const task = (i: number) => async () => {
    active++;
    peak = Math.max(peak, active);
    await new Promise((r) => setTimeout(r, 1 + (i % 5)));
    active--;
    if (i === 7) throw new Error('seven');
    return i;
  };
  const results = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => limit(task(i))));
  expect(peak).toBe(3);
  expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(39);
  expect(results[7]).toMatchObject({ status: 'rejected', reason: new Error('seven') });
});

test('aggregates do not depend on the order the ranks arrived in (exactly once needs equal points)', () => {
  const { Aggregator } = jest.requireActual('../../../tracking-plugin/ingest/aggregate');
  const vals = [1e16, 1, -1e16, 0.5, 0.25]; // summed in another order, the mean differs
  const run = (order: number[]) => {
    const a = new Aggregator();
    for (const r of order) a.add(r, { key: 'loss', step: 1, value: vals[r], timestamp: 1000 + r });
    return a.take(5);
  };
  expect(run([4, 3, 2, 1, 0])).toEqual(run([0, 1, 2, 3, 4]));
  expect(run([2, 0, 4, 1, 3])).toEqual(run([0, 1, 2, 3, 4]));
});
