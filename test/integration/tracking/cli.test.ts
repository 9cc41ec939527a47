// The ingest and sync commands (yargs modules the lead registers in main.ts), in process.
import { existsSync, promises as fs } from 'fs';
import * as path from 'path';
import yargs from 'yargs';
import { ingestCommand } from '../../../cli/commands/ingest';
import { syncCommand } from '../../../cli/commands/sync';
import { TrackLaunchError } from '../../../core/errors';
import { findTrackedRuns } from '../../../tracking-plugin';
import { endJob, jobRecord, makeRunDir, polyLog, writeJob } from '../../unit/tracking/fixture';
import { appendLines } from './helpers';
import { mlflowUp, uniqueName } from './server';

jest.setTimeout(120_000);

async function cli(
  args: string[],
  env: Record<string, string | undefined> = {},
): Promise<{ err?: TrackLaunchError; out: string }> {
  const saved = { ...process.env };
  let out = '';
  const w = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  process.stderr.write = (() => true) as typeof process.stderr.write;
  Object.assign(process.env, env);
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete process.env[k];
  try {
    await yargs(args)
      .command(ingestCommand)
      .command(syncCommand)
      .option('json', { type: 'boolean' })
      .strict()
      .fail((msg, err) => {
        throw err ?? new Error(msg);
      })
      .parseAsync();
    return { out };
  } catch (err) {
    if (err instanceof TrackLaunchError) return { err, out };
    throw err;
  } finally {
    process.stdout.write = w;
    process.stderr.write = e;
    process.env = saved;
  }
}

test('ingest offline, sync without a server (usage error), sync to a server down, sync, sync again', async () => {
  const uri = mlflowUp();
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('cli') }));
  for (const r of [0, 1, 2]) await appendLines(dir, r, polyLog(r), 1764669000);
  await endJob(dir, 'COMPLETED');
  const off = await cli(['ingest', dir, '--json'], { MLFLOW_TRACKING_URI: undefined });
  expect(off.err).toBeUndefined();
  expect(JSON.parse(off.out)).toMatchObject({ pointsSpooled: 60, final: true });
  expect((await cli(['sync', dir], { MLFLOW_TRACKING_URI: undefined })).err?.code).toBe('USAGE');
  // The job has ended: sync renders its report even when nothing reached MLflow (the one rule).
  await fs.rm(path.join(dir, 'reports'), { recursive: true });
  const down = await cli(['sync', dir, '--tracking-uri', 'http://127.0.0.1:1'], {
    MLFLOW_HTTP_REQUEST_MAX_RETRIES: '0',
  });
  expect(down.err?.code).toBe('TRACKING');
  expect(down.err?.message).toMatch(/60 of 60 points are not in MLflow yet: cannot reach MLflow/);
  expect(existsSync(path.join(dir, 'reports', 'report.pdf'))).toBe(true);
  const exp = uniqueName('cli');
  const up = await cli(['sync', dir, '--json', '--experiment', exp], { MLFLOW_TRACKING_URI: uri });
  expect(JSON.parse(up.out)).toMatchObject({ complete: true, pointsSent: 60, status: 'FINISHED' });
  const bad = await cli(['sync', dir, '--requests-in-flight', '0'], { MLFLOW_TRACKING_URI: uri });
  expect(bad.err?.message).toBe('--requests-in-flight: "0" is not valid; use a whole number above 0, e.g. 4');
  const again = await cli(['ingest', dir, '--json', '--experiment', exp, '--requests-in-flight', '2'], {
    MLFLOW_TRACKING_URI: uri,
  });
  expect(JSON.parse(again.out)).toMatchObject({ complete: true, pointsSent: 60 });
  expect((await findTrackedRuns(dir, uri))?.rankRunIds).toEqual(JSON.parse(up.out).rankRunIds);
  expect((await cli(['ingest', path.join(dir, 'nope')], {})).err?.code).toBe('NOT_FOUND');
  await fs.rm(dir, { recursive: true });
});
