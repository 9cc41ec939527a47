import fc from 'fast-check';
import { localArtifactDir, proxyPath, storeScheme } from '../../../tracking-plugin/mlflow/artifacts';
import { LIMITS, splitBatch } from '../../../tracking-plugin/mlflow/batch';
import { authHeader, trackingConfig, trackingUri } from '../../../tracking-plugin/mlflow/config';
import { describeFailure, describeTlsFailure } from '../../../tracking-plugin/mlflow/describe';
import { backoffMs, isRetryableStatus, retryAfterMs } from '../../../tracking-plugin/mlflow/retry';
import { fromWire, toWire } from '../../../tracking-plugin/mlflow/values';
import { redact, TrackLaunchError } from '../../../core/errors';

const metric = fc.record({
  key: fc.string({ minLength: 1, maxLength: 250 }),
  value: fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity)),
  step: fc.nat(),
  timestamp: fc.nat(),
});
const kv = (max: number) =>
  fc.record({ key: fc.string({ minLength: 1, maxLength: 250 }), value: fc.string({ maxLength: max }) });

describe('splitBatch', () => {
  it('never exceeds MLflow limits and loses nothing, in order', () => {
    fc.assert(
      fc.property(
        fc.array(metric, { maxLength: 2600 }),
        fc.array(kv(6000), { maxLength: 230 }),
        fc.array(kv(300), { maxLength: 230 }),
        (metrics, params, tags) => {
          const bodies = splitBatch('r1', { metrics, params, tags });
          for (const b of bodies) {
            expect(b.metrics.length).toBeLessThanOrEqual(1000);
            expect(b.params.length).toBeLessThanOrEqual(100);
            expect(b.tags.length).toBeLessThanOrEqual(100);
            expect(b.metrics.length + b.params.length + b.tags.length).toBeLessThanOrEqual(1000);
            expect(b.metrics.length + b.params.length + b.tags.length).toBeGreaterThan(0);
            expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThanOrEqual(1_000_000);
          }
          const sent = bodies.flatMap((b) => b.metrics);
          expect(sent.map((m) => [m.key, fromWire(m.value), m.step, m.timestamp])).toEqual(
            metrics.map((m) => [m.key, m.value, m.step, m.timestamp]),
          );
          expect(bodies.flatMap((b) => b.params)).toEqual(params);
          expect(bodies.flatMap((b) => b.tags)).toEqual(tags);
        },
      ),
      { numRuns: 40 },
    );
  });
  it('splits by bytes when items are large', () => {
    const params = Array.from({ length: 100 }, (_, i) => ({ key: `p${i}`, value: 'x'.repeat(6000) }));
    const tags = Array.from({ length: 100 }, (_, i) => ({ key: `t${i}`, value: 'y'.repeat(8000) }));
    const bodies = splitBatch('r', { params, tags, metrics: [] });
    expect(bodies.length).toBeGreaterThan(1);
    for (const b of bodies) expect(Buffer.byteLength(JSON.stringify(b))).toBeLessThan(LIMITS.bytes + 1);
    expect(splitBatch('r', {})).toEqual([]);
  });
  it('cuts metrics where their exact JSON size reaches the byte limit', () => {
    // keys of any Unicode (4-byte characters, escapes), values of every kind, a small byte limit:
    // each body is as full as the limit allows (its next metric would reach it), and no fuller
    const wideKey = fc.string({ unit: 'binary', minLength: 1, maxLength: 40 });
    const m = fc.record({
      key: fc.oneof(wideKey, fc.constantFrom('loss', 'lr', 'a"b\\c')),
      value: fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 1e21, 5e-324)),
      step: fc.oneof(fc.nat(), fc.constant(2 ** 53 - 1)),
      timestamp: fc.oneof(fc.nat(), fc.constant(1_796_000_000_123)),
    });
    fc.assert(
      fc.property(
        fc.array(m, { minLength: 1, maxLength: 300 }),
        fc.integer({ min: 300, max: 4000 }),
        (metrics, max) => {
          const limits = { ...LIMITS, bytes: max };
          const bodies = splitBatch('run-1', { metrics }, limits);
          const size = (b: object) => Buffer.byteLength(JSON.stringify(b), 'utf8');
          expect(bodies.flatMap((b) => b.metrics.map((x) => x.key))).toEqual(metrics.map((x) => x.key));
          for (let i = 0; i < bodies.length; i++) {
            // the running size counts a comma before every item, one more than the array holds
            expect(size(bodies[i])).toBeLessThanOrEqual(max - 1);
            const next = bodies[i + 1]?.metrics[0];
            if (next)
              expect(size({ ...bodies[i], metrics: [...bodies[i].metrics, next] })).toBeGreaterThanOrEqual(
                max,
              );
          }
        },
      ),
      { numRuns: 200 },
    );
  });
  it('keeps metrics with the longest numbers whole only while their exact size fits', () => {
    // numbers at their longest JSON (25 characters for a double, 17 for an integer step): one body
    // exactly at the limit, two bodies one byte under it, whichever way the size was bounded
    const metrics = Array.from({ length: 1000 }, (_, i) => ({
      key: i % 2 ? 'loss' : 'a"b\\c',
      value: -1.2345678901234567e-6,
      step: -(2 ** 53 - 1),
      timestamp: -(2 ** 53 - 1),
    }));
    const exact = Buffer.byteLength(JSON.stringify(splitBatch('r', { metrics })[0]));
    // the running size counts a comma before every item, one more than the array holds
    expect(splitBatch('r', { metrics }, { ...LIMITS, bytes: exact + 1 })).toHaveLength(1);
    expect(splitBatch('r', { metrics }, { ...LIMITS, bytes: exact })).toHaveLength(2);
    expect(splitBatch('r', { metrics: [...metrics, metrics[0]] })).toHaveLength(2);
  });
  it('sends NaN and Infinity as MLflow strings', () => {
    expect([NaN, Infinity, -Infinity, 1.5].map(toWire)).toEqual(['NaN', 'Infinity', '-Infinity', 1.5]);
    expect(
      JSON.stringify(splitBatch('r', { metrics: [{ key: 'a', value: NaN, step: 0, timestamp: 1 }] })[0]),
    ).toContain('"value":"NaN"');
  });
});

