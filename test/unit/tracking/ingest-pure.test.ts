import fc from 'fast-check';
import { aggregate, Aggregator, settle } from '../../../tracking-plugin/ingest/aggregate';
import { isTransient } from '../../../tracking-plugin/ingest/ingester';
import { formatProgress } from '../../../tracking-plugin/ingest/progress';
import { TrackLaunchError } from '../../../core/errors';
import { decodeRecords, encodeRecords } from '../../../tracking-plugin/ingest/records';
import { childTags, experimentName, jobFilter, parentTags } from '../../../tracking-plugin/ingest/tags';
import { LineBatch } from '../../../tracking-plugin/logs/lines';
import { tsToMs } from '../../../tracking-plugin/logs/times';
import { rankStatusFor, runStatusFor } from '../../../tracking-plugin/status';
import { jobRecord, rankFacts } from './fixture';

describe('Slurm state -> MLflow status', () => {
  it('maps as the issue says', () => {
    const m = (s: Parameters<typeof runStatusFor>[0]) => runStatusFor(s, true);
    expect(m('COMPLETED')).toBe('FINISHED');
    for (const s of ['FAILED', 'NODE_FAIL', 'OUT_OF_MEMORY', 'TIMEOUT', 'BOOT_FAIL', 'UNKNOWN'] as const)
      expect(m(s)).toBe('FAILED');
    for (const s of ['CANCELLED', 'PREEMPTED', 'DEADLINE'] as const) expect(m(s)).toBe('KILLED');
    expect(runStatusFor('RUNNING', false)).toBe('RUNNING');
    expect(rankStatusFor('FINISHED', 1)).toBe('FAILED');
    expect(rankStatusFor('KILLED', 1)).toBe('KILLED');
  });
});

describe('aggregates', () => {
  const p = (key: string, step: number, value: number, timestamp = 10) => ({ key, step, value, timestamp });
  it('waits for every rank, then mean/min/max with the latest timestamp', () => {
    const a = new Aggregator();
    a.add(0, p('loss', 0, 1, 5));
    a.add(1, p('loss', 0, 3, 9));
    expect(a.take(3)).toEqual([]);
    a.add(2, p('loss', 0, 100, 7));
    a.add(2, p('loss', 0, 2, 8)); // a second value for the same step: the last line counts
    expect(a.take(3)).toEqual([p('loss/mean', 0, 2, 9), p('loss/min', 0, 1, 9), p('loss/max', 0, 3, 9)]);
    a.add(0, p('loss', 0, 5)); // already aggregated: left for the end's settle
    a.add(0, p('loss', 1, 4));
    expect(a.take(3)).toEqual([]);
    expect([a.pendingCount, a.repeatedCount]).toEqual([1, 1]);
    const series = (pts: [number, number, number][]) => ({
      steps: pts.map((q) => q[0]),
      values: pts.map((q) => q[1]),
      times: pts.map((q) => q[2]),
    });
    const ranks = new Map([[0, new Map([['loss', series([[1, 4, 10]])]])]]);
    expect(settle(ranks, new Map())).toEqual(aggregate('loss', 1, [p('loss', 1, 4)]));
  });
  it('is the same whatever the order the ranks arrived in (re-runs give identical points)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.nat(2), fc.nat(5), fc.integer({ min: -100, max: 100 })), { maxLength: 60 }),
        fc.array(fc.nat(2), { maxLength: 60 }),
        (items, order) => {
          // the same lines of each rank, in that rank's order, interleaved two ways
          const run = (pick: (i: number) => number) => {
            const queues = [0, 1, 2].map((r) => items.filter((it) => it[0] === r));
            const a = new Aggregator();
            for (let i = 0; queues.some((q) => q.length); i++) {
              const r = queues[pick(i) % 3].length ? pick(i) % 3 : queues.findIndex((q) => q.length);
              const [, s, v] = queues[r].shift() as [number, number, number];
              a.add(r, p('k', s, v, s * 10 + r));
            }
            return [a.take(3), a.pendingCount, a.repeatedCount];
          };
          expect(run((i) => order[i] ?? 0)).toEqual(run((i) => i));
        },
      ),
    );
  });
});

describe('spool records and log lines', () => {
  it('round-trip, NaN and Infinity included', () => {
    const pts = [
      { key: 'a/b "c"', value: NaN, step: 1, timestamp: 2 },
      { key: 'x', value: -Infinity, step: 0, timestamp: 0 },
      { key: 'y', value: 0.1, step: 2 ** 40, timestamp: 1764669000123 },
    ];
    const text = encodeRecords(pts);
    const back = decodeRecords(Buffer.from(text + '["torn'), 100);
    expect(back.map((r) => r.point)).toEqual(pts);
    expect(back[2].end).toBe(100 + Buffer.byteLength(text));
  });
  it('keeps partial lines back and counts bytes exactly, CRLF and invalid UTF-8 included', () => {
    const buf = Buffer.concat([
      Buffer.from('a\r\n'),
      Buffer.from([0xff, 0xfe, 0x0a]),
      Buffer.from('partial'),
    ]);
    const batch = new LineBatch(buf, 10);
    const [lines, consumed] = [batch.toLogLines(), batch.consumed];
    expect(lines.map((l) => [l.text, l.end])).toEqual([
      ['a', 13],
      ['\ufffd\ufffd', 16],
    ]);
    expect(consumed).toBe(6);
  });
  it('reads .out.ts times exactly', () => {
    expect(tsToMs('1764669000.123456')).toBe(1764669000123);
    expect(tsToMs('1764669000.5')).toBe(1764669000500);
    expect(tsToMs('1764669000')).toBe(1764669000000);
    expect(tsToMs('garbage')).toBeUndefined();
  });
});

