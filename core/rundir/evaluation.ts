// eval/evaluation.json: what a training script writes for the evaluation figure. Read here as
// JSON; its fields are validated by the reports (parseEvaluation), which name what is wrong.
import { readJson } from './json';
import { runPaths } from './layout';

/** The parsed file and its path, or undefined when the script wrote none. */
export function readEvaluationJson(runDir: string): { file: string; value: unknown } | undefined {
  const file = runPaths(runDir).evaluation;
  const value = readJson<unknown>(runDir, file);
  return value === undefined ? undefined : { file, value };
}
