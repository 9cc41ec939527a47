// SendStage.sendAll against a scripted client: when one stream fails, the others must have
// ended before the failure reaches the caller, or the next cycle sends their points again from
// the same cursor and counts them twice (a CI failure: 257 points "sent" of 240).
import { SpoolStage } from '../../../tracking-plugin/ingest/spool-stage';
import { SendStage } from '../../../tracking-plugin/ingest/send-stage';
import type { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import type { LogBatchBody } from '../../../tracking-plugin/mlflow/batch';
import { appendLines, jobRecord, makeRunDir, polyLine, writeJob } from './fixture';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Records every point it accepted; rank 1's run refuses while `failing`, the others are slow. */
function scriptedClient() {
  const accepted: string[] = [];
  const state = { failing: true };
  const client = {
    uri: 'http://127.0.0.1:1',
    async logBatchRequest(body: LogBatchBody) {
      if (body.run_id === 'run-1' && state.failing) {
        await sleep(5);
        throw new Error('cannot reach MLflow (test)');
      }
      await sleep(60);
      for (const m of body.metrics ?? []) accepted.push(`${body.run_id} ${m.key} ${m.step}`);
    },
  };
  return { client: client as unknown as MlflowClient, accepted, state };
}

test('a failing stream does not leave its siblings sending into the next cycle', async () => {
  const dir = await makeRunDir();
  const job = jobRecord({}, 3);
  await writeJob(dir, job);
  for (const r of [0, 1, 2])
    await appendLines(
      dir,
      r,
      Array.from({ length: 2500 }, (_, e) => polyLine(e, r)),
      1764669000,
    );
  const local = await SpoolStage.open(dir, job, 'polynomial');
  await local.step(job, false);
  const { client, accepted, state } = scriptedClient();
  const remote = await SendStage.open(client, dir, { user: 'test' });
  remote.state.parent_run_id = 'parent';
  for (const r of ['0', '1', '2']) remote.state.rank_run_ids[r] = `run-${r}`;

  await expect(remote.sendAll(local)).rejects.toThrow(/cannot reach MLflow/);
  state.failing = false;
  await remote.sendAll(local); // the next cycle, right away
  await sleep(300); // anything still in flight from the first cycle lands now

  expect(remote.pointsSent).toBe(local.pointsSpooled);
  expect(new Set(accepted).size).toBe(local.pointsSpooled);
  expect(accepted.length).toBe(local.pointsSpooled);
});
