// track-launch report: a job's report, or several jobs side by side with --compare.
import * as path from 'path';
import type { Argv, CommandModule } from 'yargs';
import { resolveRunDir, runDirsOf, TrackLaunchError } from '../../core';
import type { ReportResult } from '../../reports';
import { reports, tracking } from '../lazy';
import { runUrlOf } from '../mlflow-link';
import { printJson } from '../output';

interface ReportArgs {
  targets: string[];
  out?: string;
  format: string;
  compare: boolean;
  'metrics-format'?: string;
  smooth?: number;
  'x-axis'?: 'step' | 'time';
  json?: boolean;
}

/** `tasks`: an array job's, a report each. */
type Reported = ReportResult & { tasks?: ReportResult[] };

async function runReport(args: ReportArgs): Promise<Reported> {
  const { parseFormats, renderComparison, renderReport } = reports();
  const formats = parseFormats(args.format);
  const targets = args.targets.map((t) => resolveRunDir(t));
  // An array job is its tasks: side by side with --compare (one line each), else a report each.
  const dirs = targets.flatMap((t) => runDirsOf(t));
  if (!args.compare && targets.length === 1 && dirs.length > 1) {
    const each: ReportResult[] = [];
    for (const d of dirs) {
      // --out: each task's report in its own folder below it (task-<N>, as in the run directory).
      const out = args.out === undefined ? {} : { out: path.join(args.out, path.basename(d)) };
      each.push(await runReport({ ...args, ...out, targets: [d] }));
    }
    const files = each.flatMap((r) => r.files);
    return { outDir: each[0].outDir, files, notes: each.flatMap((r) => r.notes), tasks: each };
  }
  const x = args['x-axis'];
  const url = args.compare ? undefined : runUrlOf(await tracking().findTrackedRuns(single(dirs)));
  const opts = {
    formats,
    ...(args.out === undefined ? {} : { out: args.out }),
    ...(args['metrics-format'] === undefined ? {} : { metricsFormat: args['metrics-format'] }),
    ...(args.smooth === undefined ? {} : { smooth: args.smooth }),
    ...(x === undefined ? {} : { x }),
    ...(url === undefined ? {} : { mlflowUrl: url }),
  };
  const result = args.compare ? await renderComparison(dirs, opts) : await renderReport(single(dirs), opts);
  if (!args.json) {
    for (const f of result.files) process.stdout.write(`wrote ${f}\n`);
    for (const n of result.notes) process.stdout.write(`note: ${n}\n`);
  }
  return result;
}

/** --json: one document, an array job's tasks under `tasks`. */
const reportJson = (r: ReportResult) => ({ out_dir: r.outDir, files: r.files, notes: r.notes });

function single(dirs: string[]): string {
  if (dirs.length !== 1)
    throw new TrackLaunchError(
      'USAGE',
      `report takes one job or run dir (got ${dirs.length}); use --compare to put several on one chart`,
      {
        hint: 'track-launch report <job|run-dir>, or track-launch report --compare <job|run-dir> <job|run-dir>...',
      },
    );
  return dirs[0];
}

export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report <targets..>',
  describe:
    'Render metrics per rank, the evaluation figure, stragglers and a summary as PNG, one PDF and report.html',
  builder: (y: Argv<object>) =>
    y
      .positional('targets', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'run directory, or a job id printed by submit',
      })
      .option('out', { type: 'string', describe: 'output directory (default: <run-dir>/reports)' })
      .option('format', {
        type: 'string',
        default: 'pdf,png,html',
        describe: 'any of pdf, png, html (report.html: one page with the PNGs embedded)',
      })
      .option('smooth', {
        type: 'number',
        describe: 'EMA smoothing of the metric pages, a weight in [0, 1) as in TensorBoard (default 0: raw)',
      })
      .option('x-axis', {
        type: 'string',
        choices: ['step', 'time'],
        describe: 'x axis of the metric pages: step (default) or wall time since the first logged line',
      })
      .option('compare', {
        type: 'boolean',
        default: false,
        describe:
          "put several jobs' loss curves on one chart, against step and wall time (an array job: one line per task)",
      })
      .option('metrics-format', {
        type: 'string',
        describe: "log format of the metric lines (default: the job's)",
      }) as unknown as Argv<ReportArgs>,
  handler: async (argv) => {
    const result = await runReport(argv);
    if (argv.json) printJson(result.tasks ? { tasks: result.tasks.map(reportJson) } : reportJson(result));
  },
};
