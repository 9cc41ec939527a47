// submit --track job on the real cluster: nothing runs on the login node (no --follow, no follower,
// no ingest); the tracker beside the ranks on the batch host sends the points while the job runs,
// through a counting proxy the nodes reach on the cluster bridge, and has ended the runs FINISHED,
// every point sent once, by the time Slurm says the job is over.
import * as fs from 'fs';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { readRunMetrics } from '../../../tracking-plugin/series';
import {
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  NODES,
  requireCluster,
  said,
  scontrolState,
  sleep,
  tmpDir,
} from '../launcher/cluster';
import { countingProxy, pointId } from '../tracking/counting-proxy';
import { bridgeRelay } from './bridge';
import { history, jobRuns, triples } from '../tracking/helpers';
import { mlflowUp, uniqueName } from '../tracking/server';

jest.setTimeout(300_000);
beforeAll(requireCluster);

const EPOCHS = 50;
/** Each rank prints the polynomial example's line every 0.4 s: a job of about 20 s. */
const SLOW_RANK = `for i in $(seq 0 ${EPOCHS - 1}); do echo "epoch $i, loss = 1.$((100 + i)), rank $RANK/3 ($(hostname))."; sleep 0.4; done`;

test('--track job: tracked live from the batch host, runs FINISHED with every point once when the job ends', async () => {
  const mlflow = mlflowUp();
  const proxy = await countingProxy(mlflow);
  const bridge = await bridgeRelay(Number(new URL(proxy.uri).port));
  const jobs: string[] = [];
  const env = clusterEnv({ MLFLOW_TRACKING_URI: bridge.uri });
  try {
    const experiment = uniqueName('in-allocation');
    const runDir = path.join(tmpDir('in-allocation'), 'run');
    const sub = await cli(
      ['submit', '-N', '3', '--track', 'job', '--experiment', experiment, '--run-dir', runDir].concat([
        '--sample-interval',
        '1',
        '--',
        'bash',
        '-c',
        SLOW_RANK,
      ]),
      { env },
    );
    expect({ code: sub.code, said: sub.code === 0 ? '' : said(sub) }).toEqual({ code: 0, said: '' });
    const jobId = jobIdOf(sub);
    jobs.push(jobId);

    // While Slurm says RUNNING, the count of points that reached the proxy grows (nobody else sends).
    const whileRunning: number[] = [];
    for (;;) {
      const st = scontrolState(jobId, env);
      if (st !== undefined && st !== 'PENDING' && st !== 'CONFIGURING' && st !== 'RUNNING') break;
      if (st === 'RUNNING') whileRunning.push(proxy.sent.length);
      await sleep(500);
    }
    const grew = whileRunning.filter((n, i) => i > 0 && n > whileRunning[i - 1]);
    expect({ grewAtLeast3Times: grew.length >= 3, whileRunning }).toEqual({
      grewAtLeast3Times: true,
      whileRunning,
    });
    expect(scontrolState(jobId, env)).toBe('COMPLETED');

    // The job is over only once the batch script is: the runs are ended already.
    const client = await MlflowClient.connect(mlflow);
    const exp = await client.getExperimentByName(experiment);
    const key = JSON.parse(fs.readFileSync(path.join(runDir, 'tracking', 'state.json'), 'utf8')).job_key;
    const runs = await jobRuns(client, exp!.experiment_id, key);
    expect(runs.all).toHaveLength(4);
    expect(runs.all.map((r) => r.info.status)).toEqual(['FINISHED', 'FINISHED', 'FINISHED', 'FINISHED']);
    const tags = Object.fromEntries((runs.parent.data.tags ?? []).map((t) => [t.key, t.value]));
    expect(tags['slurm.state']).toBe('COMPLETED');

    // Every point once: no point identity twice at the proxy; each rank's loss as logged.
    const ids = proxy.sent.map(pointId);
    expect(ids.length - new Set(ids).size).toBe(0);
    const series = await readRunMetrics(runDir);
    for (const rank of [0, 1, 2]) {
      const run = runs.ranks.get(rank)!;
      const fromLog = triples(series.find((s) => s.rank === rank)!.points, 'loss');
      expect(fromLog.map((t) => t[0])).toEqual([...Array(EPOCHS).keys()]);
      expect(await history(client, run.info.run_id, 'loss')).toEqual(fromLog);
      const sent = proxy.sent.filter((p) => p.runId === run.info.run_id && p.key === 'loss');
      expect(sent).toHaveLength(EPOCHS);
    }

    // Where it ran, said in the job's output; its own output in logs/tracker.out.
    const jobOut = fs.readFileSync(path.join(runDir, 'logs', 'job.out'), 'utf8');
    expect(jobOut).toMatch(new RegExp(`tracking inside the allocation: pid \\d+ on ${NODES[0]}`));
    expect(jobOut).not.toContain('WARNING');
    expect(fs.existsSync(path.join(runDir, 'logs', 'tracker.out'))).toBe(true);
    expect(fs.readFileSync(path.join(runDir, 'logs', 'ranks.done'), 'utf8')).toBe('0\n');
  } finally {
    cancelJobs(jobs, env);
    await bridge.close();
    await proxy.close();
  }
});
