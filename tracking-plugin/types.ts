// Shared shapes of the tracking plugin. MetricPoint is what reports and MLflow both consume.
import type { PointColumns } from './logs/columns';

/** One metric value at one step; timestamp in ms since the epoch (fixed from logs/rank-R.out.ts). */
export interface MetricPoint {
  key: string;
  value: number;
  step: number;
  timestamp: number;
}

/** All points one rank's log holds, in log order. `skipped` counts non-blank lines no parser understood. */
export interface RankSeries {
  rank: number;
  host?: string;
  /** The points as columns: what the reports read (no object per point). */
  columns: PointColumns;
  /** The same points as objects, made on first use (for tests and small consumers). */
  readonly points: MetricPoint[];
  skipped: number;
}
