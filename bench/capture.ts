// Capture: a rank writing 20 MB of 100-byte lines (200,000 lines, sys.stdout.write in a loop) through the
// real capture path (sbatch/lib/capture.sh's tl_run_captured, which the rank bootstrap runs: capture.py,
// logs/rank-0.out + .out.ts + the job output) against the same script piped to `cat` into a file.
// 3+ repetitions in rotating order; the bash fallback (no python3) is timed beside, for information.
// Line times: a writer that records the time of each of 200 writes, 5 ms apart, against logs/rank-0.out.ts;
// its first line is written as it starts, so it shows whether the rank waited for the copier to read
// (tl_run_captured's handshake) or wrote into a pipe nobody read yet (the line then gets a late time).
import * as fs from 'fs';
import * as path from 'path';
import { BenchOptions, log, median, percentile, round, ROOT, runProc, Target } from './common';

const CAPTURE_SH = path.join(ROOT, 'sbatch', 'lib', 'capture.sh');
const WRITER = "import sys\nfor _ in range(%LINES%): sys.stdout.write('x' * 99 + '\\n')\n";
const PACED = `import os, sys, time
times = []
for i in range(200):
    times.append(time.time())
    os.write(1, b"step %d loss 0.5\\n" % i)
    time.sleep(0.005)
open(sys.argv[1], "w").write("\\n".join("%.6f" % t for t in times))
`;

type Mode = 'capture' | 'cat' | 'fallback';
/** Runs of the paced writer (line times). */
const LAG_REPS = 3;

async function timeMode(mode: Mode, dir: string, writer: string): Promise<number> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const script =
    mode === 'cat'
      ? 'python3 -c "$2" | cat >"$3/job.out"'
      : '. "$1"; tl_run_captured "$3/rank-0.out" "$3/rank-0.err" python3 -c "$2" >"$3/job.out"';
  const env = mode === 'fallback' ? { ...process.env, TL_CAPTURE_PYTHON: '' } : process.env;
  const r = await runProc('bash', ['-c', `set -euo pipefail; ${script}`, 'bash', CAPTURE_SH, writer, dir], {
    env,
  });
  if (r.code !== 0) throw new Error(`${mode}: exit ${r.code}: ${r.stderr.slice(-500)}`);
  const bytes = fs.statSync(path.join(dir, 'job.out')).size;
  if (mode !== 'cat') {
    const out = fs.statSync(path.join(dir, 'rank-0.out')).size;
    const stamps = fs.readFileSync(path.join(dir, 'rank-0.out.ts'), 'utf8').split('\n').length - 1;
    if (out !== bytes || stamps * 100 !== bytes)
      throw new Error(`${mode}: ${out} bytes, ${stamps} line times`);
  }
  return r.ms / 1000;
}

async function lineTimes(dir: string): Promise<number[]> {
  fs.rmSync(dir, { recursive: true, force: true });
  fs.mkdirSync(dir, { recursive: true });
  const times = path.join(dir, 'times');
  const r = await runProc('bash', [
    '-c',
    '. "$1"; tl_run_captured "$3/rank-0.out" "$3/rank-0.err" python3 -c "$2" "$4" >/dev/null',
    'bash',
    CAPTURE_SH,
    PACED,
    dir,
    times,
  ]);
  if (r.code !== 0) throw new Error(`line times: exit ${r.code}: ${r.stderr.slice(-500)}`);
  const wrote = fs.readFileSync(times, 'utf8').split('\n').map(Number);
  const stamped = fs.readFileSync(path.join(dir, 'rank-0.out.ts'), 'utf8').trim().split('\n').map(Number);
  if (stamped.length !== wrote.length)
    throw new Error(`line times: ${stamped.length} for ${wrote.length} lines`);
  return stamped.map((s, i) => (s - wrote[i]) * 1000);
}

export async function benchCapture(o: BenchOptions): Promise<{ result: unknown; targets: Target[] }> {
  const lines = o.quick ? 50_000 : 200_000;
  const reps = o.quick ? 3 : 5;
  const writer = WRITER.replace('%LINES%', String(lines));
  const modes: Mode[] = ['capture', 'cat', 'fallback'];
  const secs: Record<Mode, number[]> = { capture: [], cat: [], fallback: [] };
  for (let rep = 0; rep < reps; rep++) {
    for (let k = 0; k < modes.length; k++) {
      const mode = modes[(rep + k) % modes.length]; // rotating order
      secs[mode].push(await timeMode(mode, path.join(o.tmp, 'capture', mode), writer));
    }
    log(
      `capture: rep ${rep + 1}/${reps}: ${modes.map((m) => `${m} ${secs[m][rep].toFixed(2)} s`).join(', ')}`,
    );
  }
  const med = Object.fromEntries(modes.map((m) => [m, median(secs[m])])) as Record<Mode, number>;
  const ratios = secs.capture.map((c, i) => c / secs.cat[i]);
  const ratio = median(ratios);
  const allowed = Math.max(3 * med.cat, 0.5);
  const lags: number[] = [];
  const firstLags: number[] = [];
  for (let rep = 0; rep < LAG_REPS; rep++) {
    const l = await lineTimes(path.join(o.tmp, 'capture', 'paced'));
    firstLags.push(l[0]);
    lags.push(...l);
  }
  const lag = {
    p50: percentile(lags, 50),
    p95: percentile(lags, 95),
    max: Math.max(...lags),
    min: Math.min(...lags),
  };
  const mb = (lines * 100) / 1e6;
  return {
    result: {
      lines,
      megabytes: mb,
      repetitions: reps,
      seconds: secs,
      median_seconds: med,
      ratio_capture_to_cat: { per_rep: ratios.map((r) => round(r)), median: round(ratio) },
      mb_per_s: Object.fromEntries(modes.map((m) => [m, round(mb / med[m])])),
      line_time_lag_ms: Object.fromEntries(Object.entries(lag).map(([k, v]) => [k, round(v)])),
      first_line_lag_ms: firstLags.map((x) => round(x)),
    },
    targets: [
      {
        what: `capture: ${mb} MB of 100-byte lines, through the capture vs piped to cat`,
        target: '<= 3x cat (floor 0.5 s)',
        measured: `${med.capture.toFixed(2)} s vs ${med.cat.toFixed(2)} s (median ratio ${ratio.toFixed(2)}x; bash fallback ${med.fallback.toFixed(2)} s)`,
        met: med.capture <= allowed,
      },
      {
        what: `capture: line time minus write time (${LAG_REPS} runs x 200 lines, 5 ms apart, the first at the rank's start)`,
        target: '<= 10 ms',
        measured: `p50 ${lag.p50.toFixed(2)} ms, p95 ${lag.p95.toFixed(2)} ms, max ${lag.max.toFixed(2)} ms; first lines ${firstLags.map((x) => x.toFixed(1)).join(', ')} ms`,
        met: lag.max <= 10 && lag.min >= -1,
      },
    ],
  };
}