describe('retries', () => {
  it('retries 408, 429, 5xx only', () => {
    const busy = '{"error_code": "BAD_REQUEST", "message": "QueuePool limit of size 5 overflow 10 reached"}';
    expect([
      isRetryableStatus(400, busy),
      isRetryableStatus(400, '{"error_code": "INVALID_PARAMETER_VALUE"}'),
    ]).toEqual([true, false]);
    expect([400, 401, 403, 404, 408, 409, 429, 500, 502, 503].filter((s) => isRetryableStatus(s))).toEqual([
      408, 429, 500, 502, 503,
    ]);
  });
  it('honours Retry-After (seconds or date) and jitters within bounds', () => {
    expect(retryAfterMs('3', 0)).toBe(3000);
    expect(retryAfterMs(new Date(10_000).toUTCString(), 4000)).toBe(6000);
    expect(retryAfterMs('soon', 0)).toBeUndefined();
    expect(backoffMs(0, 0, 2500)).toBe(2500);
    fc.assert(
      fc.property(fc.nat(30), fc.double({ min: 0, max: 1, noNaN: true }), (a, r) => {
        const ms = backoffMs(a, r);
        const ceiling = Math.min(20_000, 500 * 2 ** a);
        expect(ms).toBeGreaterThanOrEqual(ceiling / 2 - 1);
        expect(ms).toBeLessThanOrEqual(ceiling + 1);
      }),
    );
  });
});

