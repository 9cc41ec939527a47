// --param-grid FILE: a sweep in one command. JSON lines, one object per line, one line per task:
//   {"lr": 0.1, "batch": 32}
//   {"lr": 0.01, "batch": 64}
// Line N (from 0, blank lines skipped) is task N's set: strings, numbers or booleans (logged as MLflow
// params, as text), keys as --param's. Pure: the caller reads the file.
import { invalidOption } from '../../core';
import { checkParam } from '../options/tracking';
import type { ParseContext } from '../options/types';
import { MAX_ARRAY_TASKS } from './array-spec';

/** A grid file larger than this is not a list of hyperparameters. */
export const MAX_GRID_BYTES = 1 << 20;

const FLAG = 'param-grid';

export type ParamValue = string | number | boolean;

/** Each line's parameters: as text (MLflow params) and as given (params.json keeps the JSON types). */
export interface ParamSets {
  sets: Array<Record<string, string>>;
  raw: Array<Record<string, ParamValue>>;
}

export function parseParamGrid(file: string, text: string, ctx: ParseContext): ParamSets {
  const sets: Array<Record<string, string>> = [];
  const raw: Array<Record<string, ParamValue>> = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i].trim();
    if (line === '') continue;
    const where = `${file} line ${i + 1}`;
    let v: unknown;
    try {
      v = JSON.parse(line);
    } catch (err) {
      throw invalidOption(
        FLAG,
        where,
        `each line is one JSON object, e.g. {"lr": 0.1} (${(err as Error).message})`,
      );
    }
    if (typeof v !== 'object' || v === null || Array.isArray(v))
      throw invalidOption(
        FLAG,
        where,
        'each line is one JSON object of parameters, e.g. {"lr": 0.1, "batch": 32}',
      );
    const set: Array<[string, string]> = [];
    for (const [key, value] of Object.entries(v as Record<string, unknown>)) {
      if (!['string', 'number', 'boolean'].includes(typeof value))
        throw invalidOption(FLAG, `${where}: ${key}`, 'values are strings, numbers or booleans');
      checkParam(FLAG, key, String(value), ctx);
      set.push([key, String(value)]);
    }
    // Own properties, whatever the key: assigned, "__proto__" would be dropped without a word.
    sets.push(Object.fromEntries(set));
    raw.push(v as Record<string, ParamValue>);
    if (sets.length > MAX_ARRAY_TASKS)
      throw invalidOption(FLAG, file, `more than ${MAX_ARRAY_TASKS} parameter sets: split the sweep`);
  }
  if (sets.length === 0)
    throw invalidOption(FLAG, file, 'it holds no parameter sets: one JSON object per line');
  return { sets, raw };
}
