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
