// Never silently lose a point (issue 14) and the job's own outputs attached (issue 19), on the real
// MLflow server through the `ingest` command: awkward metric and param names mapped (or skipped,
// warned and counted, exit 9), a batch the server refuses bisected, the parent run named with the
// job id, --artifact files attached and a symlink and a ../ escape refused.
import { promises as fs } from 'fs';
import type { IncomingMessage, ServerResponse } from 'http';
import * as path from 'path';
import yargs from 'yargs';
import { ingestCommand } from '../../../cli/commands/ingest';
import { TrackLaunchError } from '../../../core/errors';
import { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { mlflowName } from '../../../tracking-plugin/mlflow/names';
import { endJob, jobRecord, makeRunDir, writeJob } from '../../unit/tracking/fixture';
import { appendLines, history, jobRuns, tag } from './helpers';
import { mlflowUp, standIn, uniqueName } from './server';

jest.setTimeout(240_000);

const AWKWARD = [
  'acc@1',
  'top-1 acc (%)',
  'loss[val]',
  'λ',
  'a/../b',
  '../up',
  '/abs',
  'a//b',
  'x=y',
  'grad#norm',
  'time(s)',
  'f1 score!',
  'val/acc@5',
  'lr*',
  'q?',
  '"quoted"',
  "it's",
  'épsilon',
  '🙂 smile',
  'tab\tname',
];
const ORDINARY = ['loss', 'acc', 'val/loss'];
const UNMAPPABLE = ['%%%', '@@', '(!)'];
const STEPS = 12;
const RANKS = [0, 1];

/** `ingest` in process; stderr kept, the error returned (exit code = its exitCode). */
async function ingest(args: string[]): Promise<{ err?: TrackLaunchError; out: string; stderr: string }> {
  let out = '';
  let stderr = '';
  const w = process.stdout.write.bind(process.stdout);
  const e = process.stderr.write.bind(process.stderr);
  process.stdout.write = ((s: string) => ((out += s), true)) as typeof process.stdout.write;
  process.stderr.write = ((s: string) => ((stderr += s), true)) as typeof process.stderr.write;
  try {
    await yargs(['ingest', ...args, '--no-report'])
      .command(ingestCommand)
      .option('json', { type: 'boolean' })
      .strict()
      .fail((msg, err) => {
        throw err ?? new Error(msg);
      })
      .parseAsync();
    return { out, stderr };
  } catch (err) {
    if (err instanceof TrackLaunchError) return { err, out, stderr };
    throw err;
  } finally {
    process.stdout.write = w;
    process.stderr.write = e;
  }
}

/** A finished job whose ranks log `names` through the jsonl protocol, STEPS steps each. */
async function jobWithNames(names: string[], over: Parameters<typeof jobRecord>[0] = {}): Promise<string> {
  const dir = await makeRunDir();
  await writeJob(dir, jobRecord({ job_id: uniqueName('dl'), ...over }, RANKS.length));
  for (const r of RANKS) {
    const lines = Array.from({ length: STEPS }, (_, step) =>
      JSON.stringify({
        track_launch: 1,
        step,
        metrics: Object.fromEntries(names.map((n, i) => [n, r + step / 100 + i])),
      }),
    );
    await appendLines(dir, r, lines, 1764669000 + r);
  }
  await endJob(dir, 'COMPLETED');
  return dir;
}

/** Counts every metric point the client sent in log-batch requests, as `<run> <key> <step>`. */
function counter() {
  const sent: string[] = [];
  const answer = (req: IncomingMessage) => {
    if (!req.url?.includes('/runs/log-batch')) return false;
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString('utf8')));
    req.on('end', () => {
      const b = JSON.parse(body) as { run_id: string; metrics: { key: string; step: number }[] };
      for (const m of b.metrics) sent.push(`${b.run_id} ${m.key} ${m.step}`);
    });
    return false;
  };
  return { sent, answer };
}

