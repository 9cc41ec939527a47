// A small checker of parsed JSON against a schema (types, required fields, allowed values), for the
// files of a run directory, which is untrusted input: a file that does not match is refused with a
// RUN_DIR error naming the file and the field, before any code reads a field of it.
import { TrackLaunchError } from '../errors';

export type Schema = (
  | { kind: 'string' | 'number' | 'integer' | 'count' | 'boolean' | 'null' | 'any' }
  | { kind: 'literal'; value: string | number | boolean }
  | { kind: 'enum'; values: readonly string[] }
  | { kind: 'array'; items: Schema; length?: number }
  | { kind: 'tuple'; items: Schema[] }
  /** `values`: the schema of every key not in `fields` (a record); without it, other keys may hold anything. */
  | { kind: 'object'; fields: Record<string, Schema>; values?: Schema }
  | { kind: 'either'; options: Schema[] }
) & { optional?: true };

export const STRING: Schema = { kind: 'string' };
/** A finite number (JSON has no other). */
export const NUMBER: Schema = { kind: 'number' };
export const INTEGER: Schema = { kind: 'integer' };
/** A whole number, 0 or more: a size, an offset, a count. */
export const COUNT: Schema = { kind: 'count' };
export const BOOLEAN: Schema = { kind: 'boolean' };
export const NULL: Schema = { kind: 'null' };
export const ANY: Schema = { kind: 'any' };
export const literal = (value: string | number | boolean): Schema => ({ kind: 'literal', value });
export const oneOf = (values: readonly string[]): Schema => ({ kind: 'enum', values });
export const arrayOf = (items: Schema, length?: number): Schema =>
  length === undefined ? { kind: 'array', items } : { kind: 'array', items, length };
export const tuple = (...items: Schema[]): Schema => ({ kind: 'tuple', items });
export const object = (fields: Record<string, Schema>): Schema => ({ kind: 'object', fields });
export const recordOf = (values: Schema): Schema => ({ kind: 'object', fields: {}, values });
export const either = (...options: Schema[]): Schema => ({ kind: 'either', options });
/** A field that may be absent (never null: JSON.stringify leaves an undefined field out). */
export const optional = (s: Schema): Schema => ({ ...s, optional: true });

/** What a value must be, in words. */
export function expected(s: Schema): string {
  switch (s.kind) {
    case 'string':
      return 'a string';
    case 'number':
      return 'a number';
    case 'integer':
      return 'a whole number';
    case 'count':
      return 'a whole number, 0 or more';
    case 'boolean':
      return 'true or false';
    case 'null':
      return 'null';
    case 'any':
      return 'any value';
    case 'literal':
      return JSON.stringify(s.value);
    case 'enum':
      return `one of ${s.values.map((v) => JSON.stringify(v)).join(', ')}`;
    case 'array':
      return `a list${s.length === undefined ? '' : ` of ${s.length}`} (each ${expected(s.items)})`;
    case 'tuple':
      return `[${s.items.map(expected).join(', ')}]`;
    case 'object':
      return 'an object';
    case 'either':
      return s.options.map(expected).join(' or ');
  }
}

export interface Mismatch {
  /** Where in the file: `spec.command[2]`, `ranks["0"].out`; '' for the whole value. */
  field: string;
  /** The value found, shortened, or "missing". */
  found: string;
  expected: string;
}

const fieldPath = (at: string, key: string | number): string =>
  typeof key === 'number'
    ? `${at}[${key}]`
    : /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
      ? `${at}${at ? '.' : ''}${key}`
      : `${at}[${JSON.stringify(key)}]`;

function shown(value: unknown): string {
  if (value === undefined) return 'missing';
  const text = JSON.stringify(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

function matches(s: Schema, v: unknown): boolean {
  switch (s.kind) {
    case 'string':
      return typeof v === 'string';
    case 'number':
      return typeof v === 'number' && Number.isFinite(v);
    case 'integer':
      return Number.isSafeInteger(v);
    case 'count':
      return Number.isSafeInteger(v) && (v as number) >= 0;
    case 'boolean':
      return typeof v === 'boolean';
    case 'null':
      return v === null;
    case 'any':
      return v !== undefined;
    case 'literal':
      return v === s.value;
    case 'enum':
      return typeof v === 'string' && s.values.includes(v);
    case 'array':
      return Array.isArray(v) && (s.length === undefined || v.length === s.length);
    case 'tuple':
      return Array.isArray(v) && v.length === s.items.length;
    case 'object':
      return typeof v === 'object' && v !== null && !Array.isArray(v);
    case 'either':
      return s.options.some((o) => check(o, v) === undefined);
  }
}

/** The first place where `value` does not match `schema`, or undefined when it matches. */
export function check(schema: Schema, value: unknown, at = ''): Mismatch | undefined {
  if (value === undefined && schema.optional) return undefined;
  if (!matches(schema, value)) return { field: at, found: shown(value), expected: expected(schema) };
  if (schema.kind === 'array') {
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) {
      const m = check(schema.items, items[i], fieldPath(at, i));
      if (m) return m;
    }
  } else if (schema.kind === 'tuple') {
    const items = value as unknown[];
    for (let i = 0; i < items.length; i++) {
      const m = check(schema.items[i], items[i], fieldPath(at, i));
      if (m) return m;
    }
  } else if (schema.kind === 'object') {
    const v = value as Record<string, unknown>;
    for (const [key, s] of Object.entries(schema.fields)) {
      const m = check(s, Object.hasOwn(v, key) ? v[key] : undefined, fieldPath(at, key));
      if (m) return m;
    }
    if (schema.values)
      for (const [key, item] of Object.entries(v)) {
        if (Object.hasOwn(schema.fields, key)) continue;
        const m = check(schema.values, item, fieldPath(at, key));
        if (m) return m;
      }
  }
  return undefined;
}

/** `value` as a T once it matches `schema`; else a RUN_DIR error naming `file` and the field. */
export function validated<T>(file: string, value: unknown, schema: Schema, hint?: string): T {
  const m = check(schema, value);
  if (!m) return value as T;
  const where = m.field === '' ? file : `${file}: ${m.field}`;
  throw new TrackLaunchError('RUN_DIR', `${where} is ${m.found}; it must be ${m.expected}`, {
    hint:
      hint ??
      'The run directory is read as untrusted input and this file is not as track-launch writes it: restore it, or move the run directory away.',
    details: { file, field: m.field },
  });
}
