// The rule for a step logged more than once (pure), the one place the parent's aggregates, the reports
// and `report --compare` take it from: of one rank's points of one key at one step, the last line wins.
// A requeued job's logs are appended to, so its latest attempt's lines come last and win; within an
// attempt, the last line of a step does. Where the steps went back, the repeated range is recorded.

/** Where a series' steps went back: the steps from..to were logged again after the line at `before`. */
export interface Repeat {
  /** The steps logged again: from the step the log went back to, up to the last earlier step it
   *  reached again (the largest step logged before it went back, at most). */
  from: number;
  to: number;
  /** Times (ms) of the last line before the steps went back and of the first line after (NaN: unknown). */
  before: number;
  after: number;
}

export interface LatestSeries {
  /** One point per step, steps ascending (a NaN step last, -0 as 0): each step's last line. */
  steps: Float64Array;
  values: Float64Array;
  times: Float64Array;
  repeats: Repeat[];
}

/** Each step's last line, steps ascending. The usual series (steps ascending, none twice) is returned as
 *  it is, no copy. */
export function latestPerStep(steps: Float64Array, values: Float64Array, times: Float64Array): LatestSeries {
  let plain = true; // steps ascending, none twice, none NaN or -0
  for (let k = 0; k < steps.length && plain; k++)
    plain =
      !(steps[k] === 0 && 1 / steps[k] < 0) && (k === 0 ? steps[0] === steps[0] : steps[k] > steps[k - 1]);
  if (plain) return { steps, values, times, repeats: [] };
  // A Map's keys compare as SameValueZero: -0 is 0, and every NaN step is one step.
  const last = new Map<number, number>();
  for (let k = 0; k < steps.length; k++) last.set(steps[k], k);
  const order = [...last.keys()].sort((a, b) => (a !== a ? 1 : b !== b ? -1 : a - b));
  const out: LatestSeries = {
    steps: new Float64Array(order.length),
    values: new Float64Array(order.length),
    times: new Float64Array(order.length),
    repeats: repeatsOf(steps, times),
  };
  order.forEach((step, j) => {
    const k = last.get(step) as number;
    out.steps[j] = step === 0 ? 0 : step;
    out.values[j] = values[k];
    out.times[j] = times[k];
  });
  return out;
}

/** Each place the steps went back (NaN steps aside), with the range of earlier steps logged again. */
function repeatsOf(steps: Float64Array, times: Float64Array): Repeat[] {
  const out: Repeat[] = [];
  let reached = -Infinity; // the largest step so far
  let before = -Infinity; // the largest step before the current repeat began
  let prev = -1; // index of the previous line with a step
  for (let k = 0; k < steps.length; k++) {
    const s = steps[k];
    if (s !== s) continue;
    if (prev >= 0 && s < steps[prev]) {
      before = reached;
      out.push({ from: s, to: s, before: times[prev], after: times[k] });
    }
    const cur = out[out.length - 1];
    if (cur && s > cur.to) cur.to = Math.min(s, before);
    reached = Math.max(reached, s);
    prev = k;
  }
  return out;
}
