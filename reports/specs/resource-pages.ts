// Pure: which resource pages a report gets (one per node with samples, all on one time axis from
// the job's start), and the notes for the nodes or jobs that have none.
import * as path from 'path';
import type { Figure, ReportData } from '../model';
import { resourceStart } from '../stats/resources';
import { resourceFigure } from './resources';
import { jobSpan } from './summary';

export function resourcePages(d: ReportData): { figures: Figure[]; notes: string[] } {
  const nodes = d.resources ?? [];
  const logs = path.join(d.runDir, 'logs');
  const sampled = nodes.filter((n) => n.samples.length > 0);
  if (sampled.length === 0) {
    return {
      figures: [],
      notes: [
        `No resource samples in ${logs}/node-<host>.resources.jsonl: no resource pages ` +
          '(the job samples every --sample-interval seconds; 0 turns it off).',
      ],
    };
  }
  const t0 = resourceStart(jobSpan(d).start, sampled);
  return {
    figures: sampled.map((n) => resourceFigure(n, t0)),
    notes: nodes
      .filter((n) => n.samples.length === 0)
      .map(
        (n) =>
          `${logs}/node-${n.host}.resources.jsonl has no complete sample: no resource page for ${n.host}.`,
      ),
  };
}
