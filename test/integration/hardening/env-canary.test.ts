// Issue 14 "Secrets stay secret": a canary given with --env reaches every rank (local executor and
// the cluster) and appears in no file of the run directory and no output of --dry-run / --json;
// the submitting shell's MLflow credentials reach no rank unless --env names them.
import { randomBytes, createHash } from 'crypto';
import * as fs from 'fs';
import * as path from 'path';
import { cancelJobs, cli, clusterEnv, jobIdOf, PYTHON, requireCluster, tmpDir } from '../launcher/cluster';

jest.setTimeout(300_000);
const submitted: string[] = [];
beforeAll(requireCluster);
afterAll(() => cancelJobs(submitted));

const CANARY = `canary-${randomBytes(12).toString('hex')}`;
const PASSWORD = `pw-${randomBytes(8).toString('hex')}`;
const TOKEN = `tok-${randomBytes(8).toString('hex')}`;
const sha = (s: string) => createHash('sha256').update(s).digest('hex');

// Each rank prints a hash of what it sees, never the values themselves.
const PROBE = [
  'import hashlib, os',
  'h = lambda k: hashlib.sha256(os.environ[k].encode()).hexdigest() if k in os.environ else "unset"',
  'print("canary", h("CANARY"), "password", h("MLFLOW_TRACKING_PASSWORD"), "token", h("MLFLOW_TRACKING_TOKEN"), flush=True)',
].join('\n');

function filesWith(dir: string, needle: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...filesWith(p, needle));
    else if (e.isFile() && fs.readFileSync(p).includes(needle)) out.push(p);
  }
  return out;
}

describe.each(['local', 'slurm'])('--env under the %s executor', (executor) => {
  test('the ranks see the canary and the token asked for, not the password; no file or output holds them', async () => {
    const cwd = tmpDir(`canary-${executor}`);
    const env = clusterEnv({ MLFLOW_TRACKING_PASSWORD: PASSWORD, MLFLOW_TRACKING_TOKEN: TOKEN });
    const args = ['submit', '--executor', executor, '-N', '2', '--env', `CANARY=${CANARY}`];
    args.push('--env', 'MLFLOW_TRACKING_TOKEN', '--run-dir', 'run');
    const command = ['--', PYTHON, '-c', PROBE];

    for (const extra of [['--dry-run'], ['--dry-run', '--json']]) {
      const dry = await cli([...args, ...extra, ...command], { env, cwd });
      expect({ code: dry.code, leaked: `${dry.stdout}${dry.stderr}`.includes(CANARY) }).toEqual({
        code: 0,
        leaked: false,
      });
      expect(dry.stdout).toContain('CANARY');
      expect(`${dry.stdout}${dry.stderr}`).not.toContain(TOKEN);
    }

    const r = await cli([...args, '--follow', '--poll', '0.5', '--json', ...command], {
      env,
      cwd,
      timeoutMs: 240_000,
    });
    if (executor === 'slurm') submitted.push(jobIdOf(r));
    expect(r.code).toBe(0);
    for (const out of [r.stdout, r.stderr])
      for (const s of [CANARY, PASSWORD, TOKEN]) expect(out).not.toContain(s);

    const runDir = path.join(cwd, 'run');
    for (const rank of [0, 1]) {
      const seen = fs.readFileSync(path.join(runDir, 'logs', `rank-${rank}.out`), 'utf8');
      expect({ rank, seen: seen.trim() }).toEqual({
        rank,
        seen: `canary ${sha(CANARY)} password unset token ${sha(TOKEN)}`,
      });
    }
    for (const s of [CANARY, PASSWORD, TOKEN])
      expect({ s, files: filesWith(runDir, s) }).toEqual({ s, files: [] });
    const record = JSON.parse(fs.readFileSync(path.join(runDir, 'job.json'), 'utf8')) as {
      spec: { env_keys: string[] };
    };
    expect(record.spec.env_keys).toEqual(['CANARY', 'MLFLOW_TRACKING_TOKEN']);
  });
});
