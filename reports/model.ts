// What a report reads from a run dir (ReportData) and draws (Figure); specs are plain data, tested as such.
import type { ChartConfiguration } from 'chart.js';
import type { EvaluationData, JobRecord, RankFacts, ResourceSample } from '../core';
import type { Repeat } from '../tracking-plugin';

/** One metric of one rank, as columns: compact enough for 64 ranks x 100k points. */
export interface MetricSeries {
  rank: number;
  host?: string;
  key: string;
  steps: Float64Array;
  values: Float64Array;
  /** Unix time in milliseconds when the line was written (NaN when unknown). */
  times: Float64Array;
  /** Where the log's steps went back (a restart): each step holds its last line (latestPerStep). */
  repeats?: Repeat[];
}

/** One node's logs/node-<host>.resources.jsonl (docs/cluster.md): its whole, parsed samples in file order. */
export interface NodeResources {
  host: string;
  samples: ResourceSample[];
}

export interface ReportData {
  runDir: string;
  job?: JobRecord;
  facts: RankFacts[];
  metrics: MetricSeries[];
  evaluation?: EvaluationData;
  /** Every node's resource samples, hosts sorted; absent or empty when the job was not sampled. */
  resources?: NodeResources[];
  /** Log lines the metrics reader could not parse, summed over ranks. */
  skipped: number;
  /** Whether some rank's log has its line times (logs/rank-R.out.ts). */
  lineTimes?: boolean;
  /** The parent MLflow run's page, when the caller knows one (the CLI asks the tracking plugin). */
  mlflowUrl?: string;
}

export interface Box {
  x: number;
  y: number;
  w: number;
  h: number;
}

/** A table's geometry, shared by the specs (its height) and the renderer: px per row of one line, px per
 *  further line of a value, and the characters a value line holds (13 px text in the value column of a
 *  full-width table: about 104 average characters; values are wrapped at spaces before this many). */
export const TABLE = { row: 24, valueLine: 18, valueChars: 95 } as const;

export type Panel =
  | { kind: 'chart'; box: Box; config: ChartConfiguration }
  /** A value's lines are separated by '\n' (wrapped by the spec; HTML shows them as one paragraph). */
  | { kind: 'table'; box: Box; title: string; rows: [string, string][] }
  | { kind: 'note'; box: Box; title: string; lines: string[] };

/** One page of the PDF and one PNG. Sizes are in CSS pixels (PDF points); PNGs are drawn at 2x. */
export interface Figure {
  name: string;
  title: string;
  width: number;
  height: number;
  panels: Panel[];
}
