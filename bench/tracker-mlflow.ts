// What the tracker benchmark reads back from MLflow over its REST API: the rank runs of an experiment,
// a run's latest step of `loss` (runs/get), and a run's whole `loss` history (to count every point).
import * as http from 'http';
import { findExperimentId, post } from './mlflow-rest';

function get(
  agent: http.Agent,
  uri: string,
  pathName: string,
  query: Record<string, string>,
): Promise<string> {
  const u = new URL(pathName, uri);
  for (const [k, v] of Object.entries(query)) u.searchParams.set(k, v);
  return new Promise((resolve, reject) => {
    const req = http.get(u, { agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString();
        if ((res.statusCode ?? 0) >= 300)
          reject(new Error(`GET ${pathName}: HTTP ${res.statusCode} ${text.slice(0, 300)}`));
        else resolve(text);
      });
    });
    req.on('error', reject);
  });
}

/** Run id by rank of the rank runs (`rank-R`) in experiment `name`, as far as they exist yet. */
export async function rankRuns(agent: http.Agent, uri: string, name: string): Promise<Map<number, string>> {
  const out = new Map<number, string>();
  const id = await findExperimentId(agent, uri, name);
  if (id === undefined) return out;
  let token: string | undefined;
  do {
    const page = JSON.parse(
      await post(
        agent,
        uri,
        '/api/2.0/mlflow/runs/search',
        JSON.stringify({ experiment_ids: [id], max_results: 1000, ...(token ? { page_token: token } : {}) }),
      ),
    ) as { runs?: { info: { run_id: string; run_name?: string } }[]; next_page_token?: string };
    for (const run of page.runs ?? []) {
      const m = /^rank-(\d+)$/.exec(run.info.run_name ?? '');
      if (m) out.set(Number(m[1]), run.info.run_id);
    }
    token = page.next_page_token;
  } while (token);
  return out;
}

/** The run's latest step of `loss` (-1: none yet). */
export async function latestStep(agent: http.Agent, uri: string, runId: string): Promise<number> {
  const r = JSON.parse(await get(agent, uri, '/api/2.0/mlflow/runs/get', { run_id: runId })) as {
    run: { data: { metrics?: { key: string; step?: string | number }[] } };
  };
  const m = r.run.data.metrics?.find((x) => x.key === 'loss');
  return m ? Number(m.step ?? 0) : -1;
}

/** The steps of the run's `loss` history, every page (a step sent twice shows twice). */
export async function lossSteps(agent: http.Agent, uri: string, runId: string): Promise<number[]> {
  const steps: number[] = [];
  let token: string | undefined;
  do {
    const page = JSON.parse(
      await get(agent, uri, '/api/2.0/mlflow/metrics/get-history', {
        run_id: runId,
        metric_key: 'loss',
        max_results: '25000',
        ...(token ? { page_token: token } : {}),
      }),
    ) as { metrics?: { step?: string | number }[]; next_page_token?: string };
    for (const m of page.metrics ?? []) steps.push(Number(m.step ?? 0));
    token = page.next_page_token;
  } while (token);
  return steps;
}
