// Never silently lose a point (issue 14): names mapped or left out and counted, a refused batch
// bisected to the entries the server will not take, the rest delivered; the accounting (pure).
import fc from 'fast-check';
import { TrackLaunchError } from '../../../core';
import { isEntryRefusal, reasonOf, sendBisecting } from '../../../tracking-plugin/mlflow/bisect';
import {
  cutTo,
  fitValue,
  MAX_PARAM_VALUE,
  MAX_TAG_VALUE,
  splitBatch,
  type LogBatchBody,
} from '../../../tracking-plugin/mlflow/batch';
import { isValidName } from '../../../tracking-plugin/mlflow/names';
import {
  describeCounts,
  firstRefusal,
  MAX_REASONS,
  recordUndelivered,
  undeliveredOf,
  type DeliveryState,
} from '../../../tracking-plugin/ingest/delivery';
import { NameMapper, nameTagKey } from '../../../tracking-plugin/ingest/names-map';
import { countLost, Sender } from '../../../tracking-plugin/ingest/sender';
import { formatUndelivered } from '../../../tracking-plugin/ingest/progress';
import { paramClashes, parentName, parentParams, parentTags } from '../../../tracking-plugin/ingest/tags';
import type { MlflowClient } from '../../../tracking-plugin/mlflow/client';
import { jobRecord } from './fixture';

const refusal = (key: string) =>
  new TrackLaunchError(
    'TRACKING',
    `MLflow answered 400 INVALID_PARAMETER_VALUE to POST /api/2.0/mlflow/runs/log-batch: Invalid metric name: '${key}'. Names may only contain alphanumerics`,
    { details: { status: 400, error_code: 'INVALID_PARAMETER_VALUE' } },
  );

/** A server that refuses any batch holding a key in `bad`, and records what it accepted. */
function server(bad: Set<string>) {
  const accepted: string[] = [];
  let requests = 0;
  const send = async (b: LogBatchBody) => {
    requests++;
    const all = [...b.metrics, ...b.params, ...b.tags];
    const wrong = all.find((e) => bad.has(e.key));
    if (wrong) throw refusal(wrong.key);
    for (const m of b.metrics) accepted.push(`m ${m.key} ${m.step}`);
    for (const p of b.params) accepted.push(`p ${p.key}`);
    for (const t of b.tags) accepted.push(`t ${t.key}`);
  };
  return { send, accepted, requests: () => requests };
}

const body = (keys: string[]): LogBatchBody => ({
  run_id: 'r',
  metrics: keys.map((key, step) => ({ key, value: 1, timestamp: 1, step })),
  params: [{ key: 'lr', value: '0.1' }],
  tags: [{ key: 'host', value: 'n1' }],
});

