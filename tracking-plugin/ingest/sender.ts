// Sending what a run needs logged without losing the rest to one bad entry: names mapped (or left
// out, once warned), requests within MLflow's limits, a refused request bisected to the entries
// the server will not take; what is left out is counted in the delivery state with its reason.
import type { MlflowClient } from '../mlflow/client';
import { MAX_PARAM_VALUE, MAX_TAG_VALUE, splitBatch, type KeyValue } from '../mlflow/batch';
import { namesKey, sendBisecting, type RefusedEntry } from '../mlflow/bisect';
import { firstRefusal, recordUndelivered, wasRefused, type DeliveryState, type EntryKind } from './delivery';
import type { Gate } from './limiter';
import { NameMapper, nameTagKey, type LogInput, type NameKind } from './names-map';

export interface Sent {
  /** Metric points the server took. */
  delivered: number;
  /** Metric points left out, by reason. */
  lost: Map<string, number>;
}

/** Count the points a send left out (with the cursor that moves past them). */
export function countLost(state: DeliveryState, sent: Sent): void {
  for (const [reason, n] of sent.lost) recordUndelivered(state, 'points', n, reason);
}
const direct: Gate = (task) => task();

const KIND_OF: Record<RefusedEntry['kind'], { entry: EntryKind; name: NameKind }> = {
  metrics: { entry: 'points', name: 'metric' },
  params: { entry: 'params', name: 'param' },
  tags: { entry: 'tags', name: 'tag' },
};

export class Sender {
  /** Names sent under another name in this ingest: original -> sent. */
  readonly renamed = new Map<string, string>();
  private readonly mapper = new NameMapper();
  private readonly warned = new Set<string>();
  /** Metric names the server refused as names: their later points are left out without asking again. */
  private readonly refusedKeys = new Map<string, string>();

  constructor(
    private readonly client: MlflowClient,
    private readonly state: DeliveryState,
    private readonly warn: (message: string) => void,
  ) {}

  /** Send `input` to run `runId`; `gate` bounds the requests in flight. Resolves with the metric
   *  points delivered and those left out (by reason: the caller counts them together with its
   *  cursor, so that a crash in between cannot count them twice); rejects only with errors that no
   *  split of the batch fixes. Params and tags left out are counted here, once per run and key. */
  async send(runId: string, input: LogInput, gate: Gate = direct): Promise<Sent> {
    const lost = new Map<string, number>();
    const losePoints = (n: number, reason: string) => lost.set(reason, (lost.get(reason) ?? 0) + n);
    const m = this.mapper.map(input);
    for (const u of m.unusable) {
      const reason = `${u.kind} name ${JSON.stringify(u.name)} has nothing MLflow accepts as a name (letters, digits, _ / . - space :)`;
      this.warnOnce(`${u.kind} ${u.name}`, `${reason}: not sent`);
      if (u.kind === 'metric') losePoints(u.count, reason);
      else if (firstRefusal(this.state, runId, `${u.kind}s` as EntryKind, u.name))
        recordUndelivered(this.state, `${u.kind}s` as EntryKind, 1, reason);
    }
    const original = new Map<string, string>();
    for (const [from, to] of m.renamed) original.set(to, from);
    const params = m.params.filter((p) => !wasRefused(this.state, runId, 'params', p.key));
    const tags = m.tags.filter((t) => !wasRefused(this.state, runId, 'tags', t.key));
    const metrics = m.metrics.filter((p) => {
      const why = this.refusedKeys.get(p.key);
      if (why !== undefined) losePoints(1, why);
      return why === undefined;
    });
    this.countTooLong(runId, 'params', params, MAX_PARAM_VALUE);
    this.countTooLong(runId, 'tags', tags, MAX_TAG_VALUE);
    const names = [...m.renamed].filter(([, to]) => !this.state.named?.[`${runId} ${to}`]);
    const nameTags = names.map(([from, to]) => ({ key: nameTagKey(to), value: from }));
    const bodies = splitBatch(runId, { metrics, params, tags: [...tags, ...nameTags] });
    // Each body is serialised before it waits for the request limit, so that the server does not
    // idle while the next one is built. A split (bisect) serialises its halves.
    const refused = (
      await settleAllValues(
        bodies.map((b) => {
          const json = JSON.stringify(b);
          return gate(() =>
            sendBisecting(b, (x) => this.client.logBatchRequest(x, x === b ? json : undefined)),
          );
        }),
      )
    ).flat();
    for (const [, to] of names) (this.state.named ??= {})[`${runId} ${to}`] = true;
    let lostPoints = 0;
    for (const r of refused) {
      const { entry, name } = KIND_OF[r.kind];
      const shown = original.get(r.key) ?? r.key;
      const reason = `MLflow refused ${name} ${JSON.stringify(shown)}: ${r.reason}`;
      this.warnOnce(`${name} ${shown} ${r.reason}`, `${reason}: not sent`);
      if (r.kind === 'metrics') {
        lostPoints++;
        losePoints(1, reason);
        if (namesKey(r.reason, r.key)) this.refusedKeys.set(r.key, reason);
      } else if (firstRefusal(this.state, runId, entry, r.key))
        recordUndelivered(this.state, entry, 1, reason);
    }
    this.noteRenamed(m.renamed, [...metrics, ...params, ...tags], refused);
    return { delivered: metrics.length - lostPoints, lost };
  }

  /** A name counts as "sent as" its valid form once an entry under it was delivered: not when MLflow
   *  refused every one. */
  private noteRenamed(
    renamed: ReadonlyMap<string, string>,
    sent: readonly { key: string }[],
    refused: readonly { key: string }[],
  ): void {
    if (renamed.size === 0) return;
    const count = new Map<string, number>();
    for (const { key } of sent) count.set(key, (count.get(key) ?? 0) + 1);
    for (const { key } of refused) count.set(key, (count.get(key) ?? 0) - 1);
    for (const [from, to] of renamed) if ((count.get(to) ?? 0) > 0) this.renamed.set(from, to);
  }

  /** Values over MLflow's limit go out cut (splitBatch cuts them): counted once per run and key as
   *  not delivered in full, and not sent again. */
  private countTooLong(
    runId: string,
    kind: 'params' | 'tags',
    items: readonly KeyValue[],
    limit: number,
  ): void {
    const name = kind === 'params' ? 'param' : 'tag';
    for (const { key, value } of items) {
      if (value.length <= limit || !firstRefusal(this.state, runId, kind, key)) continue;
      const reason = `${name} values over MLflow's limit of ${limit} characters (sent cut)`;
      this.warnOnce(
        `${name} ${key} too long`,
        `${name} ${JSON.stringify(key)} has a value of ${value.length} characters, over MLflow's limit of ${limit}: sent cut to ${limit}`,
      );
      recordUndelivered(this.state, kind, 1, reason);
    }
  }

  private warnOnce(id: string, message: string): void {
    if (this.warned.has(id)) return;
    this.warned.add(id);
    this.warn(message);
  }
}

/** Like Promise.all, but rejects (with the first error) only once every promise has settled. */
export async function settleAllValues<T>(promises: readonly (Promise<T> | undefined)[]): Promise<T[]> {
  const results = await Promise.allSettled(promises);
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed) throw failed.reason;
  return results.flatMap((r) => (r.status === 'fulfilled' && r.value !== undefined ? [r.value] : []));
}
