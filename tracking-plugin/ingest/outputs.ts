// --artifact: which files the job wrote go to the parent run under outputs/. Patterns resolve in
// the submit directory and in the run directory (job.json's submit_dir and spec.artifacts), with the
// run directory's trust rules (core/rundir/outside-files.ts); what is refused is said, never dropped.
import { checkRunDirOwnership, findOutsideFiles, TrackLaunchError, type JobRecord } from '../../core';

export interface OutputFile {
  root: string;
  rel: string;
  /** Where it goes in the parent run's artifacts. */
  artifactPath: string;
}

export interface FoundOutputs {
  files: OutputFile[];
  /** Matched or named, but not attached: `what` names the file or pattern. */
  refused: { what: string; why: string }[];
  /** Worth saying, not a loss (a pattern that matched nothing). */
  notes: string[];
}

/** The roots patterns resolve in. submit_dir comes from job.json, which is trusted only in a run
 *  directory that is the user's own and private: another user's job.json must not make `sync` read
 *  (and upload) the syncing user's files. */
function roots(job: JobRecord, runDir: string): { roots: string[]; note?: string } {
  if (!job.submit_dir) return { roots: [runDir] };
  try {
    checkRunDirOwnership(runDir);
  } catch (err) {
    if (!(err instanceof TrackLaunchError)) throw err;
    return {
      roots: [runDir],
      note: `--artifact patterns are looked up in the run directory only, not in the submit directory ${job.submit_dir}: ${err.message}`,
    };
  }
  return { roots: [job.submit_dir, runDir] };
}

export function findOutputs(job: JobRecord | undefined, runDir: string): FoundOutputs {
  const out: FoundOutputs = { files: [], refused: [], notes: [] };
  const patterns = job?.spec?.artifacts ?? [];
  if (!job || !patterns.length) return out;
  const r = roots(job, runDir);
  if (r.note) out.notes.push(r.note);
  const taken = new Map<string, string>();
  for (const pattern of patterns) {
    let outside = 0;
    let found = 0;
    for (const root of r.roots) {
      const m = findOutsideFiles(root, pattern);
      if (m.outside) outside++;
      if (m.truncated)
        out.notes.push(`--artifact ${pattern}: stopped looking in ${root} after ${m.files.length} files`);
      for (const x of m.refused) out.refused.push({ what: `${root}/${x.rel}`, why: x.why });
      found += m.files.length + m.refused.length;
      for (const rel of m.files) {
        const artifactPath = `outputs/${rel}`;
        const first = taken.get(artifactPath);
        if (first === undefined) {
          taken.set(artifactPath, `${root}/${rel}`);
          out.files.push({ root, rel, artifactPath });
        } else if (first !== `${root}/${rel}`)
          out.refused.push({
            what: `${root}/${rel}`,
            why: `has the same name as ${first}, attached as ${artifactPath}`,
          });
      }
    }
    if (outside === r.roots.length)
      out.refused.push({
        what: `--artifact ${pattern}`,
        why: `leads outside the submit directory and the run directory`,
      });
    else if (!found) out.notes.push(`--artifact ${pattern} matched no file (in ${r.roots.join(' or ')})`);
  }
  return out;
}
