// The benchmark suite: `npm run bench` [-- --quick] [-- --only ingest,parse,discovery,cli,reports,shard,capture,tracker]
// [-- --tracker-window SECONDS] [-- --tracker-reps N]
// Writes bench/results/<name>.json (<name>.quick.json with --quick) and, for a full run, the results table
// in BENCHMARKS.md between its markers (also after --quick with --write-md; full results win over quick ones). Never part of the test suite; nothing here asserts on time.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { benchCapture } from './capture';
import { benchCli } from './cli';
import { BenchOptions, log, machine, RESULTS, ROOT, Target, writeResult } from './common';
import { benchDiscovery } from './discovery';
import { benchIngest } from './ingest';
import { benchParse } from './parse';
import { benchReports } from './reports';
import { benchShard } from './shard';
import { benchTracker } from './tracker';

type Bench = (o: BenchOptions) => Promise<{ result: unknown; targets: Target[] }>;
const BENCHES: Record<string, Bench> = {
  cli: benchCli,
  reports: benchReports,
  shard: benchShard,
  parse: benchParse,
  discovery: benchDiscovery,
  ingest: benchIngest,
  capture: benchCapture,
  tracker: benchTracker,
};
const TITLES: Record<string, string> = {
  ingest: '1. Ingestion into MLflow',
  parse: '2. Parsing',
  discovery: '3. Discovery',
  cli: '4. CLI start',
  reports: '5. Reports',
  shard: 'Sharding',
  capture: '6. Rank output capture',
  tracker: '7. Tracking beside the job',
};
const ORDER = ['ingest', 'parse', 'discovery', 'cli', 'reports', 'shard', 'capture', 'tracker'];
const BEGIN = '<!-- bench:results:begin (written by npm run bench) -->';
const END = '<!-- bench:results:end -->';

type Args = {
  quick: boolean;
  only: string[];
  keep: boolean;
  writeMd: boolean;
  trackerWindowS?: number;
  trackerReps?: number;
};

function args(argv: string[]): Args {
  let quick = false;
  const tracker: { trackerWindowS?: number; trackerReps?: number } = {};
  const positive = (a: string, v: string | undefined): number => {
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new Error(`${a}: give a number greater than 0, not ${v}`);
    return n;
  };
  let writeMd = false;
  let keep = false;
  let only = Object.keys(BENCHES);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') quick = true;
    else if (a === '--keep-tmp') keep = true;
    else if (a === '--write-md') writeMd = true;
    else if (a === '--tracker-window') tracker.trackerWindowS = positive(a, argv[++i]);
    else if (a === '--tracker-reps') tracker.trackerReps = Math.round(positive(a, argv[++i]));
    else if (a === '--only' || a.startsWith('--only=')) {
      only = (a.includes('=') ? a.slice(7) : (argv[++i] ?? ''))
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean);
      const bad = only.filter((n) => !BENCHES[n]);
      if (bad.length)
        throw new Error(
          `--only: unknown benchmark ${bad.join(', ')}; choose from ${Object.keys(BENCHES).join(', ')}`,
        );
    } else
      throw new Error(
        `unknown option ${a}; usage: run.js [--quick] [--only ${Object.keys(BENCHES).join(',')}] [--keep-tmp] [--write-md] [--tracker-window SECONDS] [--tracker-reps N] | run.js --table`,
      );
  }
  return { quick, only, keep, writeMd, ...tracker };
}

/** The table of targets in BENCHMARKS.md, from the latest full results of every benchmark. */
function writeTable(): void {
  const md = path.join(ROOT, 'BENCHMARKS.md');
  const lines = [BEGIN, '', '| benchmark | measured | target | met |', '| --- | --- | --- | --- |'];
  const when: string[] = [];
  for (const name of ORDER) {
    // the full run's results; a --quick run's where no full run exists yet (marked as such)
    let file = path.join(RESULTS, `${name}.json`);
    let mark = '';
    if (!fs.existsSync(file)) {
      file = path.join(RESULTS, `${name}.quick.json`);
      mark = ' (--quick)';
      if (!fs.existsSync(file)) continue;
    }
    const r = JSON.parse(fs.readFileSync(file, 'utf8')) as {
      targets: Target[];
      machine: { at: string; loadavg: number[] };
      seconds: number;
    };
    when.push(
      `${name}${mark}: ${r.machine.at.slice(0, 16).replace('T', ' ')} UTC, load ${r.machine.loadavg.join(' ')}, ${Math.round(r.seconds)} s`,
    );
    for (const t of r.targets)
      lines.push(
        `| ${t.what}${mark} | ${t.measured} | ${t.target} | ${t.met === null ? '-' : t.met ? 'yes' : '**no**'} |`,
      );
  }
  lines.push(
    '',
    'Runs (UTC, load average 1/5/15 min at the end of each, wall time):',
    '',
    ...when.map((w) => `- ${w}`),
    '',
    END,
  );
  const text = fs.existsSync(md) ? fs.readFileSync(md, 'utf8') : `# Benchmarks\n\n${BEGIN}\n${END}\n`;
  const a = text.indexOf(BEGIN);
  const b = text.indexOf(END);
  const next =
    a >= 0 && b > a
      ? text.slice(0, a) + lines.join('\n') + text.slice(b + END.length)
      : text + '\n' + lines.join('\n') + '\n';
  fs.writeFileSync(md, next);
}

async function main(): Promise<void> {
  if (process.argv.includes('--table')) {
    writeTable(); // only rewrite BENCHMARKS.md's table from the result files
    return;
  }
  const { quick, only, keep, writeMd, ...tracker } = args(process.argv.slice(2));
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-bench-'));
  const t0 = Date.now();
  let failed = 0;
  log(
    `bench ${quick ? '--quick ' : ''}${only.join(',')}; scratch ${tmp}; machine ${JSON.stringify(machine())}`,
  );
  try {
    for (const name of ORDER.filter((n) => only.includes(n))) {
      const started = Date.now();
      const before = machine();
      try {
        const { result, targets } = await BENCHES[name]({ quick, tmp, ...tracker });
        const seconds = (Date.now() - started) / 1000;
        const file = await writeResult(quick ? `${name}.quick` : name, {
          version: 1,
          benchmark: name,
          quick,
          seconds,
          machine_before: before,
          machine: machine(),
          targets,
          result,
        });
        log(`${TITLES[name]}: done in ${seconds.toFixed(0)} s -> ${path.relative(ROOT, file)}`);
        for (const t of targets)
          log(
            `  ${t.met === null ? 'info' : t.met ? 'met ' : 'MISS'} ${t.what}: ${t.measured} (target ${t.target})`,
          );
      } catch (err) {
        failed += 1;
        log(`${TITLES[name]}: FAILED: ${(err as Error).stack ?? err}`);
      }
    }
    if (!quick || writeMd) writeTable();
  } finally {
    if (keep) log(`kept ${tmp}`);
    else fs.rmSync(tmp, { recursive: true, force: true });
  }
  log(
    `bench finished in ${((Date.now() - t0) / 1000).toFixed(0)} s${failed ? `, ${failed} benchmark(s) failed` : ''}`,
  );
  if (failed) process.exitCode = 1;
}

main().catch((err) => {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exitCode = 2;
});
