// A user's own format: a regular expression with named groups (docs/tracking.md).
//   `step` (optional) is the step; `key` + `value` name one metric; every other named group
//   is a metric named after the group, e.g.  it=(?<step>\d+) loss=(?<loss>\S+) lr=(?<lr>\S+)
import { TrackLaunchError } from '../../core';
import { parseNumber, parseStep } from './number';
import { emit, lineParser } from './out';
import type { LineParser, MetricsOut } from './types';

// The last few keys captured by a `key` group, as copies: a capture can be a view of the whole
// decoded text its line was cut from, and points (with their keys) are kept for a while.
const recentKeys: string[] = [];
function ownKey(key: string): string {
  if (key.length < 13) return key; // V8 copies short substrings
  for (let i = 0; i < recentKeys.length; i++) if (recentKeys[i] === key) return recentKeys[i];
  const own = (' ' + key).slice(1);
  if (recentKeys.length >= 16) recentKeys.pop();
  recentKeys.unshift(own);
  return own;
}

export function regexParser(source: string): LineParser {
  const invalid = (why: string, hint: string) =>
    new TrackLaunchError('INVALID_SPEC', `--metrics-format regex: ${why}`, {
      hint,
      details: { option: 'metrics-format', value: source },
    });
  let re: RegExp;
  try {
    re = new RegExp(source);
  } catch (err) {
    const hint =
      'give a JavaScript regular expression with named groups, e.g. regex:step=(?<step>\\d+) loss=(?<loss>\\S+)';
    throw invalid((err as Error).message, hint);
  }
  const names = [...source.matchAll(/\(\?<([A-Za-z_][A-Za-z0-9_]*)>/g)].map((m) => m[1]);
  const metricGroups = names.filter((n) => n !== 'step' && n !== 'key' && n !== 'value');
  if (!metricGroups.length && !(names.includes('key') && names.includes('value'))) {
    const hint = 'name a group after each metric, (?<loss>...), or use the groups key and value';
    throw invalid(`${JSON.stringify(source)} names no metric`, hint);
  }
  const parseInto = (line: string, out: MetricsOut): void => {
    const g = re.exec(line)?.groups;
    if (!g) return;
    const step = g.step === undefined ? undefined : parseStep(g.step);
    if (g.step !== undefined && step === undefined) return;
    if (g.key !== undefined) {
      const key = ownKey(g.key); // a long key: the sender maps it
      const value = g.value === undefined ? undefined : parseNumber(g.value);
      if (value !== undefined && key) emit(out, key, value, step);
    }
    for (let i = 0; i < metricGroups.length; i++) {
      const key = metricGroups[i];
      const raw = g[key];
      const value = raw === undefined ? undefined : parseNumber(raw);
      if (value !== undefined && key) emit(out, key, value, step);
    }
  };
  return lineParser('regex', parseInto);
}
