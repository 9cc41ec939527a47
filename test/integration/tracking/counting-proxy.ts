// A counting proxy in front of MLflow (a stand-in, server.ts): every runs/log-batch request body it
// forwards is parsed and each metric point in it recorded, with the phase (which ingester process)
// it came in. Tests count what was sent, instead of trusting MLflow's duplicate filter.
import { standIn } from './server';

export interface SentPoint {
  runId: string;
  key: string;
  step: number;
  timestamp: number;
  value: unknown;
  phase: number;
  /** The log-batch request that carried it (and the answer it got). */
  request: SentRequest;
}

/** A log-batch request as the proxy saw it, with the answer the sender got. */
export interface SentRequest {
  phase: number;
  /** The status forwarded to the sender; undefined until answered, 0 when the sender's connection
   *  closed first (no answer reached it). */
  status: number | undefined;
}

/** A point's identity in MLflow: run, key, step and timestamp. */
export const pointId = (p: { runId: string; key: string; step: number; timestamp: number }) =>
  `${p.runId}\u0000${p.key}\u0000${p.step}\u0000${p.timestamp}`;

export interface CountingProxy {
  uri: string;
  /** Every metric point of every log-batch body received, in order. */
  sent: SentPoint[];
  /** Set by the test: the phase recorded with the points from now on. */
  phase: number;
  /** log-batch bodies that ended before they were whole (a sender killed mid-request): no points. */
  torn: number;
  close(): Promise<void>;
}

export async function countingProxy(target: string): Promise<CountingProxy> {
  const proxy: Omit<CountingProxy, 'uri' | 'close'> = { sent: [], phase: 0, torn: 0 };
  const s = await standIn(target, {
    answer: (req, res) => {
      if (req.method !== 'POST' || !/\/runs\/log-batch$/.test(req.url ?? '')) return false;
      const phase = proxy.phase; // the phase when the request arrived
      const seen: SentRequest = { phase, status: undefined };
      res.on('finish', () => (seen.status = res.statusCode));
      res.on('close', () => (seen.status ??= 0));
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        let body: {
          run_id: string;
          metrics?: { key: string; value: unknown; step?: number; timestamp: number }[];
        };
        try {
          body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as typeof body;
        } catch {
          proxy.torn += 1; // counted: MLflow cannot have taken it either
          return;
        }
        for (const m of body.metrics ?? [])
          proxy.sent.push({
            runId: body.run_id,
            key: m.key,
            step: Number(m.step ?? 0),
            timestamp: Number(m.timestamp),
            value: m.value,
            phase,
            request: seen,
          });
      });
      return false; // forwarded as well: the listener above only reads along
    },
  });
  return Object.assign(proxy, { uri: s.uri, close: () => s.close() });
}

/** The server took the request: a 2xx answer reached the sender. */
export const acknowledged = (r: SentRequest) => r.status !== undefined && r.status >= 200 && r.status < 300;

/**
 * Points sent again after a send of them that the server acknowledged (a 2xx answer reached the
 * sender), grouped by `group(point)`: each with its group, id and the answers its sends got. A
 * resend after a refusal (MLflow answers 400 while its connection pool is exhausted, "busy, not
 * stored") or after no answer is the retry the sender must make; a resend after an acknowledgement
 * is a duplicate, and so are two acknowledged sends.
 */
export function resentAfterAck(
  sent: readonly SentPoint[],
  group: (p: SentPoint) => string = () => '',
): { group: string; id: string; answers: (number | undefined)[] }[] {
  const sends = new Map<string, { group: string; id: string; requests: SentRequest[] }>();
  for (const p of sent) {
    const g = group(p);
    const id = pointId(p);
    const entry = sends.get(`${g}\u0000${id}`) ?? { group: g, id, requests: [] };
    entry.requests.push(p.request);
    sends.set(`${g}\u0000${id}`, entry);
  }
  return [...sends.values()]
    .filter((e) => e.requests.slice(0, -1).some(acknowledged))
    .map((e) => ({ group: e.group, id: e.id, answers: e.requests.map((r) => r.status) }));
}

/** `body` with a counting proxy in front of `target`, closed afterwards whatever happens. */
export async function withCountingProxy(
  target: string,
  body: (proxy: CountingProxy) => Promise<void>,
): Promise<void> {
  const proxy = await countingProxy(target);
  try {
    await body(proxy);
  } finally {
    await proxy.close();
  }
}
