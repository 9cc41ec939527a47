// What did not reach MLflow and why (pure): kept with the send cursors in tracking/mlflow-*.json,
// so that a point skipped once is accounted for in every later summary, and counted once.

export type EntryKind = 'points' | 'params' | 'tags' | 'files';
export type Counts = Record<EntryKind, number>;

/** The part of the send state about delivery (beside ServerState's cursors, in the same file). */
export interface DeliveryState {
  /** Per reason, how many of each kind were not delivered. */
  undelivered?: Record<string, Counts>;
  /** Params, tags and files not delivered, by `<run id> <kind> <key>`: not retried, not counted twice. */
  refused?: Record<string, true>;
  /** The name tags (track_launch.name.<sent> = original) already set, by `<run id> <sent>`. */
  named?: Record<string, true>;
}

export interface Undelivered extends Counts {
  /** Grouped by reason, most entries first. */
  reasons: ({ reason: string } & Counts)[];
}

/** Distinct reasons kept; more are counted under one "other reasons" line. */
export const MAX_REASONS = 50;
const OTHER = 'other reasons (more than 50 kinds of refusal)';

const zero = (): Counts => ({ points: 0, params: 0, tags: 0, files: 0 });

/** Count `n` entries of `kind` as not delivered because of `reason`. */
export function recordUndelivered(s: DeliveryState, kind: EntryKind, n: number, reason: string): void {
  if (n <= 0) return;
  const all = (s.undelivered ??= {});
  const key = all[reason] || Object.keys(all).length < MAX_REASONS ? reason : OTHER;
  const c = (all[key] ??= zero());
  c[kind] += n;
}

/** A param, tag or file refused for good on this run: true the first time (count it), false after. */
export function firstRefusal(s: DeliveryState, runId: string, kind: EntryKind, key: string): boolean {
  const id = `${runId} ${kind} ${key}`;
  if (s.refused?.[id]) return false;
  (s.refused ??= {})[id] = true;
  return true;
}

export const wasRefused = (s: DeliveryState, runId: string, kind: EntryKind, key: string): boolean =>
  s.refused?.[`${runId} ${kind} ${key}`] === true;

export function undeliveredOf(s: DeliveryState): Undelivered {
  const total = zero();
  const reasons = Object.entries(s.undelivered ?? {}).map(([reason, c]) => {
    for (const k of Object.keys(total) as EntryKind[]) total[k] += c[k] ?? 0;
    return { reason, ...zero(), ...c };
  });
  reasons.sort((a, b) => undeliveredTotal(b) - undeliveredTotal(a) || a.reason.localeCompare(b.reason));
  return { ...total, reasons };
}

export const undeliveredTotal = (u: Counts): number => u.points + u.params + u.tags + u.files;

/** "3 points, 1 param" (the kinds that are not zero). */
export function describeCounts(c: Counts): string {
  const parts: string[] = [];
  const one = { points: 'point', params: 'param', tags: 'tag', files: 'file' };
  for (const k of Object.keys(one) as EntryKind[]) if (c[k]) parts.push(`${c[k]} ${c[k] === 1 ? one[k] : k}`);
  return parts.join(', ');
}
