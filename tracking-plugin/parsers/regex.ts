// A user's own format: a regular expression with named groups (docs/tracking.md).
//   `step` (optional) is the step; `key` + `value` name one metric; every other named group
//   is a metric named after the group, e.g.  it=(?<step>\d+) loss=(?<loss>\S+) lr=(?<lr>\S+)
import { TrackLaunchError } from '../../launcher/errors';
import { parseNumber, parseStep } from './number';
import type { LineParser, ParsedLine, ParsedMetric } from './types';

export function regexParser(source: string): LineParser {
  let re: RegExp;
  try {
    re = new RegExp(source);
  } catch (err) {
    throw new TrackLaunchError('INVALID_SPEC', `--metrics-format regex: ${(err as Error).message}`, {
      hint: 'give a JavaScript regular expression with named groups, e.g. regex:step=(?<step>\\d+) loss=(?<loss>\\S+)',
      details: { option: 'metrics-format', value: source },
    });
  }
  const names = [...source.matchAll(/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/g)].map((m) => m[1]);
  const metricGroups = names.filter((n) => n !== 'step' && n !== 'key' && n !== 'value');
  if (!metricGroups.length && !(names.includes('key') && names.includes('value'))) {
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `--metrics-format regex: ${JSON.stringify(source)} names no metric`,
      {
        hint: 'name a group after each metric, (?<loss>...), or use the groups key and value',
        details: { option: 'metrics-format', value: source },
      },
    );
  }
  return {
    name: 'regex',
    parse(line: string): ParsedLine | null {
      const g = re.exec(line)?.groups;
      if (!g) return null;
      const step = g.step === undefined ? undefined : parseStep(g.step);
      if (g.step !== undefined && step === undefined) return null;
      const metrics: ParsedMetric[] = [];
      const add = (key: string, raw: string | undefined) => {
        const value = raw === undefined ? undefined : parseNumber(raw);
        if (value !== undefined && key)
          metrics.push(step === undefined ? { key, value } : { key, value, step });
      };
      if (g.key !== undefined) add(g.key.slice(0, 240), g.value);
      for (const n of metricGroups) add(n, g[n]);
      return metrics.length ? { metrics } : null;
    },
  };
}
