// A value that may be secret (an --env value): it prints as *** everywhere (JSON, string, inspect),
// so the plan, --dry-run --json and error details can carry it; reveal() is for the one place that
// hands it to the job's environment (./job-env.ts in ../plan).
import { inspect } from 'util';

export class SecretValue {
  readonly #value: string;

  constructor(value: string) {
    this.#value = value;
  }

  reveal(): string {
    return this.#value;
  }

  toJSON(): string {
    return '***';
  }

  toString(): string {
    return '***';
  }

  [inspect.custom](): string {
    return '***';
  }
}
