// A parser turns one log line into metrics. Parsers are pure and never throw.

/** One line's metrics as parseInto gives them: arrays reused from line to line, no objects per line. */
export interface MetricsOut {
  /** Metrics of the line (0: not a metrics line); entries past n are stale. */
  n: number;
  keys: string[];
  values: number[];
  steps: (number | undefined)[];
  host: string | undefined;
  /** False where the caller has the host it needs: a parser may then leave host undefined. */
  hostWanted: boolean;
}

export interface LineParser {
  readonly name: string;
  /** The line's metrics into `out` (which the caller empties: n 0, host undefined); none: not a metrics line. */
  parseInto(line: string, out: MetricsOut): void;
  /** parseInto of the line in bytes[from, to) (its UTF-8 bytes, without its line break) where it sits
   *  in a LineBatch's buffer. False, with out.n unchanged, where it leaves the line to parseInto. */
  parseBytes?(bytes: Uint8Array, from: number, to: number, out: MetricsOut): boolean;
}
