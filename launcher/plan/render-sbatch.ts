// JobSpec -> the sbatch script text. Pure: no clock, no environment, no file system.
// Every user value goes through quote(); the only shell expansions are the ones written here.
import { ownValue, submitOptionEntries } from '../options/registry';
import { quote } from '../shell/quote';
import { JobSpec, worldSize } from '../spec/types';
import { bootstrapArgs } from './bootstrap-args';
import { envComment } from './job-env';
import { stageDataArg, stageSummaryLines } from './stage-summary';

/** #SBATCH lines, sorted by option so that equal specs render equal scripts; the declared options'
 *  directives (../options/registry.ts), then the --sbatch options as given. */
export function sbatchDirectives(spec: JobSpec): string[] {
  const declared = submitOptionEntries().flatMap(([key, { sbatch: d }]) => {
    if (typeof d !== 'string') return d ? [[d.directive, d.value(spec)] as const] : [];
    const v = ownValue(spec, key);
    return [[d, v === true ? '' : v === false || v === undefined ? undefined : String(v)] as const];
  });
  // Not an option: a requeued job appends to logs/job.out instead of truncating it.
  const opts = [...declared, ['open-mode', 'append'] as const].sort(([a], [b]) =>
    a < b ? -1 : a > b ? 1 : 0,
  );
  const lines = opts.filter(([, v]) => v !== undefined).map(([k, v]) => `#SBATCH --${k}${v ? `=${v}` : ''}`);
  return [...lines, ...spec.sbatch.map((o) => `#SBATCH ${o}`)];
}

export function moduleLines(modules: string[]): string[] {
  if (modules.length === 0) return [];
  return [
    '',
    '# Environment modules; init scripts reference unset variables, so -u is off meanwhile.',
    'set +u',
    'if ! command -v module >/dev/null 2>&1; then',
    '  for tl_init in /usr/share/modules/init/bash /usr/share/lmod/lmod/init/bash /etc/profile.d/modules.sh; do',
    '    # shellcheck source=/dev/null',
    '    if [ -f "$tl_init" ]; then . "$tl_init"; break; fi',
    '  done',
    'fi',
    ...modules.map(
      (m) =>
        `module load ${quote(m)} || { echo "track-launch: module load failed on $(hostname):" ${quote(m)} >&2; exit 1; }`,
    ),
    'set -u',
  ];
}

/** Node-local staging: one step per node (--overlap) copies the data and holds it until the EXIT trap
 *  sends SIGUSR1; the step's task epilog removes the copy however the task ends (cancel and time
 *  limit included, when no new step could start to clean up). */
function stageLines(spec: JobSpec): string[] {
  if (!spec.stage) return [`trap 'rm -rf "$rdzv_file" "$rdzv_file.ranks"' EXIT`];
  return [
    "# Copy the data to node-local storage on every node (a shard directory: only that node's ranks' shards);",
    "# the step's task epilog removes each node's copy when the step ends: released below at exit, or cancelled.",
    ...stageSummaryLines(spec),
    `srun --overlap --nodes=${spec.nodes} --ntasks=${spec.nodes} --ntasks-per-node=1 --task-epilog="${binDir(spec)}/stage.sh" bash "${binDir(spec)}/stage.sh" hold ${quote(spec.stage)} ${spec.tasksPerNode}${stageDataArg(spec)} &`,
    'stage_pid=$!',
    `trap 'rm -rf "$rdzv_file" "$rdzv_file.ranks"; kill -USR1 "$stage_pid" 2>/dev/null && wait "$stage_pid" || true' EXIT`,
    `bash "${binDir(spec)}/stage.sh" wait ${spec.nodes} "$stage_pid"`,
  ];
}

/** The launcher command that starts the bootstrap on every rank (or node, for torchrun). */
function launchWords(spec: JobSpec): string {
  const n = worldSize(spec);
  switch (spec.launcher) {
    case 'srun':
      return `srun --kill-on-bad-exit=1 --wait=60 --nodes=${spec.nodes} --ntasks=${n} --ntasks-per-node=${spec.tasksPerNode}`;
    case 'torchrun':
      return `srun --kill-on-bad-exit=1 --wait=60 --nodes=${spec.nodes} --ntasks=${spec.nodes} --ntasks-per-node=1`;
    case 'mpiexec':
      // ppr:N:node places ranks node by node, which the bootstrap relies on for NODE_RANK.
      // Site MCA settings travel as OMPI_MCA_* environment variables.
      return `mpiexec -n ${n} --map-by ppr:${spec.tasksPerNode}:node`;
  }
}

/** --signal B:SIG signals only this shell: the launcher runs in the background so that the trap runs at
 *  once (bash defers traps during a foreground child) and passes SIG on; an interrupted wait waits again. */
function forwardBatchSignal(spec: JobSpec): string[] {
  if (!spec.signal?.batch) return [];
  const sig = spec.signal.name;
  return [
    '  launch_pid=$! tl_signalled=0',
    `  trap 'tl_signalled=1; kill -${sig} "$launch_pid" 2>/dev/null || true' ${sig}`,
    '  wait "$launch_pid" || rc=$?',
    '  while ((tl_signalled)); do tl_signalled=0 rc=0; wait "$launch_pid" || rc=$?; done',
    `  trap - ${sig}`,
  ];
}

