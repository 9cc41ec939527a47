// The environment the job starts with: the submitting process's, without its MLflow credentials,
// plus --env (given values, and names passed through from the submitting shell). Values never go
// into the script: sbatch hands this environment to the job (--export=ALL, its default), the local
// executor to its supervisor. Pure; the executors call it with process.env.
import type { JobSpec } from '../spec/types';

const CREDENTIALS = /^MLFLOW_TRACKING_(PASSWORD|TOKEN|USERNAME)$/;
/** scheme://user@host or scheme://user:pass@host */
const URI_WITH_USER = /^[a-z][a-z0-9+.-]*:\/\/[^/@\s]+@/i;

/** A variable of the submitting shell that ranks do not inherit unless --env names it. */
export const isCredential = (name: string, value: string): boolean =>
  CREDENTIALS.test(name) || (name.startsWith('MLFLOW_') && URI_WITH_USER.test(value));

export function jobEnvironment(spec: Pick<JobSpec, 'env'>, parent: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(parent)) if (v !== undefined && !isCredential(k, v)) env[k] = v;
  for (const e of spec.env) {
    const v = e.value ? e.value.reveal() : parent[e.name];
    if (v !== undefined) env[e.name] = v;
  }
  return env;
}

/** The script's note about --env: names only, values shown as ***. */
export function envComment(spec: Pick<JobSpec, 'env'>, carrier: string): string[] {
  if (spec.env.length === 0) return [];
  return [
    `# --env, through ${carrier} (values never written here): ${spec.env.map((e) => `${e.name}=***`).join(' ')}`,
  ];
}
