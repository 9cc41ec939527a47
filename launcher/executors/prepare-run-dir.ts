// Lay out a new run directory for a plan: the script, the bootstrap copy, job.json.
import * as fs from 'fs';
import * as path from 'path';
import { TrackLaunchError } from '../../core';
import { sbatchDir } from '../../core';
import { writeJobRecord } from '../../core';
import { JobRecord, RUN_DIR_VERSION, runPaths } from '../../core';
import { SubmitPlan } from '../plan/plan';
import { worldSize } from '../spec/types';

export function jobRecordFor(plan: SubmitPlan, executor: JobRecord['executor'], now: Date): JobRecord {
  const s = plan.spec;
  return {
    version: RUN_DIR_VERSION,
    name: s.name,
    executor,
    submitted_at: now.getTime() / 1000,
    plan_digest: plan.digest,
    spec: {
      nodes: s.nodes,
      tasks_per_node: s.tasksPerNode,
      gpus_per_node: s.gpusPerNode,
      world_size: worldSize(s),
      launcher: s.launcher,
      backend: s.backend,
      partition: s.partition,
      account: s.account,
      qos: s.qos,
      time: s.time,
      container: s.container?.image,
      modules: s.modules,
      command: s.command,
      env_keys: s.env.map(([k]) => k),
      experiment: s.experiment,
      metrics_format: s.metricsFormat,
      params: s.params,
    },
  };
}

/** Refuses a run directory that already holds a job, so nothing of an earlier run is overwritten. */
/** Returns an undo that removes exactly what this created, for a submission that is refused. */
export function prepareRunDir(plan: SubmitPlan, executor: JobRecord['executor'], now: Date): () => void {
  const p = runPaths(plan.spec.runDir);
  const undo = undoCreation(p.root);
  fs.mkdirSync(p.root, { recursive: true });
  // Claim the directory with an exclusive create: of two submissions racing for it, one wins.
  try {
    fs.writeFileSync(p.jobJson, '', { flag: 'wx' });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    undo();
    throw new TrackLaunchError('INVALID_SPEC', `--run-dir: ${p.root} already holds a job (job.json exists)`, {
      hint: 'Choose a new --run-dir, or leave it out to get a fresh one under ./runs/.',
    });
  }
  fs.mkdirSync(p.logsDir, { recursive: true });
  fs.mkdirSync(p.rendezvousDir, { recursive: true, mode: 0o700 });
  fs.chmodSync(p.rendezvousDir, 0o700);
  copyBootstrap(p.binDir);
  fs.writeFileSync(plan.scriptPath, plan.script, { mode: 0o755 });
  writeJobRecord(p.root, jobRecordFor(plan, executor, now));
  return undo;
}

/** What exists now of `dir` and its ancestors, so that undo leaves the file system as it was. */
function undoCreation(dir: string): () => void {
  let top = dir; // the highest directory that does not exist yet
  while (!fs.existsSync(path.dirname(top)) && path.dirname(top) !== top) top = path.dirname(top);
  if (!fs.existsSync(dir)) return () => fs.rmSync(top, { recursive: true, force: true });
  const before = new Set(fs.readdirSync(dir));
  return () => {
    for (const name of fs.readdirSync(dir))
      if (!before.has(name)) fs.rmSync(path.join(dir, name), { recursive: true, force: true });
  };
}

function copyBootstrap(binDir: string): void {
  const src = sbatchDir();
  fs.mkdirSync(path.join(binDir, 'lib'), { recursive: true });
  for (const f of fs.readdirSync(src).filter((n) => n.endsWith('.sh'))) {
    fs.copyFileSync(path.join(src, f), path.join(binDir, f));
    fs.chmodSync(path.join(binDir, f), 0o755);
  }
  for (const f of fs.readdirSync(path.join(src, 'lib'))) {
    fs.copyFileSync(path.join(src, 'lib', f), path.join(binDir, 'lib', f));
  }
}
