// Every metric, param and tag name passes MLflow's rule before a request is built (pure): a valid
// name goes as it is, an invalid one under its mapped name (mlflow/names.ts), and one that cannot
// be mapped is left out and reported. The spool keeps the original names.
import { createHash } from 'crypto';
import type { KeyValue, MetricIn } from '../mlflow/batch';
import { isValidName, mlflowName } from '../mlflow/names';

export interface LogInput {
  metrics?: readonly MetricIn[];
  params?: readonly KeyValue[];
  tags?: readonly KeyValue[];
}

export type NameKind = 'metric' | 'param' | 'tag';

export interface MappedInput {
  metrics: MetricIn[];
  params: KeyValue[];
  tags: KeyValue[];
  /** Original name -> the name sent, for the names that had to change. */
  renamed: Map<string, string>;
  /** Names that cannot be made valid, with their kind and how many entries were left out. */
  unusable: { kind: NameKind; name: string; count: number }[];
}

/** The tag that records a mapped name's original on the run that got it. */
export const NAME_TAG_PREFIX = 'track_launch.name.';

export function nameTagKey(sent: string): string {
  const key = NAME_TAG_PREFIX + sent;
  if (isValidName(key)) return key;
  // too long with the prefix: a digest of the sent name keeps it distinct (the value says the original)
  return NAME_TAG_PREFIX + createHash('sha256').update(sent, 'utf8').digest('hex').slice(0, 16);
}

/** mlflowName with a small memory: the same few names come back in every batch. */
export class NameMapper {
  private readonly cache = new Map<string, string | undefined>();

  name(original: string): string | undefined {
    if (this.cache.has(original)) return this.cache.get(original);
    const sent = mlflowName(original);
    if (this.cache.size < 10_000) this.cache.set(original, sent);
    return sent;
  }

  map(input: LogInput): MappedInput {
    const out: MappedInput = { metrics: [], params: [], tags: [], renamed: new Map(), unusable: [] };
    const unusable = new Map<string, { kind: NameKind; name: string; count: number }>();
    const rename = <T extends { key: string }>(kind: NameKind, item: T, into: T[]) => {
      const sent = this.name(item.key);
      if (sent === undefined) {
        const id = `${kind} ${item.key}`;
        const u = unusable.get(id) ?? { kind, name: item.key, count: 0 };
        u.count++;
        unusable.set(id, u);
        return;
      }
      if (sent !== item.key) out.renamed.set(item.key, sent);
      into.push(sent === item.key ? item : { ...item, key: sent });
    };
    for (const m of input.metrics ?? []) rename('metric', m, out.metrics);
    for (const p of input.params ?? []) rename('param', p, out.params);
    for (const t of input.tags ?? []) rename('tag', t, out.tags);
    out.unusable = [...unusable.values()];
    return out;
  }
}