describe('bisect', () => {
  test('every entry but the refused ones arrives, exactly once', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom('loss', 'acc', 'bad1', 'bad2', 'lr2'), { minLength: 1, maxLength: 60 }),
        async (keys) => {
          const s = server(new Set(['bad1', 'bad2']));
          const refused = await sendBisecting(body(keys), s.send);
          const expectBad = keys.filter((k) => k.startsWith('bad')).length;
          expect(refused.length).toBe(expectBad);
          expect(
            refused.every((r) => r.kind === 'metrics' && r.reason.startsWith('Invalid metric name')),
          ).toBe(true);
          expect(s.accepted.length).toBe(keys.length - expectBad + 2);
          expect(new Set(s.accepted).size).toBe(s.accepted.length);
        },
      ),
      { numRuns: 100 },
    );
  });

  test('one bad entry among 1000 costs about 2 log2(1000) requests', async () => {
    const keys = Array.from({ length: 1000 }, (_, i) => (i === 517 ? 'bad1' : 'loss'));
    const s = server(new Set(['bad1']));
    expect((await sendBisecting(body(keys), s.send)).map((r) => r.key)).toEqual(['bad1']);
    expect(s.requests()).toBeLessThanOrEqual(2 * 11 + 1);
  });

  test.each([
    ['sqlite', 'UNIQUE constraint failed: metrics.key, metrics.timestamp, metrics.step, metrics.run_uuid'],
    ['PostgreSQL', 'duplicate key value violates unique constraint "metric_pk"'],
    ['MySQL', "Duplicate entry 'm-1-3-r-0-1' for key 'metrics.PRIMARY'"],
  ])(
    'a metric MLflow 2 on %s says it already stores (a resent NaN) counts as delivered',
    async (_db, words) => {
      // the server holds step 3 already: any batch with it fails as a whole, as in one transaction
      const stored = new Set([3]);
      const accepted: number[] = [];
      const send = async (b: LogBatchBody) => {
        if (b.metrics.some((m) => stored.has(m.step)))
          throw new TrackLaunchError(
            'TRACKING',
            `MLflow answered 400 BAD_REQUEST to POST /api/2.0/mlflow/runs/log-batch: (sqlalchemy) ${words}`,
            { details: { status: 400, error_code: 'BAD_REQUEST' } },
          );
        accepted.push(...b.metrics.map((m) => m.step));
      };
      expect(await sendBisecting(body(['a', 'b', 'c', 'd', 'e', 'f']), send)).toEqual([]);
      expect(accepted.sort()).toEqual([0, 1, 2, 4, 5]);
      // the same words about a param are a refusal like any other
      const paramSend = async (b: LogBatchBody) => {
        if (b.params.length)
          throw new TrackLaunchError('TRACKING', `MLflow answered 400 BAD_REQUEST to POST x: ${words}`, {
            details: { status: 400, error_code: 'BAD_REQUEST' },
          });
      };
      expect((await sendBisecting(body(['a']), paramSend)).map((r) => r.kind)).toEqual(['params']);
    },
  );

  test('refusals about the server or the run are thrown, not split', async () => {
    const busy = new TrackLaunchError(
      'TRACKING',
      'MLflow answered 400 to POST x: QueuePool limit of size 5',
      {
        details: { status: 400, error_code: 'INVALID_PARAMETER_VALUE' },
      },
    );
    const deleted = new TrackLaunchError(
      'TRACKING',
      "MLflow answered 400 INVALID_PARAMETER_VALUE to POST x: The run abc must be in the 'active' state.",
      { details: { status: 400, error_code: 'INVALID_PARAMETER_VALUE' } },
    );
    const auth = new TrackLaunchError('TRACKING', 'MLflow answered 401', { details: { status: 401 } });
    for (const e of [busy, deleted, auth]) {
      expect(isEntryRefusal(e)).toBe(false);
      let calls = 0;
      const send = async () => {
        calls++;
        throw e;
      };
      await expect(sendBisecting(body(['a', 'b']), send)).rejects.toBe(e);
      expect(calls).toBe(1);
    }
    expect(isEntryRefusal(refusal('x'))).toBe(true);
    expect(reasonOf(refusal('x'))).toBe("Invalid metric name: 'x'. Names may only contain alphanumerics");
  });
});

