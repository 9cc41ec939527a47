// Log-axis ticks at 1, 2 and 5 per decade, labelled as people write them (0.002, 0.5, 20, 1e-5).

const MANTISSAS = [1, 2, 5];
/** Below this many 1-2-5 ticks in the range (a span of less than a decade) every 1..9 mantissa is used. */
const MIN_TICKS = 3;

/** Tick values within [min, max] (both > 0), ascending. */
export function logTicks(min: number, max: number): number[] {
  if (!(min > 0) || !(max >= min) || !Number.isFinite(max)) return [];
  const ticks = (mantissas: number[]) => {
    const out: number[] = [];
    for (let e = Math.floor(Math.log10(min)); e <= Math.ceil(Math.log10(max)); e++) {
      for (const m of mantissas) {
        // m * 10^e written out through its decimal form, so 0.2 is 0.2 and not 0.20000000000000004
        const v = Number(`${m}e${e}`);
        if (v >= min * (1 - 1e-12) && v <= max * (1 + 1e-12)) out.push(v);
      }
    }
    return out;
  };
  const coarse = ticks(MANTISSAS);
  return coarse.length >= MIN_TICKS ? coarse : ticks([1, 2, 3, 4, 5, 6, 7, 8, 9]);
}

/** 0.002 -> "0.002", 20 -> "20", 2e-5 -> "2e-5", 5e6 -> "5e6": one significant digit, the shorter form. */
export function formatLogTick(v: number): string {
  if (!(v > 0)) return String(v);
  const e = Math.floor(Math.log10(v) + 1e-12);
  const m = Number((v / 10 ** e).toPrecision(2));
  if (e >= -3 && e <= 4) return String(Number(v.toPrecision(2)));
  return `${m}e${e}`;
}
