// Metric values on the wire: JSON has no NaN or Infinity; MLflow's REST API takes them as strings.
export type WireNumber = number | 'NaN' | 'Infinity' | '-Infinity';

export function toWire(v: number): WireNumber {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return v;
}

/** Number() reads 'NaN', 'Infinity' and '-Infinity' as they are meant. */
export const fromWire = (v: unknown): number => (typeof v === 'number' ? v : Number(v));