describe('run layout', () => {
  it('tags the parent and the children', () => {
    const job = jobRecord({ spec: { ...jobRecord().spec, container: 'img.sif' } });
    const tags = Object.fromEntries(
      parentTags(job, '/runs/x', 'K', rankFacts(0), { user: 'me', gitCommit: 'abc' }).map((t) => [
        t.key,
        t.value,
      ]),
    );
    expect(tags).toMatchObject({
      'track_launch.job_key': 'K',
      'mlflow.source.type': 'JOB',
      'mlflow.user': 'me',
      'mlflow.source.git.commit': 'abc',
      'slurm.job_id': '4242',
      'slurm.nodelist': 'n[1-3]',
      master_addr: '10.0.0.1',
      master_port: '29500',
      container: 'img.sif',
      world_size: '3',
      node_count: '3',
    });
    const child = Object.fromEntries(
      childTags(2, 'K', 'P', rankFacts(2), { user: 'me' }).map((t) => [t.key, t.value]),
    );
    expect(child).toMatchObject({
      'mlflow.parentRunId': 'P',
      'mlflow.runName': 'rank-2',
      rank: '2',
      host: 'n3',
      ip: '10.0.0.3',
      node_rank: '2',
      local_rank: '0',
    });
    const failed = jobRecord({
      restarts: 1,
      state: { name: 'FAILED', failed_rank: 2, failed_host: 'n3' },
    });
    const ft = parentTags(failed, '/r', 'K', rankFacts(0), { user: 'me' });
    expect(ft.filter((t) => ['restarts', 'failed_rank', 'failed_host'].includes(t.key))).toEqual([
      { key: 'restarts', value: '1' },
      { key: 'failed_rank', value: '2' },
      { key: 'failed_host', value: 'n3' },
    ]);
    // a first start that did not fail: restart 0 from the rank facts, no failed rank
    expect(tags).toMatchObject({ restarts: '0' });
    expect(tags.failed_rank).toBeUndefined();
    expect(jobFilter("a'b")).toBe("tags.`track_launch.job_key` = 'a\\'b'");
  });
  it('chooses the experiment: flag, job.json, env, job name', () => {
    const job = jobRecord();
    expect(experimentName('f', job, { MLFLOW_EXPERIMENT_NAME: 'e' }, '/r')).toBe('f');
    expect(
      experimentName(
        undefined,
        { ...job, spec: { ...job.spec, experiment: 'j' } },
        { MLFLOW_EXPERIMENT_NAME: 'e' },
        '/r',
      ),
    ).toBe('j');
    expect(experimentName(undefined, job, { MLFLOW_EXPERIMENT_NAME: 'e' }, '/r')).toBe('e');
    expect(experimentName(undefined, job, {}, '/r')).toBe('poly');
    expect(experimentName(undefined, undefined, {}, '/runs/abc')).toBe('abc');
  });
  it('renders a progress line', () => {
    expect(
      formatProgress({
        state: 'RUNNING',
        final: false,
        ranksSeen: 3,
        worldSize: 3,
        pointsSpooled: 60,
        pointsSent: 30,
        pending: 30,
        lagMs: 1234,
        skipped: 2,
        online: true,
      }),
    ).toBe('job RUNNING | ranks 3/3 | 30/60 points sent | lag 1.2s | 2 lines without a metric');
    expect(
      formatProgress({
        final: false,
        ranksSeen: 1,
        pointsSpooled: 5,
        pending: 0,
        lagMs: 0,
        skipped: 0,
        online: false,
      }),
    ).toBe('job UNKNOWN | ranks 1 | 5 points spooled (offline)');
  });
  it('says what was not delivered by kind, not as one number after the points', () => {
    expect(
      formatProgress({
        final: true,
        ranksSeen: 3,
        pointsSpooled: 60,
        pointsSent: 60,
        pending: 0,
        lagMs: 0,
        skipped: 0,
        online: true,
        notDelivered: { points: 0, params: 1, tags: 0, files: 5 },
      }),
    ).toBe('job UNKNOWN | ranks 3 | 60/60 points sent | lag 0.0s | 1 param, 5 files not delivered');
  });
  it("leaves the job state out of a line that says it already (submit's)", () => {
    const p = { state: 'PENDING' as const, final: false, ranksSeen: 1, pointsSpooled: 5, pending: 0 };
    expect(formatProgress({ ...p, lagMs: 0, skipped: 0, online: false }, { state: false })).toBe(
      'ranks 1 | 5 points spooled (offline)',
    );
    expect(
      formatProgress({ ...p, lagMs: 0, skipped: 0, online: false }, { state: false, ranks: false }),
    ).toBe('5 points spooled (offline)');
  });
});

describe('isTransient: what live ingestion waits out, and what stops it', () => {
  const e = (message: string, details: Record<string, unknown>) =>
    new TrackLaunchError('TRACKING', message, { details });
  test.each([
    ['network error', e('cannot reach MLflow', { network: true }), true],
    ['503 busy', e('503 Service Unavailable', { status: 503 }), true],
    ['429', e('429 Too Many Requests', { status: 429 }), true],
    [
      '400 database is locked',
      e('400: (sqlite3.OperationalError) database is locked', { status: 400 }),
      true,
    ],
    ['501', e('501 Not Implemented', { status: 501 }), false],
    ['503 artifact serving off', e('503: Artifact serving is disabled', { status: 503 }), false],
    ['403', e('403 Forbidden', { status: 403 }), false],
    ['not a tracking error', new TrackLaunchError('NOT_FOUND', 'x'), false],
  ])('%s', (_name, err, transient) => expect(isTransient(err)).toBe(transient));
});