describe('errors in words', () => {
  it('explains MLflow 3 Invalid Host header in plain text', () => {
    const d = describeFailure({
      method: 'POST',
      path: '/api/2.0/mlflow/runs/create',
      status: 403,
      body: 'Invalid Host header - possible DNS rebinding attack detected',
    });
    expect(d.message).toMatch(/Invalid Host header/);
    expect(d.hint).toMatch(/--allowed-hosts/);
  });
  it('uses MLflow error codes, HTML bodies and missing endpoints', () => {
    expect(
      describeFailure({
        method: 'GET',
        path: '/x',
        status: 400,
        body: '{"error_code":"INVALID_PARAMETER_VALUE","message":"bad"}',
      }),
    ).toEqual({
      message: 'MLflow answered 400 INVALID_PARAMETER_VALUE to GET /x: bad',
      errorCode: 'INVALID_PARAMETER_VALUE',
    });
    expect(
      describeFailure({ method: 'PUT', path: '/a', status: 404, body: '<html><h1>Not Found</h1></html>' })
        .message,
    ).toBe('the server has no endpoint PUT /a (404): Not Found');
    expect(describeFailure({ method: 'GET', path: '/a', status: 401, body: '' }).hint).toMatch(
      /MLFLOW_TRACKING_USERNAME/,
    );
  });
});

describe('config from MLflow env vars', () => {
  it('reads URI, basic and bearer credentials and TLS, and never prints secrets', () => {
    expect(trackingUri(undefined, {})).toBeUndefined();
    expect(trackingUri(undefined, { MLFLOW_TRACKING_URI: 'http://h:5000/' })).toBe('http://h:5000/');
    const basic = trackingConfig('http://h:5000/', {
      MLFLOW_TRACKING_USERNAME: 'u',
      MLFLOW_TRACKING_PASSWORD: 's3cr3t-pw',
      MLFLOW_TRACKING_INSECURE_TLS: 'true',
    });
    expect(basic).toMatchObject({ uri: 'http://h:5000', insecureTls: true });
    expect(authHeader(basic)).toBe(`Basic ${Buffer.from('u:s3cr3t-pw').toString('base64')}`);
    expect(redact('password s3cr3t-pw')).toBe('password ***');
    const bearer = trackingConfig('https://h', {
      MLFLOW_TRACKING_TOKEN: 'tok-123456',
      MLFLOW_TRACKING_USERNAME: 'u',
      MLFLOW_TRACKING_PASSWORD: 'p',
    });
    expect(authHeader(bearer)).toBe('Bearer tok-123456');
    expect(new TrackLaunchError('TRACKING', 'failed with tok-123456 and http://u:pw@h/').message).toBe(
      'failed with *** and http://u:***@h/',
    );
    expect(() => trackingConfig('file:///tmp/mlruns', {})).toThrow(/not an http\(s\) URL/);
  });
});

describe('artifact proxy paths', () => {
  it('maps mlflow-artifacts URIs and refuses other stores', () => {
    expect(proxyPath('mlflow-artifacts:/1/abc/artifacts', 'logs/rank 0.out')).toBe(
      '1/abc/artifacts/logs/rank%200.out',
    );
    expect(proxyPath('mlflow-artifacts://host:5000/1/abc/artifacts', 'a')).toBe('1/abc/artifacts/a');
    expect(proxyPath('http://h/api/2.0/mlflow-artifacts/artifacts/1/abc/artifacts', 'a')).toBe(
      '1/abc/artifacts/a',
    );
    expect(proxyPath('s3://bucket/1/abc', 'a')).toBeUndefined();
    expect(proxyPath('mlflow-artifacts:/1/abc/artifacts', '../x')).toBeUndefined();
  });

  test('a run whose artifacts are in a local directory: that directory; any other store: none', () => {
    expect(localArtifactDir('/shared/mlruns/1/abc/artifacts')).toBe('/shared/mlruns/1/abc/artifacts');
    expect(localArtifactDir('file:///shared/ml%20runs/1/abc/artifacts')).toBe(
      '/shared/ml runs/1/abc/artifacts',
    );
    expect(localArtifactDir('file:/shared/mlruns/1/abc/artifacts')).toBe('/shared/mlruns/1/abc/artifacts');
    expect(localArtifactDir('file://localhost/shared/x')).toBe('/shared/x');
    expect(localArtifactDir('/shared/mlruns/../etc/x')).toBe('/shared/etc/x');
    for (const other of [
      'file://otherhost/shared/x',
      'file:relative/x',
      'mlruns/1/abc/artifacts',
      's3://bucket/1/abc/artifacts',
      'mlflow-artifacts:/1/abc/artifacts',
      '',
    ])
      expect([other, localArtifactDir(other)]).toEqual([other, undefined]);
    expect(storeScheme('s3://bucket/1/abc')).toBe('s3:');
    expect(storeScheme('wasbs://c@a.blob.core.windows.net/x')).toBe('wasbs:');
  });
});

