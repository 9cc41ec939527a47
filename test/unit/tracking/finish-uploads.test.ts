// SendStage.finish against a scripted client: a file that cannot be stored at the job's end is
// counted as not delivered and the runs are ended all the same (none left RUNNING); a store that
// takes no files is said once, naming the first files, and every file is counted once.
import { SendStage } from '../../../tracking-plugin/ingest/send-stage';
import { TrackLaunchError } from '../../../core';
import type { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { appendLines, endJob, jobRecord, makeRunDir, polyLine, writeJob } from './fixture';

/** Stores files unless `refuse` says why not; records the runs ended. */
function scriptedClient(refuse: (runId: string, artifactPath: string) => Error | undefined) {
  const stored: string[] = [];
  const ended = new Map<string, string>();
  const client = {
    uri: 'http://127.0.0.1:1',
    async uploadArtifact(runId: string, artifactPath: string) {
      const err = refuse(runId, artifactPath);
      if (err) throw err;
      stored.push(`${runId}/${artifactPath}`);
    },
    async updateRun(runId: string, u: { status: string }) {
      ended.set(runId, u.status);
    },
  };
  return { client: client as unknown as MlflowClient, stored, ended };
}

async function endedJob(): Promise<string> {
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({}, 3));
  for (const r of [0, 1, 2]) await appendLines(dir, r, [polyLine(0, r)], 1764669000);
  await endJob(dir, 'COMPLETED');
  return dir;
}

async function stage(dir: string, client: MlflowClient): Promise<SendStage> {
  const s = await SendStage.open(client, dir, { user: 'test' });
  s.state.parent_run_id = 'parent';
  for (const r of ['0', '1', '2']) s.state.rank_run_ids[r] = `run-${r}`;
  return s;
}

test('a file that fails at the job end is counted, and every run is ended', async () => {
  const dir = await endedJob();
  const { client, stored, ended } = scriptedClient((runId, p) =>
    runId === 'run-1' && p === 'logs/rank-1.out'
      ? new TrackLaunchError('TRACKING', 'MLflow answered 500 to PUT (test)')
      : undefined,
  );
  const s = await stage(dir, client);
  await s.finish(undefined, 'COMPLETED');

  expect([...ended.entries()].sort()).toEqual([
    ['parent', 'FINISHED'],
    ['run-0', 'FINISHED'],
    ['run-1', 'FINISHED'],
    ['run-2', 'FINISHED'],
  ]);
  expect(s.state.finished).toBe('FINISHED');
  expect(stored).toContain('run-0/logs/rank-0.out');
  expect(stored).not.toContain('run-1/logs/rank-1.out');
  expect(s.undelivered.files).toBe(1);
  expect(s.warnings).toEqual([
    expect.stringMatching(/^logs\/rank-1\.out was not stored: MLflow answered 500 to PUT \(test\)/),
  ]);
});

test('a store that takes no files: said once, the first files named, each file counted once', async () => {
  const dir = await endedJob();
  const unsupported = new TrackLaunchError('TRACKING', 'run x keeps its artifacts at s3://b/x (test)', {
    hint: 'start the server with --serve-artifacts',
    details: { unsupported: true },
  });
  const { client, stored, ended } = scriptedClient(() => unsupported);
  const s = await stage(dir, client);
  await s.finish(undefined, 'FAILED');

  expect(ended.size).toBe(4);
  expect(stored).toEqual([]);
  // job.json and each rank's .out (the fixture writes no .err)
  const files = 1 + 3;
  expect(s.undelivered.files).toBe(files);
  expect(s.warnings).toEqual([
    expect.stringMatching(
      new RegExp(
        `^run x keeps its artifacts at s3://b/x \\(test\\) \\(not stored: job\\.json, logs/rank-\\d\\.out, logs/rank-\\d\\.out and ${files - 3} more; start the server with --serve-artifacts\\)$`,
      ),
    ),
  ]);
  // a second ingest counts nothing twice
  const again = await stage(dir, client);
  again.state.finished = undefined;
  await again.finish(undefined, 'FAILED');
  expect(again.undelivered.files).toBe(files);
});
