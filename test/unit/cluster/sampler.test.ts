// sbatch/lib/sampler.sh run by real bash on this machine (outside Slurm: the job's processes are
// those with TRACK_LAUNCH_RUN_DIR=<run dir>), with a stand-in nvidia-smi printing recorded text.
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { parseResources } from '../../../core/resource-samples';
import { FIXTURES } from './helpers';

jest.setTimeout(60_000);
const LIB = path.resolve(__dirname, '..', '..', '..', 'sbatch', 'lib', 'sampler.sh');

function runBash(script: string, env: Record<string, string> = {}) {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(SLURM|SLURMD)_/.test(k)));
  const r = spawnSync('bash', ['-c', script], {
    env: { ...clean, ...env },
    encoding: 'utf8',
    timeout: 50_000,
  });
  if (r.status !== 0) throw new Error(`bash exited ${r.status}: ${r.stderr}`);
  return r;
}

describe('sampler.sh', () => {
  test("samples the node, the job's own processes and the GPUs into logs/node-<name>.resources.jsonl", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "tl sampler 'q' "));
    const smi = path.join(dir, 'nvidia-smi');
    fs.writeFileSync(
      smi,
      `#!/bin/sh\ncut -d, -f1-4 ${JSON.stringify(path.join(FIXTURES, 'a100x4.nvidia-smi.csv'))}\n`,
      { mode: 0o755 },
    );
    const script = `
      set -euo pipefail
      . ${JSON.stringify(LIB)}
      run_dir=$1
      tl_sampler_start "$run_dir" node-a 0.3
      [[ -n $TL_SAMPLER_PID ]]
      export TRACK_LAUNCH_RUN_DIR=$run_dir
      # the job: a busy process holding memory, and a process of another run that must not count
      bash -c 'x=$(head -c 30000000 /dev/zero | tr "\\\\0" a); end=$((SECONDS + 2)); while ((SECONDS < end)); do :; done; echo \${#x}' >/dev/null &
      TRACK_LAUNCH_RUN_DIR=/elsewhere bash -c 'sleep 2' &
      sleep 2.2
      tl_sampler_stop
      [[ -z $TL_SAMPLER_PID ]]
      wait`;
    runBash(`${script.replace('run_dir=$1', `run_dir=${JSON.stringify(dir)}`)}`, {
      TL_SAMPLER_NVIDIA_SMI: smi,
    });
    const file = path.join(dir, 'logs', 'node-node-a.resources.jsonl');
    const samples = parseResources(fs.readFileSync(file, 'utf8'));
    expect(samples.length).toBeGreaterThanOrEqual(4);
    for (const s of samples) {
      expect(s).toMatchObject({ version: 1, host: 'node-a', alloc_cpus: null, alloc_mem_mb: null });
      expect(s.ncpu).toBe(os.cpus().length);
      expect(s.mem_total_mb).toBe(Math.floor(os.totalmem() / 2 ** 20));
      expect(s.dt).toBeGreaterThan(0);
      expect(s.dt).toBeLessThan(2);
      expect(s.gpus).toEqual([
        { index: 0, util: 97, mem_used_mb: 61234, mem_total_mb: 81920 },
        { index: 1, util: 95, mem_used_mb: 60987, mem_total_mb: 81920 },
        { index: 2, util: 0, mem_used_mb: 4, mem_total_mb: 81920 },
        { index: 3, util: null, mem_used_mb: null, mem_total_mb: 81920 },
      ]);
    }
    for (let i = 1; i < samples.length; i++) expect(samples[i].t).toBeGreaterThan(samples[i - 1].t);
    // The busy process (and only processes of this run) counted: CPU time and its ~57 MiB of strings.
    expect(samples.reduce((n, s) => n + s.job.cpu_s, 0)).toBeGreaterThan(0);
    expect(Math.max(...samples.map((s) => s.job.rss_mb))).toBeGreaterThan(20);
  });

  test('counts the CPU of job processes that end between two samples, once', () => {
    // The job: a wrapper shell (as the rank bootstrap) runs Python, which runs 4 children one after
    // the other, each busy for 0.4 s of CPU and gone long before the next 1 s sample. Python then
    // writes the CPU time the kernel gave it and its children (getrusage): the samples must add up to it.
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-sampler-'));
    const job = [
      'import resource, subprocess, sys, time',
      'for _ in range(4):',
      '    subprocess.run([sys.executable, "-c", "import time\\nend = time.process_time() + 0.4\\nwhile time.process_time() < end: pass"], check=True)',
      '    time.sleep(0.2)',
      's, c = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)',
      'print(s.ru_utime + s.ru_stime + c.ru_utime + c.ru_stime)',
    ].join('\n');
    const used = path.join(dir, 'used');
    fs.writeFileSync(path.join(dir, 'job.py'), job);
    runBash(`
      set -euo pipefail
      . ${JSON.stringify(LIB)}
      tl_sampler_start ${JSON.stringify(dir)} node-b 1
      export TRACK_LAUNCH_RUN_DIR=${JSON.stringify(dir)}
      bash -c 'python3 "$1" >"$2.tmp" && mv "$2.tmp" "$2"; sleep 30' job ${JSON.stringify(path.join(dir, 'job.py'))} ${JSON.stringify(used)} &
      w=$!
      until [[ -s ${JSON.stringify(used)} ]]; do sleep 0.05; done
      tl_sampler_stop
      kill "$w"; wait "$w" || true`);
    const measured = Number(fs.readFileSync(used, 'utf8'));
    expect(measured).toBeGreaterThan(1.6);
    const samples = parseResources(
      fs.readFileSync(path.join(dir, 'logs', 'node-node-b.resources.jsonl'), 'utf8'),
    );
    const sampled = samples.reduce((n, s) => n + s.job.cpu_s, 0);
    // within clock-tick rounding and the wrapper shell's own few ticks
    expect(sampled).toBeGreaterThan(0.9 * measured);
    expect(sampled).toBeLessThan(1.1 * measured + 0.1);
  });

  test('interval 0 starts nothing; only one process per node samples', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-sampler-'));
    const r = runBash(`
      . ${JSON.stringify(LIB)}
      tl_sampler_start ${JSON.stringify(dir)} n 0; echo "pid=[$TL_SAMPLER_PID]"
      tl_sampler_stop
      for m in "srun 0 2" "srun 1 0" "mpiexec 0 1" "torchrun-agent 0 1" "torchrun-worker 0 0" "local 0 0" "local 0 1"; do
        set -- $m; if tl_sampler_for_rank "$@"; then echo "$m yes"; else echo "$m no"; fi
      done`);
    expect(r.stdout.trim().split('\n')).toEqual([
      'pid=[]',
      'srun 0 2 yes',
      'srun 1 0 no',
      'mpiexec 0 1 yes',
      'torchrun-agent 0 1 yes',
      'torchrun-worker 0 0 no',
      'local 0 0 yes',
      'local 0 1 no',
    ]);
    expect(fs.existsSync(path.join(dir, 'logs'))).toBe(false);
  });

  test('ends by itself when the process that started it is gone', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-sampler-'));
    const r = runBash(`
      . ${JSON.stringify(LIB)}
      ( tl_sampler_start ${JSON.stringify(dir)} n 0.2; echo "$TL_SAMPLER_PID" > ${JSON.stringify(path.join(dir, 'pid'))}; exec sleep 0.5 )
      sleep 1.5
      pid=$(cat ${JSON.stringify(path.join(dir, 'pid'))})
      state=$(ps -o stat= -p "$pid" || true)
      if [[ -n $state && $state != Z* ]]; then echo alive; kill "$pid"; else echo gone; fi`);
    expect(r.stdout.trim()).toBe('gone');
  });
});
