// Which charts a report draws (keys grouped by name across modes, loss first), and the stragglers page's key.
import type { MetricSeries } from '../model';

/** Charts of metrics in one report; the groups past it are listed by name on a page of their own. */
export const MAX_METRIC_CHARTS = 24;

export interface MetricGroup {
  /** The part after the mode prefix: `loss` for `trn/loss`, `val/loss` and a bare `loss`. */
  name: string;
  /** Its keys, training modes first, then by name. */
  keys: string[];
}

/** `trn/loss` -> { mode: 'trn', name: 'loss' }; a key without a slash has no mode. */
export function splitKey(key: string): { mode: string; name: string } {
  const slash = key.indexOf('/');
  return slash <= 0 || slash === key.length - 1
    ? { mode: '', name: key }
    : { mode: key.slice(0, slash), name: key.slice(slash + 1) };
}

const LOSS_WORDS = /(^|[^a-z])(loss|nll|xent|cross_?entropy|ce|bce|mse|mae|rmse|kl|perplexity|ppl)($|[^a-z])/;

/** A name people read as "lower is better, the training objective": loss, val_loss, nll, mse, ... */
function isLossLike(name: string): boolean {
  const n = name.toLowerCase();
  return n.includes('loss') || LOSS_WORDS.test(n);
}

const STEP_TIME =
  /(^|[^a-z])((step|iter|iteration|batch)_?(time|seconds|secs?)|time_?per_?(step|iter|batch)|s_?per_?(step|iter))($|[^a-z])/;

/** A name that measures time per step: step_time, iter_time, time_per_step, sec_per_iter, ... */
const isStepTime = (name: string): boolean => STEP_TIME.test(name.toLowerCase());

/** Training modes first (no mode, train, trn), then the others by name. */
function modeOrder(a: string, b: string): number {
  const rank = (m: string) => (m === '' ? 0 : /^(train|trn|training)$/i.test(m) ? 1 : 2);
  return rank(a) - rank(b) || a.localeCompare(b);
}

/** The groups in drawing order: `loss` first, other loss-like names, then the rest, each by name. */
export function metricGroups(keys: Iterable<string>): MetricGroup[] {
  const byName = new Map<string, { mode: string; key: string }[]>();
  for (const key of new Set(keys)) {
    const { mode, name } = splitKey(key);
    byName.set(name, [...(byName.get(name) ?? []), { mode, key }]);
  }
  const order = (name: string) => (name === 'loss' ? 0 : isLossLike(name) ? 1 : 2);
  return [...byName.entries()]
    .sort(([a], [b]) => order(a) - order(b) || a.localeCompare(b))
    .map(([name, members]) => ({
      name,
      keys: members.sort((a, b) => modeOrder(a.mode, b.mode) || a.key.localeCompare(b.key)).map((m) => m.key),
    }));
}

/** The key whose line times the stragglers page ranks by: a loss-like key (training modes first, then the one
 *  logged most often), else a step-time key, else the key logged most often. */
export function stragglerKey(metrics: readonly MetricSeries[]): string | undefined {
  const points = new Map<string, number>();
  for (const m of metrics) points.set(m.key, (points.get(m.key) ?? 0) + m.steps.length);
  const keys = [...points.keys()];
  const best = (candidates: string[]) =>
    candidates.sort(
      (a, b) =>
        modeOrder(splitKey(a).mode, splitKey(b).mode) ||
        points.get(b)! - points.get(a)! ||
        a.localeCompare(b),
    )[0];
  return (
    best(keys.filter((k) => isLossLike(splitKey(k).name))) ??
    best(keys.filter((k) => isStepTime(splitKey(k).name))) ??
    best(keys)
  );
}

/** Every metric key, in the order of their groups' charts. */
export const metricKeys = (metrics: readonly MetricSeries[]): string[] =>
  metricGroups(metrics.map((m) => m.key)).flatMap((g) => g.keys);