test('awkward names: every point of a valid or mappable name arrives; exit 0 when nothing was skipped', async () => {
  const uri = mlflowUp();
  const client = await MlflowClient.connect(uri, {});
  const names = [...ORDINARY, ...AWKWARD];
  const dir = await jobWithNames(names, {
    spec: { ...jobRecord().spec, world_size: 2, nodes: 2, params: { '../x': '1', lr: '0.1' } },
  });
  const c = counter();
  const proxy = await standIn(uri, { answer: c.answer });
  try {
    const r = await ingest([dir, '--json', '--tracking-uri', proxy.uri, '--experiment', uniqueName('names')]);
    expect(r.err).toBeUndefined();
    const s = JSON.parse(r.out);
    // the test's own count: ranks x steps x names, plus mean/min/max per name and step
    const expected = RANKS.length * STEPS * names.length + 3 * STEPS * names.length;
    expect(s).toMatchObject({ complete: true, pointsSpooled: expected, pointsSent: expected, pending: 0 });
    expect(s.undelivered).toBeUndefined();
    expect(c.sent.length).toBe(expected);
    expect(new Set(c.sent).size).toBe(expected);
    expect(s.renamed.map((x: { from: string }) => x.from)).toEqual(
      expect.arrayContaining([...AWKWARD.filter((n) => mlflowName(n) !== n), '../x']),
    );

    const key = JSON.parse(await fs.readFile(path.join(dir, 'tracking', 'state.json'), 'utf8')).job_key;
    const runs = await jobRuns(client, s.experimentId, key);
    const job = JSON.parse(await fs.readFile(path.join(dir, 'job.json'), 'utf8'));
    expect(runs.parent.info.run_name).toBe(`poly #${job.job_id}`);
    for (const rank of RANKS) {
      const run = runs.ranks.get(rank)!;
      for (const n of names) {
        const sentAs = mlflowName(n)!;
        expect([n, (await history(client, run.info.run_id, sentAs)).length]).toEqual([n, STEPS]);
        if (sentAs !== n) expect([n, tag(run, `track_launch.name.${sentAs}`)]).toEqual([n, n]);
      }
    }
    const params = Object.fromEntries((runs.parent.data.params ?? []).map((p) => [p.key, p.value]));
    expect(params[mlflowName('../x')!]).toBe('1');
    expect(tag(runs.parent, `track_launch.name.${mlflowName('../x')}`)).toBe('../x');
  } finally {
    await proxy.close();
  }
});

test('unmappable names are warned about once each, counted, exit 9; everything else arrives', async () => {
  const uri = mlflowUp();
  const names = [...ORDINARY, 'acc@1', ...UNMAPPABLE];
  const job = jobRecord();
  const dir = await jobWithNames(names, {
    spec: { ...job.spec, world_size: 2, nodes: 2, params: { 'job.nodes': '1' } },
  });
  const c = counter();
  const proxy = await standIn(uri, { answer: c.answer });
  try {
    const r = await ingest([dir, '--json', '--tracking-uri', proxy.uri, '--experiment', uniqueName('names')]);
    expect(r.err?.code).toBe('NOT_DELIVERED');
    expect(r.err?.exitCode).toBe(9);
    const lost = RANKS.length * STEPS * UNMAPPABLE.length;
    const good = (RANKS.length + 3) * STEPS * names.length - lost; // aggregates of `%%%` map (`___/mean`)
    const s = JSON.parse(r.out);
    expect(s).toMatchObject({ complete: true, status: 'FINISHED', pointsSent: good, pending: 0 });
    expect(s.undelivered).toMatchObject({ points: lost, params: 1 });
    expect(c.sent.length).toBe(good);
    expect(new Set(c.sent).size).toBe(good);
    for (const n of UNMAPPABLE)
      expect([n, s.warnings.filter((w: string) => w.includes(JSON.stringify(n))).length]).toEqual([n, 1]);
    expect(r.err?.message).toMatch(new RegExp(`${lost} points, 1 param not delivered`));
    // a second ingest sends nothing new and says the same
    const again = await ingest([dir, '--json', '--tracking-uri', uri]);
    expect(again.err?.code).toBe('NOT_DELIVERED');
    expect(JSON.parse(again.out)).toMatchObject({ pointsSent: good, undelivered: { points: lost } });
  } finally {
    await proxy.close();
  }
});

