// `track-launch report <job|run-dir> [--out DIR] [--format pdf,png]` and `report --compare <job|run-dir>...`.
import type { Argv, CommandModule } from 'yargs';
import { TrackLaunchError } from '../../core';
import { resolveRunDir } from '../../core';
import type { ReportResult } from '../../reports';
import { reports } from '../lazy';
import { printJson } from '../output';

export interface ReportArgs {
  targets: string[];
  out?: string;
  format: string;
  compare: boolean;
  'metrics-format'?: string;
  json?: boolean;
}

/** The command's work, apart from yargs: resolve the targets, render, print what was written. */
export async function runReport(
  args: ReportArgs,
  print: (line: string) => void = (l) => process.stdout.write(`${l}\n`),
): Promise<ReportResult> {
  const { parseFormats, renderComparison, renderReport } = reports();
  const formats = parseFormats(args.format);
  const dirs = args.targets.map((t) => resolveRunDir(t));
  const opts = {
    formats,
    ...(args.out === undefined ? {} : { out: args.out }),
    ...(args['metrics-format'] === undefined ? {} : { metricsFormat: args['metrics-format'] }),
  };
  const result = args.compare ? await renderComparison(dirs, opts) : await renderReport(single(dirs), opts);
  if (args.json) {
    printJson({ out_dir: result.outDir, files: result.files, notes: result.notes });
  } else {
    for (const f of result.files) print(`wrote ${f}`);
    for (const n of result.notes) print(`note: ${n}`);
  }
  return result;
}

function single(dirs: string[]): string {
  if (dirs.length !== 1) {
    throw new TrackLaunchError(
      'USAGE',
      `report takes one job or run dir (got ${dirs.length}); use --compare to put several on one chart`,
      {
        hint: 'track-launch report <job|run-dir>, or track-launch report --compare <job|run-dir> <job|run-dir>...',
      },
    );
  }
  return dirs[0];
}

export const reportCommand: CommandModule<object, ReportArgs> = {
  command: 'report <targets..>',
  describe: 'Render loss per rank, the evaluation figure, stragglers and a summary as PNG and one PDF',
  builder: (y: Argv<object>) =>
    y
      .positional('targets', {
        type: 'string',
        array: true,
        demandOption: true,
        describe: 'run directory, or a job id printed by submit',
      })
      .option('out', { type: 'string', describe: 'output directory (default: <run-dir>/reports)' })
      .option('format', { type: 'string', default: 'pdf,png', describe: 'pdf, png or pdf,png' })
      .option('compare', {
        type: 'boolean',
        default: false,
        describe: "put several jobs' loss curves on one chart, against step and wall time",
      })
      .option('metrics-format', {
        type: 'string',
        describe: "log format of the metric lines (default: the job's)",
      }) as unknown as Argv<ReportArgs>,
  handler: async (argv) => {
    await runReport(argv);
  },
};
