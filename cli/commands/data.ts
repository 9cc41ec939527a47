// `track-launch data shard|synth|verify`: data preparation for distributed training (docs/data.md).
import * as fs from 'fs';
import * as path from 'path';
import type { Argv, CommandModule } from 'yargs';
import { TrackLaunchError, invalidOption } from '../../core';
import { CT_DEFAULTS, DEFAULT_VAL_FRACTION, formatShardSummary, LUNA16_SHAPE } from '../../data';
import { readShardManifest, shardFiles, syntheticLuna, verifyShardDir, writeSyntheticCt } from '../../data';
import { printJson } from '../output';

type Print = (line: string) => void;
const stdout: Print = (l) => process.stdout.write(`${l}\n`);

interface DataShardArgs {
  candidates: string;
  annotations?: string;
  'world-size': number;
  out: string;
  'val-fraction'?: number;
  seed?: number;
  'data-dir'?: string;
  json?: boolean;
}

function runDataShard(a: DataShardArgs): void {
  const r = shardFiles({
    candidates: a.candidates,
    annotations: a.annotations,
    worldSize: a['world-size'],
    outDir: a.out,
    valFraction: a['val-fraction'] ?? DEFAULT_VAL_FRACTION,
    seed: a.seed ?? 0,
    dataDir: a['data-dir'],
  });
  if (a.json) printJson({ out_dir: r.outDir, manifest: r.manifestPath, ...r.manifest });
  else stdout(formatShardSummary(r.manifest, r.outDir));
}

interface DataSynthArgs {
  out: string;
  series?: number;
  candidates?: number;
  positives?: number;
  seed: number;
  /** Also write the CT series (subset<K>/<uid>.mhd and .raw), with smaller defaults. */
  ct?: boolean;
  /** CT voxels along x, y, z: "64x64x48". */
  volume?: string;
  json?: boolean;
}

/** "64x64x48" -> [64, 64, 48]. */
function parseVolume(v: string): [number, number, number] {
  const m = /^(\d{1,4})x(\d{1,4})x(\d{1,4})$/.exec(v.trim());
  if (!m) throw invalidOption('volume', v, 'give voxels along x, y and z, e.g. 64x64x48');
  return [Number(m[1]), Number(m[2]), Number(m[3])];
}

function runDataSynth(a: DataSynthArgs): void {
  if (a.volume !== undefined && !a.ct) throw invalidOption('volume', a.volume, '--volume needs --ct');
  const shape = a.ct ? CT_DEFAULTS : LUNA16_SHAPE;
  const n = {
    series: a.series ?? shape.series,
    candidates: a.candidates ?? shape.candidates,
    positives: a.positives ?? shape.positives,
    seed: a.seed,
  };
  for (const k of ['series', 'candidates', 'positives', 'seed'] as const)
    if (!Number.isSafeInteger(n[k]) || n[k] < 0) throw invalidOption(k, n[k], 'use a whole number >= 0');
  if (a.ct) {
    const volume = a.volume !== undefined ? parseVolume(a.volume) : CT_DEFAULTS.volume;
    const w = writeSyntheticCt(a.out, { ...n, volume });
    if (a.json) return printJson({ ...w, data_dir: a.out, volume, seed: n.seed });
    return stdout(
      `wrote ${w.series} CT series (${volume.join('x')} voxels, ${w.bytes} bytes) under ${a.out}/subset*/, ` +
        `${w.candidates} (${w.rows} candidates, ${w.positives} positive, seed ${n.seed}) and ${w.annotations}`,
    );
  }
  const d = syntheticLuna(n);
  fs.mkdirSync(a.out, { recursive: true });
  const candidates = path.join(a.out, 'candidates.csv');
  const annotations = path.join(a.out, 'annotations.csv');
  fs.writeFileSync(candidates, d.candidates);
  fs.writeFileSync(annotations, d.annotations);
  const { series, positives, seed } = n;
  if (a.json) printJson({ candidates, annotations, series, rows: n.candidates, positives, seed });
  else
    stdout(
      `wrote ${candidates} (${n.candidates} candidates, ${positives} positive, ${series} series, seed ${seed}) and ${annotations}`,
    );
}

type VerifyArgs = { dir: string; rank?: number[]; json?: boolean };

export function runDataVerify(a: VerifyArgs, print: Print = stdout): void {
  const m = readShardManifest(a.dir);
  const present =
    a.rank ??
    m.ranks.map((r) => r.rank).filter((r) => fs.existsSync(path.join(a.dir, `rank-${r}.train.csv`)));
  const problems = verifyShardDir(a.dir, present);
  if (a.json) printJson({ dir: a.dir, ranks: present, problems });
  else if (!problems.length) print(`${a.dir}: ranks ${present.join(', ') || '(none)'} match manifest.json`);
  if (problems.length)
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `${a.dir}: ${problems.length} file(s) do not match manifest.json: ${problems.slice(0, 5).join('; ')}`,
      { details: { problems } },
    );
}

