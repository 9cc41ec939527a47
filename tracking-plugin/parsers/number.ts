// Numbers as training scripts print them: Python floats, nan, inf, -inf, tensor(0.5).

/** Regex source for one number as printed by Python (incl. nan / inf). */
export const NUMBER_SOURCE = String.raw`[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][-+]?\d+)?|[-+]?(?:nan|inf(?:inity)?)`;

export function parseNumber(text: string): number | undefined {
  const t = text.trim().toLowerCase();
  if (t === 'nan' || t === '+nan' || t === '-nan') return NaN;
  if (t === 'inf' || t === '+inf' || t === 'infinity' || t === '+infinity') return Infinity;
  if (t === '-inf' || t === '-infinity') return -Infinity;
  if (!/^[-+]?(?:\d+(?:\.\d*)?|\.\d+)(?:e[-+]?\d+)?$/.test(t)) return undefined;
  const n = Number(t);
  return Number.isNaN(n) ? undefined : n;
}

/** A step must be a non-negative safe integer (MLflow stores int64; JS is exact up to 2^53). */
export function parseStep(text: string | number | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = typeof text === 'number' ? text : /^\s*\d+\s*$/.test(text) ? Number(text) : NaN;
  return Number.isSafeInteger(n) && n >= 0 ? n : undefined;
}