describe('names', () => {
  test('valid names go as they are, others mapped and recorded, unusable ones counted', () => {
    const m = new NameMapper().map({
      metrics: [
        { key: 'loss', value: 1, timestamp: 1, step: 0 },
        { key: 'acc@1', value: 1, timestamp: 1, step: 0 },
        { key: 'acc@1', value: 1, timestamp: 1, step: 1 },
        { key: '%%%', value: 1, timestamp: 1, step: 0 },
        { key: '%%%', value: 1, timestamp: 1, step: 1 },
      ],
      params: [{ key: '../x', value: '1' }],
    });
    expect(m.metrics.map((x) => x.key)).toEqual([
      'loss',
      expect.stringMatching(/^acc_1_[0-9a-f]{6}$/),
      m.metrics[1].key,
    ]);
    expect(m.params[0].key).toMatch(/^x_[0-9a-f]{6}$/);
    expect([...m.renamed.keys()].sort()).toEqual(['../x', 'acc@1']);
    expect(m.unusable).toEqual([{ kind: 'metric', name: '%%%', count: 2 }]);
    for (const sent of m.renamed.values()) expect(isValidName(nameTagKey(sent))).toBe(true);
    expect(isValidName(nameTagKey('a'.repeat(250)))).toBe(true);
  });

  test('parent run name holds the job id; clashing params keep the built-in value', () => {
    expect(parentName(jobRecord({ job_id: '77' }), '/r')).toBe('poly #77');
    expect(parentName(jobRecord({ job_id: undefined }), '/r/x')).toBe('poly');
    expect(parentName(undefined, '/r/x')).toBe('x');
    const job = jobRecord();
    job.spec.params = { 'job.nodes': '1', lr: '2' };
    expect(paramClashes(job)).toEqual(['job.nodes']);
    const ps = parentParams(job);
    expect(ps.filter((p) => p.key === 'job.nodes')).toEqual([{ key: 'job.nodes', value: '3' }]);
    expect(ps.find((p) => p.key === 'lr')?.value).toBe('2');
  });
});