test('a batch the server refuses is bisected: the rest is delivered and later ingests go on', async () => {
  const uri = mlflowUp();
  const dir = await jobWithNames(['loss', 'refuse_me', 'acc']);
  let refusedRequests = 0;
  const sent: string[] = [];
  const proxy = await standIn(uri, {
    answer: (req: IncomingMessage, res: ServerResponse) => {
      if (!req.url?.includes('/runs/log-batch')) return false;
      const chunks: Buffer[] = [];
      req.on('data', (ch: Buffer) => chunks.push(ch));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const b = JSON.parse(body.toString('utf8')) as {
          run_id: string;
          metrics: { key: string; step: number }[];
        };
        const bad = b.metrics.find((m) => m.key.startsWith('refuse_me'));
        if (bad) {
          refusedRequests++;
          res.writeHead(400, { 'Content-Type': 'application/json' });
          const message = `Metric '${bad.key}' is not allowed here`;
          return void res.end(JSON.stringify({ error_code: 'INVALID_PARAMETER_VALUE', message }));
        }
        for (const m of b.metrics) sent.push(`${b.run_id} ${m.key} ${m.step}`);
        forward(uri, req, body, res);
      });
      return true;
    },
  });
  try {
    const r = await ingest([
      dir,
      '--json',
      '--tracking-uri',
      proxy.uri,
      '--experiment',
      uniqueName('bisect'),
    ]);
    expect(r.err?.code).toBe('NOT_DELIVERED');
    const lost = RANKS.length * STEPS + 3 * STEPS; // refuse_me per rank and its aggregates
    const good = (RANKS.length + 3) * STEPS * 3 - lost;
    expect(JSON.parse(r.out)).toMatchObject({ complete: true, status: 'FINISHED', pointsSent: good });
    expect(sent.length).toBe(good);
    expect(new Set(sent).size).toBe(good);
    expect(r.err?.message).toMatch(/Metric 'refuse_me' is not allowed here/);
    expect(r.err?.message).toMatch(/Metric 'refuse_me\/mean' is not allowed here/);
    // the name is learnt: a handful of refused requests per batch, not one per point
    expect(refusedRequests).toBeLessThan(60);
    // the cursor moved past the refused entries: what the job logs later still arrives
    const more = [12, 13].map((step) =>
      JSON.stringify({ track_launch: 1, step, metrics: { loss: 1, refuse_me: 2, acc: 3 } }),
    );
    await appendLines(dir, 0, more, 1764669500);
    const later = await ingest([dir, '--json', '--tracking-uri', proxy.uri]);
    const added = 2 * 2 + 2 * 2 * 3; // loss and acc on rank 0, and their mean/min/max
    expect(JSON.parse(later.out)).toMatchObject({ pointsSent: good + added, pending: 0 });
    expect(sent.length).toBe(good + added);
  } finally {
    await proxy.close();
  }
});

