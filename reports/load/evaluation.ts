// eval/evaluation.json (docs/run-dir.md): validated here so a malformed file fails with what is wrong in it.
import { RUN_DIR_VERSION, TrackLaunchError, type EvaluationData } from '../../core';

const isNumbers = (v: unknown): v is number[] => Array.isArray(v) && v.every((n) => typeof n === 'number');

/** Pure: parsed JSON -> EvaluationData, or a RUN_DIR error naming the file and the field. */
export function parseEvaluation(value: unknown, file: string): EvaluationData {
  const bad = (what: string) =>
    new TrackLaunchError('RUN_DIR', `${file}: ${what}`, {
      hint: 'see docs/reports.md, "Evaluation data", for the format',
    });
  if (typeof value !== 'object' || value === null) throw bad('is not a JSON object');
  const v = value as Record<string, unknown>;
  if (v.version !== RUN_DIR_VERSION)
    throw bad(`has version ${JSON.stringify(v.version)}; this track-launch reads version ${RUN_DIR_VERSION}`);
  for (const k of ['x', 'f', 'g']) if (!isNumbers(v[k])) throw bad(`"${k}" must be an array of numbers`);
  const [x, f, g] = [v.x, v.f, v.g] as number[][];
  if (x.length === 0 || f.length !== x.length || g.length !== x.length) {
    throw bad(
      `"x", "f" and "g" must be non-empty and of the same length (got ${x.length}, ${f.length}, ${g.length})`,
    );
  }
  for (const k of ['train_x', 'train_y'])
    if (v[k] !== undefined && !isNumbers(v[k])) throw bad(`"${k}" must be an array of numbers`);
  if ((v.train_x as number[] | undefined)?.length !== (v.train_y as number[] | undefined)?.length) {
    throw bad('"train_x" and "train_y" must both be given, with the same length');
  }
  const range = v.train_range;
  if (range !== undefined && !(isNumbers(range) && range.length === 2))
    throw bad('"train_range" must be [low, high]');
  return value as EvaluationData;
}
