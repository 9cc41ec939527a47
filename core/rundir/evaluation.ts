// eval/evaluation.json: what a training script writes for the evaluation figure. Its fields are
// checked here (schemas.ts); that its lists agree in length, by the reports (parseEvaluation).
import { readJson } from './json';
import { runPaths } from './layout';
import { EVALUATION } from './schemas';

/** The parsed file and its path, or undefined when the script wrote none. */
export function readEvaluationJson(runDir: string): { file: string; value: unknown } | undefined {
  const file = runPaths(runDir).evaluation;
  const value = readJson<unknown>(runDir, file, {
    schema: EVALUATION,
    damagedHint: 'see docs/reports.md, "Evaluation data", for the format',
  });
  return value === undefined ? undefined : { file, value };
}