describe('no retries where waiting cannot help', () => {
  it('501 Not Implemented is not retried; 500, 502, 503 and 504 are', () => {
    expect([500, 501, 502, 503, 504].map((s) => [s, isRetryableStatus(s)])).toEqual([
      [500, true],
      [501, false],
      [502, true],
      [503, true],
      [504, true],
    ]);
  });
  it('503 from an MLflow server without --serve-artifacts is not retried, and is said as such', () => {
    const v3 =
      '{"detail":"Artifact serving is disabled. Run `mlflow server` with `--serve-artifacts` to enable."}';
    const v2 =
      'Endpoint: /api/2.0/mlflow-artifacts/artifacts/<path:artifact_path> disabled due to the mlflow server running with `--no-serve-artifacts`.';
    expect(
      [v3, v2, '{"detail":"Artifact serving is not configured."}', 'Service Unavailable'].map((b) =>
        isRetryableStatus(503, b),
      ),
    ).toEqual([false, false, false, true]);
    expect(
      describeFailure({
        method: 'PUT',
        path: '/api/2.0/mlflow-artifacts/artifacts/1/r/a',
        status: 503,
        body: v3,
      }),
    ).toEqual({
      message:
        'the MLflow server does not serve artifacts: PUT /api/2.0/mlflow-artifacts/artifacts/1/r/a answered 503: Artifact serving is disabled. Run `mlflow server` with `--serve-artifacts` to enable.',
      hint: 'start the server with --serve-artifacts; metrics, params and tags are tracked regardless',
      unsupported: true,
    });
    // another 503 stays an outage, FastAPI's {detail} read as the message
    expect(describeFailure({ method: 'GET', path: '/x', status: 503, body: '{"detail":"busy"}' })).toEqual({
      message: 'MLflow answered 503 to GET /x: busy',
    });
  });
});

describe('TLS failures in words', () => {
  const base = {
    method: 'GET',
    path: '/health',
    uri: 'https://h:5443',
    message: 'unable to verify the first certificate',
  };
  it('an untrusted certificate names both settings that fix it', () => {
    for (const code of [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'SELF_SIGNED_CERT_IN_CHAIN',
      'DEPTH_ZERO_SELF_SIGNED_CERT',
    ]) {
      expect(describeTlsFailure({ ...base, code })?.message).toBe(
        `the TLS certificate of https://h:5443 is not trusted (GET /health: ${code} unable to verify the first certificate); trust its CA with MLFLOW_TRACKING_SERVER_CERT_PATH=<CA bundle, PEM>, or skip verification with MLFLOW_TRACKING_INSECURE_TLS=true`,
      );
    }
    expect(
      describeTlsFailure({ ...base, code: 'SELF_SIGNED_CERT_IN_CHAIN', certPath: '/etc/ca.pem' })?.message,
    ).toMatch(/MLFLOW_TRACKING_SERVER_CERT_PATH=\/etc\/ca\.pem does not hold the CA that signed it/);
  });
  it('host mismatch, expiry and plain HTTP get their own words; other network errors none', () => {
    expect(describeTlsFailure({ ...base, code: 'ERR_TLS_CERT_ALTNAME_INVALID' })?.message).toMatch(
      /^the TLS certificate of https:\/\/h:5443 is not issued for its host/,
    );
    expect(describeTlsFailure({ ...base, code: 'CERT_HAS_EXPIRED' })?.message).toMatch(/is not valid now/);
    expect(
      describeTlsFailure({
        ...base,
        code: 'EPROTO',
        message: 'routines:ssl3_get_record:wrong version number',
      })?.hint,
    ).toBe('use http:// in MLFLOW_TRACKING_URI for a server without TLS');
    expect(describeTlsFailure({ ...base, code: 'ECONNREFUSED' })).toBeUndefined();
    expect(describeTlsFailure({ ...base })).toBeUndefined();
  });
});
