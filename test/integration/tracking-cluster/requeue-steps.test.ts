// A real requeue that restarts at step 0 with other values (`scontrol requeue` of a running job),
// followed live into MLflow by `submit --follow`: one parent run across the restart; the parent's
// aggregates end with each step's latest values (the repeated steps sent again, as new points), the
// rank runs keep every point, and the report's series hold each step once, its latest value.
import * as fs from 'fs';
import * as path from 'path';
import { loadReportData } from '../../../reports/load/run-dir';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { waitRequeued } from '../hardening/fault-helpers';
import {
  cancelJobs,
  cli,
  clusterEnv,
  lines,
  logFile,
  PYTHON,
  readText,
  requireCluster,
  said,
  sleep,
  slurm,
  tmpDir,
  waitFor,
  writtenJobRecord,
} from '../launcher/cluster';
import { history, jobRuns, tag } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(300_000);

const env = clusterEnv();
const submitted: string[] = [];
const STEPS = 6;

beforeAll(() => requireCluster());
afterAll(() => cancelJobs(submitted, env));

// Attempt 0 logs steps 0..5 and waits to be requeued; attempt 1 logs steps 0..5 with other values,
// step 2 twice (its last line counts), and exits.
const SCRIPT = `
import json, os, sys, time
rank = int(os.environ["RANK"])
restart = int(os.environ.get("SLURM_RESTART_COUNT", "0"))
def log(step, loss):
    print(json.dumps({"track_launch": 1, "step": step, "metrics": {"loss": loss}}), flush=True)
for s in range(${STEPS}):
    log(s, 100 + s + rank if restart == 0 else 0.25 * s + rank + 1)
    if restart == 1 and s == 2:
        log(s, 50 + rank)
    time.sleep(0.1)
if restart == 0:
    time.sleep(600)
`;

/** The test's own reading of rank R's log: [step, loss] in line order. */
const logged = (runDir: string, rank: number): [number, number][] =>
  lines(logFile(runDir, `rank-${rank}.out`))
    .filter((l) => l.startsWith('{"track_launch"'))
    .map((l) => JSON.parse(l) as { step: number; metrics: { loss: number } })
    .map((r) => [r.step, r.metrics.loss]);

/** Per step, the mean over the ranks of each rank's value from `pick` (its first or last line). */
function means(runDir: string, pick: 'first' | 'last'): number[] {
  return Array.from({ length: STEPS }, (_, step) => {
    const vs = [0, 1].map((rank) => {
      const at = logged(runDir, rank).filter(([s]) => s === step);
      return (pick === 'first' ? at[0] : at[at.length - 1])[1];
    });
    return (vs[0] + vs[1]) / 2;
  });
}

test('a requeue that restarts at step 0: the latest value of each step wins', async () => {
  const uri = mlflowUp();
  const experiment = uniqueName('requeue-steps');
  const dir = tmpDir('requeue-steps');
  const runDir = path.join(dir, 'run');
  const script = path.join(dir, 'steps.py');
  fs.writeFileSync(script, SCRIPT);
  const follow = cli(
    [
      'submit',
      '-N',
      '2',
      '--name',
      'requeue-steps',
      '--experiment',
      experiment,
      '--metrics-format',
      'jsonl',
      '--run-dir',
      runDir,
      '--follow',
      '--poll',
      '0.5',
      '--',
      PYTHON,
      script,
    ],
    { env: { ...env, MLFLOW_TRACKING_URI: uri }, timeoutMs: 240_000 },
  );
  const id = await waitFor('the job id in job.json', () => writtenJobRecord(runDir)?.job_id, 60_000);
  submitted.push(id);
  await waitFor(
    `step ${STEPS - 1} on both ranks`,
    () =>
      [0, 1].every(
        (r) => fs.existsSync(logFile(runDir, `rank-${r}.out`)) && logged(runDir, r).length === STEPS,
      ),
    120_000,
  );
  // The first attempt's aggregates in MLflow before the requeue: the follower saw them complete.
  const client = await MlflowClient.connect(uri);
  const exp = await waitFor('the experiment', () => client.getExperimentByName(experiment), 60_000);
  const stateFile = path.join(runDir, 'tracking', 'state.json');
  const parentOf = async () => {
    const key = JSON.parse(readText(stateFile)).job_key as string;
    return (await jobRuns(client, exp.experiment_id, key)).parent;
  };
  await waitFor(
    "the first attempt's loss/mean in the parent run",
    async () => {
      if (!fs.existsSync(stateFile)) return false;
      // the runs may not exist yet (jobRuns throws): asked again at the next poll
      const parent = await parentOf().catch(() => undefined);
      return (
        parent !== undefined && (await history(client, parent.info.run_id, 'loss/mean')).length === STEPS
      );
    },
    120_000,
  );
  const rq = slurm(['scontrol', 'requeue', id], env);
  expect({ code: rq.code, stderr: rq.stderr }).toEqual({ code: 0, stderr: '' });
  await waitRequeued(id, env, 'the requeue (pending again, restart 1)', 60_000, runDir);
  // Slurm revokes the old start's credential with one-second resolution: let it pass, then start now.
  await sleep(3000);
  expect(slurm(['scontrol', 'update', `jobid=${id}`, 'starttime=now'], env).code).toBe(0);
  const r = await follow;
  expect({ code: r.code, said: r.code === 0 ? '' : said(r) }).toEqual({ code: 0, said: '' });

  // Both attempts are in each rank's log, the second from step 0 with other values.
  for (const rank of [0, 1]) expect(logged(runDir, rank).filter(([s]) => s === 0)).toHaveLength(2);
  const first = means(runDir, 'first');
  const latest = means(runDir, 'last');
  for (let s = 0; s < STEPS; s++) expect(latest[s]).not.toBe(first[s]);

  const key = JSON.parse(readText(stateFile)).job_key as string;
  const runs = await jobRuns(client, exp.experiment_id, key); // one parent across the restart
  expect([runs.parent.info.status, tag(runs.parent, 'restarts')]).toEqual(['FINISHED', '1']);
  // MLflow's latest value of the parent's mean is the latest attempt's.
  const latestMean = runs.parent.data.metrics?.find((m) => m.key === 'loss/mean');
  expect(latestMean?.value).toBe(latest[STEPS - 1]);
  // The history keeps every point: each step's first aggregate and, sent once more, its latest.
  const h = await history(client, runs.parent.info.run_id, 'loss/mean');
  expect(h).toHaveLength(2 * STEPS);
  for (let s = 0; s < STEPS; s++) {
    const at = h.filter(([step]) => step === s); // sorted by time
    expect(at.map(([, v]) => v)).toEqual([first[s], latest[s]]);
  }
  // The rank runs keep every line of both attempts.
  for (const rank of [0, 1])
    expect(await history(client, runs.ranks.get(rank)!.info.run_id, 'loss')).toHaveLength(
      logged(runDir, rank).length,
    );

  // The report's series: each step once, ascending, its latest value; the restart recorded.
  const data = await loadReportData(runDir);
  for (const m of data.metrics.filter((x) => x.key === 'loss')) {
    const last = new Map(logged(runDir, m.rank));
    expect([...m.steps]).toEqual(Array.from({ length: STEPS }, (_, s) => s));
    expect([...m.values]).toEqual([...m.steps].map((s) => last.get(s)));
    expect(m.repeats?.map((x) => [x.from, x.to])).toEqual([[0, STEPS - 1]]);
  }
});
