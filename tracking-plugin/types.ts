// Shared shapes of the tracking plugin. MetricPoint is what reports and MLflow both consume.

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
  points: MetricPoint[];
  skipped: number;
}