describe('accounting', () => {
  test('grouped by reason, counted once per refused param, bounded in reasons', () => {
    const s: DeliveryState = {};
    recordUndelivered(s, 'points', 3, 'a');
    recordUndelivered(s, 'points', 2, 'b');
    if (firstRefusal(s, 'r', 'params', 'k')) recordUndelivered(s, 'params', 1, 'a');
    if (firstRefusal(s, 'r', 'params', 'k')) recordUndelivered(s, 'params', 1, 'a');
    const u = undeliveredOf(s);
    expect(u).toMatchObject({ points: 5, params: 1, tags: 0, files: 0 });
    expect(u.reasons.map((r) => r.reason)).toEqual(['a', 'b']);
    expect(describeCounts(u)).toBe('5 points, 1 param');
    expect(formatUndelivered(u)).toBe('5 points, 1 param not delivered: 3 points, 1 param: a; 2 points: b');
    for (let i = 0; i < 2 * MAX_REASONS; i++) recordUndelivered(s, 'tags', 1, `r${i}`);
    const v = undeliveredOf(s);
    expect(v.reasons.length).toBe(MAX_REASONS + 1);
    expect(v.tags).toBe(2 * MAX_REASONS);
  });

  test('the sender delivers the rest, maps names once per run, counts what it left out', async () => {
    const s = server(new Set(['loss[val]']));
    const client = { logBatchRequest: s.send } as unknown as MlflowClient;
    const state: DeliveryState = {};
    const warnings: string[] = [];
    const sender = new Sender(client, state, (w) => warnings.push(w));
    const send = async (i: Parameters<Sender['send']>[1]) => {
      const sent = await sender.send('r', i);
      countLost(state, sent);
      return sent.delivered;
    };
    const pts = (key: string, n: number) =>
      Array.from({ length: n }, (_, step) => ({ key, value: step, timestamp: 1, step }));
    const input = {
      metrics: [...pts('loss', 30), ...pts('acc@1', 20), ...pts('%%%', 5), ...pts('loss[val]', 0)],
    };
    expect(await send(input)).toBe(50);
    expect(await send({ metrics: pts('acc@1', 3) })).toBe(3);
    const nameTags = s.accepted.filter((a) => a.startsWith('t track_launch.name.'));
    expect(nameTags).toEqual([`t ${nameTagKey(sender.renamed.get('acc@1')!)}`]);
    expect(undeliveredOf(state).points).toBe(5);
    expect(warnings).toEqual([expect.stringContaining('"%%%"')]);
    await sender.send('r', { params: [{ key: 'p', value: '1' }], tags: [{ key: 'loss[val]', value: 'x' }] });
    await sender.send('r', { params: [{ key: 'p', value: '1' }], tags: [{ key: 'loss[val]', value: 'x' }] });
    // loss[val] is mapped before sending: the stand-in never sees it, so nothing is refused
    expect(undeliveredOf(state)).toMatchObject({ points: 5, tags: 0 });
  });

  test('a name is noted as sent under its valid form only once MLflow took an entry under it', async () => {
    const pts = (key: string, n: number) =>
      Array.from({ length: n }, (_, step) => ({ key, value: step, timestamp: 1, step }));
    const learn = new Sender(
      { logBatchRequest: server(new Set()).send } as unknown as MlflowClient,
      {},
      () => {},
    );
    await learn.send('r', { metrics: pts('acc@1', 2) });
    const valid = learn.renamed.get('acc@1')!;
    expect(valid).not.toBe('acc@1');
    // a server that refuses the valid form too: nothing went out under it, so no "sent as" note
    const refusing = server(new Set([valid]));
    const sender = new Sender({ logBatchRequest: refusing.send } as unknown as MlflowClient, {}, () => {});
    const sent = await sender.send('r', { metrics: pts('acc@1', 2) });
    expect(sent.delivered).toBe(0);
    expect(sender.renamed.has('acc@1')).toBe(false);
  });

  test('a batch goes out as the text serialised before its turn; a split sends its halves as objects', async () => {
    const s = server(new Set(['weird']));
    const tries: Array<{ json?: string; body: LogBatchBody }> = [];
    const client = {
      logBatchRequest: async (b: LogBatchBody, json?: string) => {
        tries.push({ body: b, ...(json === undefined ? {} : { json }) });
        await s.send(json === undefined ? b : (JSON.parse(json) as LogBatchBody));
      },
    } as unknown as MlflowClient;
    const sender = new Sender(client, {}, () => undefined);
    // a gate that lets the sends wait, to see what each had built before its turn
    const waiting: Array<() => void> = [];
    const gate = <T>(task: () => Promise<T>) => new Promise<void>((r) => waiting.push(r)).then(task);
    const pts = (key: string, n: number) =>
      Array.from({ length: n }, (_, step) => ({ key, value: step, timestamp: 1, step }));
    const ok = sender.send('r', { metrics: pts('loss', 8) }, gate);
    const split = sender.send('r', { metrics: [...pts('acc', 3), ...pts('weird', 1)] }, gate);
    await new Promise((r) => setImmediate(r));
    expect(waiting).toHaveLength(2);
    expect(tries).toEqual([]); // nothing sent before its turn
    waiting.forEach((go) => go());
    expect((await ok).delivered).toBe(8);
    expect((await split).delivered).toBe(3);
    // first tries: the text of exactly the batch; the halves of the refused one: objects
    expect(tries[0].json).toBe(JSON.stringify(tries[0].body));
    expect(JSON.parse(tries[0].json!).metrics).toHaveLength(8);
    expect(tries[1].json).toBe(JSON.stringify(tries[1].body));
    expect(tries.slice(2).every((t) => t.json === undefined)).toBe(true);
    expect(tries.length).toBeGreaterThan(2);
    expect(s.accepted.filter((a) => a.startsWith('m '))).toHaveLength(11);
  });

  test('a name the server refuses (though we think it valid) is bisected once, then left out', async () => {
    const s = server(new Set(['weird']));
    const client = { logBatchRequest: s.send } as unknown as MlflowClient;
    const state: DeliveryState = {};
    const sender = new Sender(client, state, () => undefined);
    const send = async (i: Parameters<Sender['send']>[1]) => {
      const sent = await sender.send('r', i);
      countLost(state, sent);
      return sent.delivered;
    };
    const pts = Array.from({ length: 200 }, (_, step) => ({
      key: step % 2 ? 'weird' : 'loss',
      value: 1,
      timestamp: 1,
      step,
    }));
    expect(await send({ metrics: pts })).toBe(100);
    const before = s.requests();
    expect(await send({ metrics: pts })).toBe(100);
    expect(s.requests() - before).toBe(1); // known refused name: left out without asking again
    expect(undeliveredOf(state).points).toBe(200);
    expect(s.accepted.filter((a) => a.startsWith('m loss')).length).toBe(200);
  });
});