/** The bootstrap's copy: in the run directory, for an array job in the array's (one for all tasks). */
const binDir = (spec: JobSpec): string => (spec.array ? '$top_dir/bin' : '$run_dir/bin');

/** run_dir: the job's run directory; for an array job, this task's below the array's (made at
 *  submit, with its job.json and, for a sweep, its params.json). */
function runDirLines(spec: JobSpec): string[] {
  if (!spec.array) return [`run_dir=${quote(spec.runDir)}`];
  return [
    `top_dir=${quote(spec.runDir)}`,
    `# Array job ${spec.array.text} (${spec.array.tasks.length} task(s)): each task runs in its own run directory.`,
    'run_dir="$top_dir/task-${SLURM_ARRAY_TASK_ID:?track-launch: not started as an array task}"',
    'export TRACK_LAUNCH_ARRAY_TASK="$SLURM_ARRAY_TASK_ID"',
  ];
}

/** What the in-allocation tracker runs (--track job): Node.js and track-launch's entry point, as the
 *  submitting process found them; the batch host needs both at the same paths. */
export interface TrackerProgram {
  node: string;
  main: string;
}

/** --track job: sbatch/lib/tracker.sh starts the tracker after staging and, once the ranks are done,
 *  hands it their exit status and waits for it (bounded) before the script exits. */
function trackerLines(spec: JobSpec, program?: TrackerProgram): { start: string[]; finish: string[] } {
  if (spec.track !== 'job') return { start: [], finish: [] };
  if (!program) throw new Error('renderSbatchScript: --track job needs the tracker program');
  return {
    start: [
      '',
      '# --track job: the job is tracked from here, with Node.js and track-launch as found at submit.',
      '# shellcheck source=/dev/null',
      `. "${binDir(spec)}/lib/tracker.sh"`,
      `tl_tracker_start ${quote(program.node)} ${quote(program.main)} "$run_dir"`,
    ],
    finish: ['tl_tracker_finish "$rc" "$run_dir"'],
  };
}

export function renderSbatchScript(
  spec: JobSpec,
  meta: { version: string; tracker?: TrackerProgram },
): string {
  const tracker = trackerLines(spec, meta.tracker);
  const lines = [
    '#!/bin/bash',
    ...sbatchDirectives(spec),
    '# shellcheck disable=SC2016,SC2089,SC2090 # user values are single-quoted on purpose: nothing in them expands',
    `# Rendered by track-launch ${meta.version}: ${spec.nodes} node(s) x ${spec.tasksPerNode} task(s) = world size ${worldSize(spec)}, launcher ${spec.launcher}, backend ${spec.backend}.`,
    'set -euo pipefail',
    '',
    ...runDirLines(spec),
    'export TRACK_LAUNCH_RUN_DIR="$run_dir"',
    'export TRACK_LAUNCH_JOB_ID="$SLURM_JOB_ID"',
    `export TRACK_LAUNCH_SAMPLE_INTERVAL=${spec.sampleInterval}`,
    ...envComment(spec, "sbatch's environment"),
    ...moduleLines(spec.module),
    '',
    '# A fresh rendezvous file for every start of the job (a requeued job never reads an old one)',
    '# and for every attempt: a port taken between the check and the bind starts the ranks again.',
    'rdzv_base="$run_dir/rendezvous/${SLURM_JOB_ID}${SLURM_ARRAY_TASK_ID:+_$SLURM_ARRAY_TASK_ID}.r${SLURM_RESTART_COUNT:-0}"',
    'rdzv_file="$rdzv_base.a1.addr"',
    '(umask 077 && mkdir -p "$run_dir/rendezvous" "$run_dir/logs")',
    ...stageLines(spec),
    ...tracker.start,
    '',
    'for attempt in 1 2 3; do',
    '  rdzv_file="$rdzv_base.a$attempt.addr"',
    '  rm -rf "$rdzv_file" "$rdzv_file.port-clash" "$rdzv_file.ranks"',
    '  rc=0',
    `  ${launchWords(spec)} \\`,
    `    bash "${binDir(spec)}/rank-bootstrap.sh" ${bootstrapArgs(spec).join(' ')} \\`,
    `    -- ${spec.command.map(quote).join(' ')}${spec.signal?.batch ? ' &' : ' || rc=$?'}`,
    ...forwardBatchSignal(spec),
    '  rm -rf "$rdzv_file" "$rdzv_file.ranks"',
    '  [ -e "$rdzv_file.port-clash" ] || break',
    '  rm -f "$rdzv_file.port-clash"',
    '  echo "track-launch: attempt $attempt: the master\'s port was taken; starting the ranks again with a new port" >&2',
    'done',
    ...tracker.finish,
    'exit "$rc"',
    '',
  ];
  return lines.join('\n');
}
