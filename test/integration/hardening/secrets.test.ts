// Issue #6 item 14: MLFLOW_TRACKING_PASSWORD, MLFLOW_TRACKING_TOKEN and every value from ./.env
// never appear in the sbatch script, the logs, the run directory, the MLflow params/tags/artifacts,
// the job index or any message, across a local job, a cluster job, ingest/sync and provoked errors.
import * as fs from 'fs';
import * as path from 'path';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import {
  cancelJobs,
  cli,
  clusterEnv,
  jobIdOf,
  PYTHON,
  REPO,
  requireCluster,
  tmpDir,
  type CliResult,
} from '../launcher/cluster';
import { mlflowUp, uniqueName } from '../tracking/server';
import { pdfText } from '../../unit/reports/helpers/check-output';

jest.setTimeout(300_000);
const submitted: string[] = [];
beforeAll(requireCluster);

const PASSWORD = 'pw-Zq8xV3-basic-secret';
const TOKEN = 'tok-9fK2LmN7-bearer-secret';
const DOTENV = 'dotenv-7Hq2-api-secret';
const DOTENV_PLAIN = 'dotenv-plain-4Rt9-value'; // a .env value under a harmless name: still never shown
const SECRETS = [PASSWORD, TOKEN, DOTENV, DOTENV_PLAIN, Buffer.from(`tluser:${PASSWORD}`).toString('base64')];

/** Every secret found in this text, with where. */
const leaks = (where: string, text: string | Buffer) => {
  const t = Buffer.isBuffer(text) ? text.toString('latin1') : text;
  return SECRETS.filter((s) => t.includes(s)).map((s) => `${where}: ${s}`);
};

let dotenvFile = '';
/** The PDFs grepTree read as text, with that text: a PDF's streams are compressed, so its raw bytes
 *  would hide a secret; poppler's pdftotext shows what a reader sees. */
const pdfsRead = new Map<string, string>();
function grepTree(dir: string): string[] {
  const out: string[] = [];
  if (!fs.existsSync(dir)) return out;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    out.push(...leaks(`name ${p}`, e.name));
    if (p === dotenvFile) continue; // the input itself
    if (e.isDirectory()) out.push(...grepTree(p));
    else if (e.isFile()) {
      out.push(...leaks(p, fs.readFileSync(p)));
      if (e.name.endsWith('.pdf')) {
        const text = pdfText(p);
        pdfsRead.set(p, text);
        // as laid out, and with the layout's spaces and line breaks gone (a value split across lines)
        out.push(...leaks(`text of ${p}`, text), ...leaks(`text of ${p}`, text.replace(/\s+/g, '')));
      }
    }
  }
  return out;
}

