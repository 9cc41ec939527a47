// The wall-time x axis: time since the first logged line of the run, in a unit that keeps the numbers short.

export interface WallClock {
  /** Unix ms of the first logged line: the axis' 0. */
  t0: number;
  /** Milliseconds per axis unit. */
  unitMs: number;
  /** The axis title, e.g. "minutes since the first logged line". */
  title: string;
}

const UNITS: [number, number, string][] = [
  // [up to this span in seconds, ms per unit, unit]
  [600, 1000, 'seconds'],
  [10 * 3600, 60_000, 'minutes'],
  [Infinity, 3_600_000, 'hours'],
];

/** The clock of these series' line times; undefined when no line has a time. */
export function wallClock(series: readonly { times: ArrayLike<number> }[]): WallClock | undefined {
  let [t0, t1] = [Infinity, -Infinity];
  for (const { times } of series)
    for (let i = 0; i < times.length; i++) {
      const t = times[i];
      if (!Number.isFinite(t)) continue;
      if (t < t0) t0 = t;
      if (t > t1) t1 = t;
    }
  if (t0 === Infinity) return undefined;
  const [, unitMs, unit] = UNITS.find(([upTo]) => (t1 - t0) / 1000 <= upTo)!;
  return { t0, unitMs, title: `${unit} since the first logged line` };
}

/** Line times (Unix ms) -> axis values; NaN stays NaN (the point is left out). */
export function toWall(times: ArrayLike<number>, clock: WallClock): Float64Array {
  const out = new Float64Array(times.length);
  for (let i = 0; i < times.length; i++) out[i] = (times[i] - clock.t0) / clock.unitMs;
  return out;
}