const shard: CommandModule<object, DataShardArgs> = {
  command: 'shard',
  describe:
    'Split LUNA16 candidates.csv into per-rank train/validation shards (each series on one rank, positives spread)',
  builder: (y: Argv<object>) =>
    y
      .option('candidates', {
        type: 'string',
        demandOption: true,
        describe: 'candidates.csv (seriesuid,coordX,coordY,coordZ,class)',
      })
      .option('annotations', {
        type: 'string',
        describe: 'annotations.csv (seriesuid,coordX,coordY,coordZ,diameter_mm), split with its series',
      })
      .option('world-size', {
        alias: 'n',
        type: 'number',
        demandOption: true,
        describe: 'number of ranks (nodes x tasks per node)',
      })
      .option('out', {
        alias: 'o',
        type: 'string',
        demandOption: true,
        describe: 'output directory (new, empty, or an earlier shard directory)',
      })
      .option('val-fraction', {
        type: 'number',
        default: DEFAULT_VAL_FRACTION,
        describe: 'share of positives and candidates in validation series, 0 <= F < 1',
      })
      .option('seed', {
        type: 'number',
        default: 0,
        describe: 'seed of the series order (ties, validation choice)',
      })
      .option('data-dir', {
        type: 'string',
        describe: 'directory of the series files (<seriesuid>.mhd/.raw), for bytes per rank',
      })
      .example('$0 data shard --candidates candidates.csv --annotations annotations.csv -n 12 -o shards', '')
      .example(
        '$0 submit -N 3 --stage shards -- python3 examples/luna/train.py',
        "each node gets its ranks' shards and, with --data-dir, their series files in $TRACK_LAUNCH_DATA_DIR",
      ) as unknown as Argv<DataShardArgs>,
  handler: (argv) => runDataShard(argv),
};

const synth: CommandModule<object, DataSynthArgs> = {
  command: 'synth',
  describe:
    'Write a synthetic LUNA16-shaped candidates.csv and annotations.csv (default: full size); with --ct also CT series (.mhd/.raw)',
  builder: (y: Argv<object>) =>
    y
      .option('out', { alias: 'o', type: 'string', demandOption: true, describe: 'output directory' })
      .option('ct', {
        type: 'boolean',
        describe: `also write each series as LUNA16 does: subset*/<seriesuid>.mhd + .raw (int16 HU); defaults ${CT_DEFAULTS.series} series, ${CT_DEFAULTS.candidates} candidates, ${CT_DEFAULTS.positives} positives`,
      })
      .option('volume', {
        type: 'string',
        describe: `with --ct: voxels along x, y, z (default ${CT_DEFAULTS.volume.join('x')})`,
      })
      .option('series', { type: 'number', describe: `number of CT series (default ${LUNA16_SHAPE.series})` })
      .option('candidates', {
        type: 'number',
        describe: `number of candidate rows (default ${LUNA16_SHAPE.candidates})`,
      })
      .option('positives', {
        type: 'number',
        describe: `candidates with class 1 (default ${LUNA16_SHAPE.positives})`,
      })
      .option('seed', { type: 'number', default: 0, describe: 'random seed' })
      .example(
        '$0 data synth -o data --series 24 --candidates 3000 --positives 60',
        'a small set for the LUNA example',
      )
      .example(
        '$0 data synth --ct -o luna16',
        'a small CT set in the real format (subset*/<uid>.mhd, .raw)',
      ) as unknown as Argv<DataSynthArgs>,
  handler: (argv) => runDataSynth(argv),
};

const verify: CommandModule<object, VerifyArgs> = {
  command: 'verify <dir>',
  describe: "Check a shard directory's files (or a staged copy's) against its manifest.json",
  builder: (y: Argv<object>) =>
    y
      .positional('dir', {
        type: 'string',
        demandOption: true,
        describe: 'a directory written by data shard',
      })
      .option('rank', {
        type: 'number',
        array: true,
        describe: 'only these ranks (default: the ranks whose files are there)',
      }) as unknown as Argv<VerifyArgs>,
  handler: (argv) => runDataVerify(argv),
};

export const dataCommand: CommandModule<object, object> = {
  command: 'data <command>',
  describe:
    'Prepare data for distributed training: shard LUNA16 CSVs per rank, synthetic data, verify shards',
  builder: (y: Argv<object>) =>
    y
      .command(shard)
      .command(synth)
      .command(verify)
      .demandCommand(1, 'Give a data command: shard, synth or verify.') as Argv<object>,
  handler: () => undefined,
};
