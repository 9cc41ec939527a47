// A parser turns one log line into metrics. Parsers are pure and never throw.

export interface ParsedMetric {
  key: string;
  value: number;
  /** Absent when the line carries no step; the reader then numbers that key's values 0, 1, 2... per rank. */
  step?: number;
}

export interface ParsedLine {
  metrics: ParsedMetric[];
  /** Host name the line mentions (the polynomial example prints it). */
  host?: string;
}

export interface LineParser {
  readonly name: string;
  /** null when the line is not a metrics line of this format. */
  parse(line: string): ParsedLine | null;
}
