// The plan -> the job record (job.json) that `submit` writes. Pure: the time is passed in. The spec's
// fields come from the option declarations (../options/registry.ts) that name a record field.
import { JobRecord, redactArgv, RUN_DIR_VERSION } from '../../core';
import { ownValue, RecordedSpec, submitOptionEntries } from '../options/registry';
import { worldSize } from '../spec/types';
import { SubmitPlan } from './plan';

export function jobRecordFor(plan: SubmitPlan, executor: JobRecord['executor'], now: Date): JobRecord {
  const s = plan.spec;
  const recorded = Object.fromEntries(
    submitOptionEntries().flatMap(([key, { record: r }]) =>
      r === undefined ? [] : typeof r === 'string' ? [[r, ownValue(s, key)]] : [[r.field, r.value(s)]],
    ),
  ) as RecordedSpec;
  // The command as MLflow shows it (mlflow.source.name, job.command): credentials redacted.
  const spec: JobRecord['spec'] = { ...recorded, world_size: worldSize(s), command: redactArgv(s.command) };
  return {
    version: RUN_DIR_VERSION,
    name: s.name,
    executor,
    submitted_at: now.getTime() / 1000,
    submit_dir: plan.cwd,
    plan_digest: plan.digest,
    spec,
    ...(s.array ? { array: { spec: s.array.text, tasks: s.array.tasks } } : {}),
  };
}