test('secrets never appear in scripts, logs, run dirs, MLflow or messages', async () => {
  const uri = mlflowUp();
  const cwd = tmpDir('secrets');
  dotenvFile = path.join(cwd, '.env');
  fs.writeFileSync(
    dotenvFile,
    `TL_API_SECRET=${DOTENV}\nTL_PLAIN_SETTING=${DOTENV_PLAIN}\nTRACK_LAUNCH_EXPERIMENT=${uniqueName('secrets')}\n`,
  );
  const experiment = fs
    .readFileSync(path.join(cwd, '.env'), 'utf8')
    .match(/TRACK_LAUNCH_EXPERIMENT=(.*)/)![1];
  const env = clusterEnv({
    MLFLOW_TRACKING_URI: uri,
    MLFLOW_TRACKING_USERNAME: 'tluser',
    MLFLOW_TRACKING_PASSWORD: PASSWORD,
    MLFLOW_TRACKING_TOKEN: TOKEN,
  });
  const train = [
    PYTHON,
    path.join(REPO, 'examples/polynomial/train.py'),
    '--epochs',
    '200',
    '--log-every',
    '20',
  ];
  const found: string[] = [];
  const said: CliResult[] = [];
  const run = async (args: string[], extra: NodeJS.ProcessEnv = {}) => {
    const r = await cli(args, { env: { ...env, ...extra }, cwd, timeoutMs: 240_000 });
    said.push(r);
    found.push(...leaks(`output of #${said.length} ${args.slice(0, 3).join(' ')}`, r.stdout + r.stderr));
    return r;
  };

  // A local job and a cluster job, followed (live ingestion + reports uploaded to MLflow).
  const local = await run([
    'submit',
    '--executor',
    'local',
    '-N',
    '2',
    '--follow',
    '--poll',
    '0.5',
    '--run-dir',
    'runs/local',
    '--',
    ...train,
  ]);
  expect(local.code).toBe(0);
  const slurmRun = await run([
    'submit',
    '-N',
    '2',
    '--follow',
    '--poll',
    '0.5',
    '--run-dir',
    'runs/slurm',
    '--',
    ...train,
  ]);
  submitted.push(jobIdOf(slurmRun));
  expect(slurmRun.code).toBe(0);
  const st = await run(['status', 'runs/slurm']);
  expect({ code: st.code, out: st.stdout }).toEqual({ code: 0, out: expect.stringContaining('COMPLETED') });
  const lg = await run(['logs', 'runs/slurm', '--rank', '1']);
  expect({ code: lg.code, out: lg.stdout }).toEqual({
    code: 0,
    out: fs.readFileSync(path.join(cwd, 'runs/slurm/logs/rank-1.out'), 'utf8'),
  });
  expect(lg.stdout).toMatch(/^epoch 0, loss = /m); // the rank's own lines, really printed
  const ing = await run(['ingest', 'runs/local']);
  expect(ing.code).toBe(0);
  // Credentials in the URI's user info (the server ignores them; they must not be kept or shown).
  const withUserinfo = uri.replace('://', `://tluser:${PASSWORD}@`);
  const u1 = await run(['ingest', 'runs/local', '--tracking-uri', withUserinfo]);
  expect(u1.code).toBe(0);
  const u2 = await run(['ingest', 'runs/local', '--json'], { MLFLOW_TRACKING_URI: withUserinfo });
  expect(u2.code).toBe(0);
  await run(['submit', '--executor', 'local', '--dry-run', '--', ...train]);

  // Provoked errors: unreachable server (credentials in the URI too), refused values, a bad URI.
  const e1 = await run(['ingest', 'runs/local', '--tracking-uri', `http://tluser:${PASSWORD}@127.0.0.1:1`], {
    MLFLOW_HTTP_REQUEST_MAX_RETRIES: '0',
  });
  expect(e1.code).not.toBe(0);
  const e2 = await run(['sync', 'runs/local'], {
    MLFLOW_TRACKING_URI: `http://127.0.0.1:1/?token=${TOKEN}`,
    MLFLOW_HTTP_REQUEST_MAX_RETRIES: '0',
  });
  expect(e2.code).not.toBe(0);
  const e3 = await run(['submit', `--env=bad-key=${DOTENV}`, '--', 'true']);
  expect(e3.code).toBe(2);
  const e4 = await run(['submit', `--name=${PASSWORD}!`, '--', 'true']);
  expect(e4.code).toBe(2);
  const e5 = await run(['sync', 'runs/local', '--tracking-uri', `ftp://tluser:${PASSWORD}@x/${TOKEN}`]);
  expect(e5.code).not.toBe(0);
  const e6 = await run(['status', 'runs/slurm', '--json'], {
    MLFLOW_TRACKING_URI: `http://tluser:${PASSWORD}@127.0.0.1:1`,
  });
  expect(e6.code).toBe(0);

  // Files: the whole working directory (run dirs, scripts, logs, spools, reports), the job index.
  found.push(...grepTree(cwd), ...grepTree(env.XDG_STATE_HOME as string));
  // both jobs' reports were read as text (not vacuous: the text is there to search)
  const reports = [...pdfsRead.keys()].filter((p) => p.startsWith(path.join(cwd, 'runs')));
  expect(reports.map((p) => path.relative(cwd, p)).sort()).toEqual(
    expect.arrayContaining(['runs/local/reports/report.pdf', 'runs/slurm/reports/report.pdf']),
  );
  for (const p of reports)
    expect([p, pdfsRead.get(p)]).toEqual([p, expect.stringContaining('loss against step')]);
  expect(fs.readFileSync(path.join(cwd, 'runs/slurm/job.sbatch'), 'utf8')).toContain('#SBATCH');

  // MLflow: every param, tag and metric name of the job's runs, and every artifact file on the server.
  const client = await MlflowClient.connect(uri, {});
  const exp = await client.getExperimentByName(experiment);
  expect(exp).toBeDefined();
  const runs = await client.searchAllRuns([exp!.experiment_id], '');
  expect(runs.length).toBe(6); // 2 jobs x (parent + 2 ranks)
  found.push(...leaks('MLflow runs', JSON.stringify(runs)));
  const state = process.env.MLFLOW_TEST_STATE ?? path.join(REPO, 'test', 'mlflow', '.state');
  const artifacts = path.join(state, 'artifacts', exp!.experiment_id);
  const count = (d: string): number =>
    fs
      .readdirSync(d, { withFileTypes: true })
      .reduce((n, e) => n + (e.isDirectory() ? count(path.join(d, e.name)) : 1), 0);
  expect(count(artifacts)).toBeGreaterThanOrEqual(10); // job.sbatch, job.json, rank logs, reports
  const before = pdfsRead.size;
  found.push(...grepTree(artifacts));
  expect(pdfsRead.size - before).toBeGreaterThanOrEqual(2); // the reports/ attached to both parents

  expect(found).toEqual([]);
});

afterAll(() => cancelJobs(submitted));
