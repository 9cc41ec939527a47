// Versioned JSON files of the run directory, one policy for all of them: a missing file is
// undefined where the caller allows it and NOT_FOUND where it needs it; malformed JSON, an unknown
// version, a value not of its schema (schemas.ts) or a file over JSON_LIMIT is a RUN_DIR error naming
// the file (and the field). Writes are atomic and durable.
import { TrackLaunchError } from '../errors';
import { Schema, validated } from './schema';
import { readBounded, writeAtomic, writeAtomicAsync } from './safe-fs';

/** No JSON file track-launch or its bootstrap writes comes near this. */
export const JSON_LIMIT = 16 << 20;

export interface JsonReadOptions {
  /** What the file is (e.g. "job.json"): set when it must exist; its absence is then NOT_FOUND. */
  required?: string;
  /** The version the file must carry; checked when set. */
  version?: number;
  /** Said with a malformed file: what the user can do about it. */
  damagedHint?: string;
  /** A file written by rename on shared storage may be seen half-written: read it as not there yet. */
  partialIsMissing?: boolean;
  /** What the file must hold (schemas.ts); checked once its version is. */
  schema?: Schema;
}

export function readJson<T>(root: string, file: string, opts: JsonReadOptions & { required: string }): T;
export function readJson<T>(root: string, file: string, opts?: JsonReadOptions): T | undefined;
export function readJson<T>(root: string, file: string, opts: JsonReadOptions = {}): T | undefined {
  const buf = readBounded(root, file, JSON_LIMIT);
  if (buf === undefined) {
    if (opts.required === undefined) return undefined;
    throw new TrackLaunchError('NOT_FOUND', `${file} does not exist`, {
      hint: `Is this a track-launch run directory? It has no ${opts.required}.`,
    });
  }
  let value: unknown;
  try {
    value = JSON.parse(buf.toString('utf8'));
  } catch (err) {
    if (opts.partialIsMissing) return undefined;
    throw new TrackLaunchError('RUN_DIR', `${file} is not valid JSON (${(err as Error).message})`, {
      ...(opts.damagedHint === undefined ? {} : { hint: opts.damagedHint }),
      cause: err,
    });
  }
  const found = (value as { version?: unknown } | null)?.version;
  if (opts.version !== undefined && found !== opts.version) {
    throw new TrackLaunchError(
      'RUN_DIR',
      `${file} has version ${JSON.stringify(found)}; this track-launch reads version ${opts.version}`,
      { hint: 'Use the track-launch release that wrote this run directory.' },
    );
  }
  return opts.schema === undefined ? (value as T) : validated<T>(file, value, opts.schema, opts.damagedHint);
}

/** The values of a JSON-lines text, and how many of its non-blank lines were not JSON (a torn
 *  last line, an edit by hand). */
export function parseJsonLines(text: string): { values: unknown[]; malformed: number } {
  const values: unknown[] = [];
  let malformed = 0;
  for (const line of text.split('\n')) {
    if (!line.trim()) continue;
    try {
      values.push(JSON.parse(line));
    } catch {
      malformed++;
    }
  }
  return { values, malformed };
}

/** `indent` as the file has always been written (job.json 2, the tracking state 1). */
export const writeJson = (root: string, file: string, value: unknown, indent = 2): void =>
  writeAtomic(root, file, JSON.stringify(value, null, indent) + '\n');

/** writeJson with the disk's waits off the event loop (writeAtomicAsync). */
export const writeJsonAsync = (root: string, file: string, value: unknown, indent = 2): Promise<void> =>
  writeAtomicAsync(root, file, JSON.stringify(value, null, indent) + '\n');
