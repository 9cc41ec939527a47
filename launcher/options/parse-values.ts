// Parsers of single option values, shared by the declarations. Pure; each refusal names the option,
// shows the value as given and says what is allowed.
import { invalidOption } from '../../core';
import type { Parse } from './types';

export const list = (v: unknown): unknown[] =>
  v === undefined || v === null ? [] : Array.isArray(v) ? v : [v];
export const noControl = (s: string): boolean => !/[\0\n\r]/.test(s);

/** A string on one line (matching `rule` when given), or undefined when not given or empty. */
export function str(
  option: string,
  v: unknown,
  rule?: RegExp,
  allowed = 'a non-empty string',
): string | undefined {
  if (v === undefined || v === null || v === '') return undefined;
  if (typeof v !== 'string' && typeof v !== 'number') throw invalidOption(option, v, allowed);
  const s = String(v);
  if (!noControl(s) || (rule && !rule.test(s))) throw invalidOption(option, s, allowed);
  return s;
}

/** str as a parser; `valid` checks what the rule cannot (a length, a range), refused as `allowed`. */
export const text =
  (
    rule?: RegExp,
    allowed = 'a non-empty string',
    valid?: (s: string) => boolean,
  ): Parse<string | undefined> =>
  (v, flag) => {
    const s = str(flag, v, rule, allowed);
    if (s !== undefined && valid && !valid(s)) throw invalidOption(flag, s, allowed);
    return s;
  };

export function wholeNumber(min: number, max: number): Parse<number | undefined>;
export function wholeNumber(min: number, max: number, dflt: number): Parse<number>;
export function wholeNumber(min: number, max: number, dflt?: number): Parse<number | undefined> {
  return (v, flag) => {
    if (v === undefined || v === null || v === '') return dflt;
    const n = typeof v === 'number' ? v : /^\d+$/.test(String(v)) ? Number(v) : NaN;
    if (!Number.isInteger(n) || n < min || n > max) {
      throw invalidOption(flag, v, `use a whole number from ${min} to ${max}`);
    }
    return n;
  };
}

export const oneOf =
  <T extends string>(allowed: readonly T[]): Parse<T | undefined> =>
  (v, flag) => {
    if (v === undefined || v === null || v === '') return undefined;
    if (typeof v !== 'string' || !(allowed as readonly string[]).includes(v)) {
      throw invalidOption(flag, v, `use one of: ${allowed.join(', ')}`);
    }
    return v as T;
  };

/** A switch: on only when given as true (a config file or setting may give "true"). */
export const onOff: Parse<boolean> = (v) => v === true || v === 'true';

/** Repeatable KEY=VALUE items. */
export const keyValues =
  (keyRule: RegExp, keyWords: string): Parse<Array<[string, string]>> =>
  (v, flag) =>
    list(v).map((item) => {
      const s = typeof item === 'string' ? item : String(item);
      const eq = s.indexOf('=');
      const key = eq > 0 ? s.slice(0, eq) : '';
      if (!keyRule.test(key) || s.includes('\0'))
        throw invalidOption(flag, s, `use KEY=VALUE where KEY is ${keyWords}`);
      return [key, s.slice(eq + 1)];
    });
