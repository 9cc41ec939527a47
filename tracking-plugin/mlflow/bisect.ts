// A log-batch the server refuses as invalid is split in halves until the refused entries are
// alone (pure over the send function): they are returned with the server's reason, everything
// else is delivered (a metric the server says it already stores included). Refusals of the whole
// run or the server (busy, auth, a deleted run) are thrown.
import { TrackLaunchError } from '../../core';
import type { KeyValue, LogBatchBody, WireMetric } from './batch';
import { SERVER_BUSY } from './retry';

export interface RefusedEntry {
  kind: 'metrics' | 'params' | 'tags';
  key: string;
  /** The server's words (its message, without the request line). */
  reason: string;
}

/** MLflow's error codes for a request whose content is wrong (a name, a value, a duplicate). */
const ENTRY_CODES = new Set(['INVALID_PARAMETER_VALUE', 'BAD_REQUEST', 'INVALID_STATE']);
/** ... unless it is about the run itself, which no split of the batch fixes. */
const RUN_LEVEL = /must be in the 'active' state|lifecycle_stage|RESOURCE_DOES_NOT_EXIST|run .* not found/i;

/** A 400 about what the batch holds (not a busy server, not the run): worth splitting. */
export function isEntryRefusal(err: unknown): boolean {
  if (!(err instanceof TrackLaunchError) || err.code !== 'TRACKING') return false;
  const code = err.details.error_code as string | undefined;
  return (
    err.details.status === 400 &&
    code !== undefined &&
    ENTRY_CODES.has(code) &&
    !SERVER_BUSY.test(err.message) &&
    !RUN_LEVEL.test(err.message)
  );
}

/** A metric refused because its database already holds that exact row (MLflow 2 on sqlite,
 *  PostgreSQL or MySQL, for a NaN point sent again after a lost answer): it is delivered. */
const ALREADY_STORED =
  /UNIQUE constraint failed: metrics\.|duplicate key value violates unique constraint "metric_pk"|Duplicate entry .* for key '(?:metrics\.)?PRIMARY'/;

/** The server's reason in a refusal's message: what follows `to POST /api/...: `. */
export function reasonOf(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err);
  const m = /^MLflow answered \d+(?: \w+)? to \S+ \S+: ([\s\S]*)$/.exec(msg);
  const text = (m ? m[1] : msg).replace(/\s+/g, ' ').trim();
  return text.length > 300 ? `${text.slice(0, 300)}...` : text;
}

type Entry =
  | { kind: 'metrics'; item: WireMetric }
  | { kind: 'params'; item: KeyValue }
  | { kind: 'tags'; item: KeyValue };

const entriesOf = (b: LogBatchBody): Entry[] => [
  ...b.params.map((item) => ({ kind: 'params' as const, item })),
  ...b.tags.map((item) => ({ kind: 'tags' as const, item })),
  ...b.metrics.map((item) => ({ kind: 'metrics' as const, item })),
];

function bodyOf(runId: string, entries: readonly Entry[]): LogBatchBody {
  const b: LogBatchBody = { run_id: runId, metrics: [], params: [], tags: [] };
  for (const e of entries) (b[e.kind] as unknown[]).push(e.item);
  return b;
}

/** Send `body`; when the server refuses it as invalid, bisect. Resolves with the refused entries
 *  (empty when all went through); rejects with any other error. Sequential: no extra concurrency.
 *  Once the server refused a metric for its name, the other points of that name are not tried. */
export async function sendBisecting(
  body: LogBatchBody,
  send: (b: LogBatchBody) => Promise<void>,
): Promise<RefusedEntry[]> {
  const refused: RefusedEntry[] = [];
  const badNames = new Map<string, string>();
  const go = async (all: readonly Entry[]): Promise<void> => {
    const entries = all.filter((e) => {
      const why = e.kind === 'metrics' ? badNames.get(e.item.key) : undefined;
      if (why !== undefined) refused.push({ kind: e.kind, key: e.item.key, reason: why });
      return why === undefined;
    });
    if (!entries.length) return;
    try {
      // the first try (nothing refused yet) sends `body` itself, which sender.ts has serialised
      await send(all === whole ? body : bodyOf(body.run_id, entries));
      return;
    } catch (err) {
      if (!isEntryRefusal(err)) throw err;
      if (entries.length === 1) {
        const { kind, item } = entries[0];
        if (kind === 'metrics' && ALREADY_STORED.test(String((err as Error).message))) return;
        const reason = reasonOf(err);
        refused.push({ kind, key: item.key, reason });
        if (namesKey(reason, item.key)) badNames.set(item.key, reason);
        return;
      }
    }
    const half = Math.ceil(entries.length / 2);
    await go(entries.slice(0, half));
    await go(entries.slice(half));
  };
  const whole = entriesOf(body);
  await go(whole);
  return refused;
}

/** Does the server's reason name the key itself (a name rule), so every entry of it would be refused? */
export function namesKey(reason: string, key: string): boolean {
  return key !== '' && (reason.includes(`'${key}'`) || reason.includes(`"${key}"`));
}