describe("values over MLflow's length limits", () => {
  // MLflow counts characters as Python does (code points); JavaScript's length counts UTF-16 units.
  const codePoints = (s: string) => [...s].length;

  test('cutTo and fitValue stay within the limit, keep a prefix and never split a surrogate pair', () => {
    fc.assert(
      fc.property(fc.fullUnicodeString({ maxLength: 300 }), fc.integer({ min: 60, max: 200 }), (v, limit) => {
        for (const out of [cutTo(v, limit), fitValue(v, limit)]) {
          expect(codePoints(out)).toBeLessThanOrEqual(limit);
          expect(out.length).toBeLessThanOrEqual(limit);
          expect(/[\uD800-\uDBFF]$/.test(out)).toBe(false);
        }
        const cut = cutTo(v, limit);
        expect(v.startsWith(cut)).toBe(true);
        if (v.length <= limit) expect(fitValue(v, limit)).toBe(v);
        else expect(fitValue(v, limit)).toMatch(new RegExp(`\\[cut: ${v.length} characters in all\\]$`));
      }),
    );
  });

  test('values we make (a long command) are fitted with a note; user params are not', () => {
    const job = jobRecord();
    job.spec.command = ['python3', 'x'.repeat(20_000)];
    job.spec.params = { long: 'v'.repeat(MAX_PARAM_VALUE + 1) };
    const tags = parentTags(job, '/r', 'k', undefined, { user: 'u' });
    const source = tags.find((t) => t.key === 'mlflow.source.name')!.value;
    expect(source.length).toBeLessThanOrEqual(MAX_TAG_VALUE);
    expect(source).toMatch(/\[cut: 20008 characters in all\]$/);
    const params = parentParams(job);
    expect(params.find((p) => p.key === 'job.command')!.value.length).toBeLessThanOrEqual(MAX_PARAM_VALUE);
    expect(params.find((p) => p.key === 'long')!.value.length).toBe(MAX_PARAM_VALUE + 1);
  });

  test('a value over the limit is sent cut once, warned, and counted as not delivered in full', async () => {
    const seen: LogBatchBody[] = [];
    const client = {
      logBatchRequest: async (b: LogBatchBody) => void seen.push(b),
    } as unknown as MlflowClient;
    const state: DeliveryState = {};
    const warnings: string[] = [];
    const sender = new Sender(client, state, (w) => warnings.push(w));
    const input = {
      params: [
        { key: 'long', value: 'p'.repeat(MAX_PARAM_VALUE + 5) },
        { key: 'short', value: '1' },
      ],
      tags: [{ key: 'note', value: 't'.repeat(MAX_TAG_VALUE + 1) }],
    };
    await sender.send('r', input);
    await sender.send('r', input);
    const params = seen.flatMap((b) => b.params);
    const tags = seen.flatMap((b) => b.tags);
    expect(params.filter((p) => p.key === 'long').map((p) => p.value.length)).toEqual([MAX_PARAM_VALUE]);
    expect(tags.filter((t) => t.key === 'note').map((t) => t.value.length)).toEqual([MAX_TAG_VALUE]);
    expect(params.filter((p) => p.key === 'short').length).toBe(2);
    expect(undeliveredOf(state)).toMatchObject({ points: 0, params: 1, tags: 1 });
    expect(warnings).toEqual([
      expect.stringContaining(`"long" has a value of ${MAX_PARAM_VALUE + 5} characters`),
      expect.stringContaining(`"note" has a value of ${MAX_TAG_VALUE + 1} characters`),
    ]);
    // the last guard: splitBatch never lets a longer value through
    const [b] = splitBatch('r', { params: [{ key: 'k', value: '🙂'.repeat(MAX_PARAM_VALUE) }] });
    expect(b!.params[0]!.value.length).toBeLessThanOrEqual(MAX_PARAM_VALUE);
  });
});
