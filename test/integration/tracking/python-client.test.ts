// The runs as the official Python client (mlflow.MlflowClient) sees them: tags, params,
// metric histories and artifacts.
import { promises as fs } from 'fs';
import * as path from 'path';
import { readRunMetrics, syncRunDir } from '../../../tracking-plugin';
import { endJob, jobRecord, makeRunDir, polyLog, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { appendLines, triples } from './helpers';
import { mlflowUp, readBackWithPython, uniqueName } from './server';

jest.setTimeout(180_000);

test('mlflow.MlflowClient reads back what track-launch logged', async () => {
  const uri = mlflowUp();
  const dir = await makeRunDir();
  const jobId = uniqueName('py');
  await writeJob(
    dir,
    jobRecord({
      job_id: jobId,
      spec: { ...jobRecord().spec, container: '/c/ngc.sif', params: { lr: '0.001', epochs: '1000' } },
    }),
  );
  await fs.writeFile(path.join(dir, 'job.sbatch'), '#!/bin/bash\n');
  for (const r of [0, 1, 2]) {
    await appendLines(dir, r, polyLog(r), 1764669000 + r);
    await writeFacts(dir, r);
  }
  await endJob(dir, 'CANCELLED', 1764669200);
  const s = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment: uniqueName('py') });
  expect(s.complete).toBe(true);
  const key = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key;
  const runs = readBackWithPython(uri, s.experimentId as string, key);
  expect(runs.length).toBe(4);
  const parent = runs.find((r) => r.tags['track_launch.role'] === 'parent')!;
  expect(parent).toMatchObject({
    run_name: `poly #${jobId}`, // the job id tells two jobs of one script apart
    status: 'KILLED',
    end_time: 1764669200000,
    artifacts: ['job.json', 'job.sbatch'],
  });
  expect(parent.tags).toMatchObject({
    'mlflow.source.type': 'JOB',
    'slurm.job_id': expect.any(String),
    container: '/c/ngc.sif',
    world_size: '3',
    master_port: '29500',
  });
  expect(parent.params).toMatchObject({ lr: '0.001', epochs: '1000', 'job.backend': 'gloo' });
  expect(Object.keys(parent.history).sort()).toEqual(['loss/max', 'loss/mean', 'loss/min']);
  const series = await readRunMetrics(dir);
  for (const r of [0, 1, 2]) {
    const child = runs.find((x) => x.tags.rank === String(r))!;
    expect(child).toMatchObject({
      run_name: `rank-${r}`,
      status: 'KILLED',
      artifacts: [`logs/rank-${r}.out`],
    });
    expect(child.tags).toMatchObject({
      'mlflow.parentRunId': parent.run_id,
      host: `n${r + 1}`,
      ip: `10.0.0.${r + 1}`,
      local_rank: '0',
      node_rank: String(r),
    });
    const h = [...child.history.loss].sort((a, b) => a[0] - b[0]);
    expect(h).toEqual(triples(series[r].points, 'loss'));
  }
});
