// Metric values on the wire: JSON has no NaN or Infinity; MLflow's REST API takes them as strings.
export type WireNumber = number | 'NaN' | 'Infinity' | '-Infinity';

export function toWire(v: number): WireNumber {
  if (Number.isNaN(v)) return 'NaN';
  if (v === Infinity) return 'Infinity';
  if (v === -Infinity) return '-Infinity';
  return v;
}

export function fromWire(v: unknown): number {
  if (typeof v === 'number') return v;
  if (v === 'NaN') return NaN;
  if (v === 'Infinity') return Infinity;
  if (v === '-Infinity') return -Infinity;
  return Number(v);
}
