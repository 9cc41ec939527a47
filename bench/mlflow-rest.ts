// Minimal raw HTTP to MLflow for the ceiling measurement: prebuilt log-batch payloads over keep-alive
// connections, no client library in the way (node:http only).
import * as http from 'http';

export function post(
  agent: http.Agent,
  uri: string,
  pathName: string,
  body: Buffer | string,
  retried = false,
): Promise<string> {
  const u = new URL(pathName, uri);
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        method: 'POST',
        hostname: u.hostname,
        port: u.port,
        path: u.pathname,
        headers: { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(body) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString();
          if ((res.statusCode ?? 0) >= 300)
            reject(new Error(`POST ${pathName}: HTTP ${res.statusCode} ${text.slice(0, 300)}`));
          else resolve(text);
        });
      },
    );
    req.on('error', (err: NodeJS.ErrnoException) => {
      // a keep-alive socket the server closed as we reused it: the request never reached it (Node's
      // documented race), so it is sent again, once, on a fresh socket
      if (req.reusedSocket && err.code === 'ECONNRESET' && !retried)
        resolve(post(agent, uri, pathName, body, true));
      else reject(err);
    });
    req.end(body);
  });
}

export async function createExperiment(agent: http.Agent, uri: string, name: string): Promise<string> {
  return (
    JSON.parse(await post(agent, uri, '/api/2.0/mlflow/experiments/create', JSON.stringify({ name }))) as {
      experiment_id: string;
    }
  ).experiment_id;
}

export interface Tag {
  key: string;
  value: string;
}

export async function createRun(
  agent: http.Agent,
  uri: string,
  experimentId: string,
  name: string,
  tags: readonly Tag[] = [],
): Promise<string> {
  const r = JSON.parse(
    await post(
      agent,
      uri,
      '/api/2.0/mlflow/runs/create',
      JSON.stringify({ experiment_id: experimentId, run_name: name, start_time: Date.now(), tags }),
    ),
  ) as { run: { info: { run_id: string } } };
  return r.run.info.run_id;
}

/** One run per name (with its tags from `tags`, if any), `concurrency` creates in flight; name -> run id. */
export async function createRuns(
  agent: http.Agent,
  uri: string,
  experimentId: string,
  names: readonly string[],
  concurrency: number,
  tags: ReadonlyMap<string, readonly Tag[]> = new Map(),
): Promise<Map<string, string>> {
  const ids = new Map<string, string>();
  let next = 0;
  const worker = async () => {
    while (next < names.length) {
      const name = names[next++];
      ids.set(name, await createRun(agent, uri, experimentId, name, tags.get(name)));
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return ids;
}

export interface Payload {
  body: Buffer;
  points: number;
}

/** Sends every payload with `concurrency` requests in flight over keep-alive sockets; returns ms. */
export async function sendAll(
  agent: http.Agent,
  uri: string,
  payloads: Payload[],
  concurrency: number,
): Promise<number> {
  const t0 = Number(process.hrtime.bigint()) / 1e6;
  let next = 0;
  const worker = async () => {
    while (next < payloads.length) {
      const p = payloads[next++];
      await post(agent, uri, '/api/2.0/mlflow/runs/log-batch', p.body);
    }
  };
  await Promise.all(Array.from({ length: concurrency }, worker));
  return Number(process.hrtime.bigint()) / 1e6 - t0;
}

/** The tags of the runs ingest made in experiment `name`, by the spool stream whose points each run
 *  holds (`parent`, `rank-R`), as the ceiling's runs/create sends them: the run name is the create's
 *  own field, and the parent link is renamed (it names a run of that other experiment). */
export async function streamTags(agent: http.Agent, uri: string, name: string): Promise<Map<string, Tag[]>> {
  const search = JSON.parse(
    await post(
      agent,
      uri,
      '/api/2.0/mlflow/runs/search',
      JSON.stringify({ experiment_ids: [await experimentId(agent, uri, name)], max_results: 1000 }),
    ),
  ) as { runs?: { data: { tags?: Tag[] } }[] };
  const out = new Map<string, Tag[]>();
  for (const run of search.runs ?? []) {
    const tags = run.data.tags ?? [];
    const tag = (k: string) => tags.find((t) => t.key === k)?.value;
    const stream = tag('track_launch.role') === 'parent' ? 'parent' : tag('mlflow.runName');
    if (stream === undefined) continue;
    out.set(
      stream,
      tags
        .filter((t) => t.key !== 'mlflow.runName')
        .map((t) => (t.key === 'mlflow.parentRunId' ? { key: 'bench.parentRunId', value: t.value } : t)),
    );
  }
  return out;
}

/** The id of experiment `name`, undefined when there is none. */
export async function findExperimentId(
  agent: http.Agent,
  uri: string,
  name: string,
): Promise<string | undefined> {
  // MLflow answers get-by-name to GET only; runs/search with a filter on the name needs an id too
  const list = JSON.parse(
    await post(
      agent,
      uri,
      '/api/2.0/mlflow/experiments/search',
      JSON.stringify({ filter: `name = '${name}'`, max_results: 1 }),
    ),
  ) as { experiments?: { experiment_id: string }[] };
  return list.experiments?.[0]?.experiment_id;
}

async function experimentId(agent: http.Agent, uri: string, name: string): Promise<string> {
  const id = await findExperimentId(agent, uri, name);
  if (id === undefined) throw new Error(`experiment ${name} not found`);
  return id;
}