test("values over MLflow's limits: a long command is fitted with a note (exit 0), a long param sent cut and counted (exit 9)", async () => {
  const uri = mlflowUp();
  const client = await MlflowClient.connect(uri, {});
  const base = jobRecord().spec;
  const command = ['python3', 'train.py', `--notes=${'n'.repeat(9000)}`];
  const fitted = await jobWithNames(['loss'], { spec: { ...base, world_size: 2, nodes: 2, command } });
  const ok = await ingest([fitted, '--json', '--tracking-uri', uri, '--experiment', uniqueName('long')]);
  expect(ok.err).toBeUndefined();
  const s = JSON.parse(ok.out);
  const key = JSON.parse(await fs.readFile(path.join(fitted, 'tracking', 'state.json'), 'utf8')).job_key;
  const parent = (await jobRuns(client, s.experimentId, key)).parent;
  const full = command.join(' ').length;
  expect(tag(parent, 'mlflow.source.name')).toMatch(
    new RegExp(`^python3 train.py --notes=n+ ... \\[cut: ${full} characters in all\\]$`),
  );
  expect(tag(parent, 'mlflow.source.name')!.length).toBe(8000);
  const params = Object.fromEntries((parent.data.params ?? []).map((p) => [p.key, p.value]));
  expect(params['job.command']!.length).toBe(6000);

  // a param longer than MLflow keeps (submit refuses it; a job.json written by hand need not)
  const long = 'L'.repeat(7000);
  const cut = await jobWithNames(['loss'], {
    spec: { ...base, world_size: 2, nodes: 2, params: { long, lr: '0.1' } },
  });
  const r = await ingest([cut, '--json', '--tracking-uri', uri, '--experiment', uniqueName('long')]);
  expect(r.err?.code).toBe('NOT_DELIVERED');
  expect(r.err?.message).toMatch(
    /1 param not delivered: .*param values over MLflow's limit of 6000 characters \(sent cut\)/,
  );
  const t = JSON.parse(r.out);
  expect(t).toMatchObject({ complete: true, status: 'FINISHED', undelivered: { points: 0, params: 1 } });
  const k2 = JSON.parse(await fs.readFile(path.join(cut, 'tracking', 'state.json'), 'utf8')).job_key;
  const p2 = (await jobRuns(client, t.experimentId, k2)).parent;
  const ps = Object.fromEntries((p2.data.params ?? []).map((p) => [p.key, p.value]));
  expect(ps).toMatchObject({ long: long.slice(0, 6000), lr: '0.1' });
});

test('--artifact: the matching file is attached under outputs/, a symlink and a ../ escape refused', async () => {
  const uri = mlflowUp();
  const client = await MlflowClient.connect(uri, {});
  const submitDir = await makeRunDir('tl-submit-');
  await fs.writeFile(path.join(submitDir, 'errors.pdf'), '%PDF-1.4 test\n');
  await fs.writeFile(path.join(submitDir, 'secret.txt'), 'not for MLflow\n');
  await fs.symlink(path.join(submitDir, 'secret.txt'), path.join(submitDir, 'link.pdf'));
  const base = jobRecord();
  const dir = await jobWithNames(['loss'], {
    submit_dir: submitDir,
    spec: { ...base.spec, world_size: 2, nodes: 2, artifacts: ['*.pdf', '../*.txt'] },
  });
  const r = await ingest([dir, '--json', '--tracking-uri', uri, '--experiment', uniqueName('art')]);
  expect(r.err?.code).toBe('NOT_DELIVERED');
  expect(r.err?.message).toMatch(/2 files not delivered/);
  const s = JSON.parse(r.out);
  expect(s.warnings.join('\n')).toMatch(/link\.pdf is a symbolic link/);
  expect(s.warnings.join('\n')).toMatch(/--artifact \.\.\/\*\.txt leads outside/);
  expect(s).toMatchObject({ complete: true, status: 'FINISHED', undelivered: { files: 2, points: 0 } });
  const files = await client.listArtifacts(s.parentRunId, 'outputs');
  expect(files.map((f) => f.path)).toEqual(['outputs/errors.pdf']);
  // once: a second ingest does not upload again, and still reports what was refused
  const again = await ingest([dir, '--json', '--tracking-uri', uri]);
  expect(JSON.parse(again.out).undelivered).toMatchObject({ files: 2 });
});

/** Forward a request whose body was read already to the real server. */
function forward(target: string, req: IncomingMessage, body: Buffer, res: ServerResponse): void {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const http = require('http') as typeof import('http');
  const up = new URL(target);
  const fwd = http.request(
    {
      host: up.hostname,
      port: up.port,
      method: req.method,
      path: req.url,
      headers: { ...req.headers, host: up.host },
    },
    (r) => {
      res.writeHead(r.statusCode ?? 502, { 'Content-Type': r.headers['content-type'] ?? 'application/json' });
      r.pipe(res);
    },
  );
  fwd.on('error', (e) => {
    res.writeHead(502);
    res.end(e.message);
  });
  fwd.end(body);
}
