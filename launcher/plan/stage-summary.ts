// What the staging step copies, as comment lines in the rendered script (so --dry-run and job.sbatch
// show the bytes per node), and the data directory argument of stage.sh. Pure.
import { quote } from '../shell/quote';
import { JobSpec } from '../spec/types';

export function formatBytes(n: number): string {
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let u = 0;
  for (let v = n; v >= 1000 && u < units.length - 1; v /= 1000) u++;
  return u === 0 ? `${n} B` : `${(n / 1000 ** u).toFixed(1)} ${units[u]}`;
}

const size = (x: { files: number; bytes: number }) =>
  `${x.files} file(s), ${x.bytes} bytes (${formatBytes(x.bytes)})`;

const rankRange = (ranks: number[]) =>
  ranks.length === 1 ? `rank ${ranks[0]}` : `ranks ${ranks[0]}-${ranks[ranks.length - 1]}`;

/** One line per node (Slurm) or one for this machine (local); none when the stage is not a shard directory. */
export function stageSummaryLines(spec: JobSpec, local = false): string[] {
  const p = spec.stagePlan;
  if (!p) return [];
  const what = p.dataDir
    ? `the manifest, its ranks' shard files and series files from ${JSON.stringify(p.dataDir)}`
    : "the manifest and its ranks' shard files";
  if (local) return [`# Staged to this machine: ${what}: ${size(p.all)}.`];
  return [
    `# Staged per node: ${what}:`,
    ...p.nodes.map((n) => `#   node ${n.node} (${rankRange(n.ranks)}): ${size(n)}`),
  ];
}

/** stage.sh's optional third argument: where the listed series files are read from. */
export function stageDataArg(spec: JobSpec): string {
  return spec.stagePlan?.dataDir ? ` ${quote(spec.stagePlan.dataDir)}` : '';
}
