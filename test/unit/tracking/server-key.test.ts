// The send state is keyed by the server's identity: every alias of one server (case, default port,
// credentials, trailing slash) shares one state file, and a file under the old raw-URI key is taken over.
import { createHash } from 'crypto';
import { promises as fs } from 'fs';
import * as path from 'path';
import { serverKey, trackingPaths } from '../../../core';
import { loadServerState } from '../../../tracking-plugin/ingest/state';
import { makeRunDir } from './fixture';

const oldName = (uri: string) =>
  `mlflow-${createHash('sha256').update(uri.replace(/\/+$/, '')).digest('hex').slice(0, 12)}.json`;

describe('serverKey', () => {
  it('is one key for every alias of one server', () => {
    const same = [
      'http://mlflow.example:5000',
      'http://MLflow.Example:5000/',
      'HTTP://mlflow.example:5000//',
      'http://alice:s3cret@mlflow.example:5000',
      'http://TOKEN@mlflow.example:5000/',
    ];
    expect(new Set(same.map(serverKey))).toEqual(new Set(['http://mlflow.example:5000']));
    expect(serverKey('https://h')).toBe(serverKey('https://h:443/'));
    expect(serverKey('http://h')).toBe('http://h:80');
  });
  it('keeps what makes another server: scheme, port, path prefix', () => {
    const other = [
      'http://h:5000',
      'https://h:5000',
      'http://h:5001',
      'http://h:5000/mlflow',
      'http://h2:5000',
    ];
    expect(new Set(other.map(serverKey)).size).toBe(other.length);
    expect(trackingPaths('/r').sendState('http://u:p@H:80/')).toBe(trackingPaths('/r').sendState('http://h'));
  });
});

describe('loadServerState', () => {
  const state = (uri: string, sent: number) => ({
    version: 1,
    uri,
    experiment_id: '7',
    parent_run_id: 'p',
    rank_run_ids: { '0': 'r0' },
    sent: { 'rank-0': sent },
    sent_points: { 'rank-0': sent },
    tagged: {},
    artifacts: {},
  });

  it('takes over state written under the old key by any alias (the furthest one), once', async () => {
    const dir = await makeRunDir();
    const tdir = path.join(dir, 'tracking');
    await fs.mkdir(tdir, { recursive: true });
    await fs.writeFile(
      path.join(tdir, oldName('http://h:5000/')),
      JSON.stringify(state('http://h:5000/', 10)),
    );
    await fs.writeFile(
      path.join(tdir, oldName('http://bob:x@H:5000')),
      JSON.stringify(state('http://bob:***@H:5000', 30)),
    );
    await fs.writeFile(
      path.join(tdir, oldName('http://other:5000')),
      JSON.stringify(state('http://other:5000', 5)),
    );
    const uri = 'http://alice:pw@h:5000';
    const file = trackingPaths(dir).sendState(uri);
    const s = loadServerState(dir, file, uri);
    expect([s.sent, s.parent_run_id, s.uri]).toEqual([{ 'rank-0': 30 }, 'p', 'http://alice:***@h:5000']);
    // written under the new key, the old files of that server removed, another server's kept
    expect((await fs.readdir(tdir)).sort()).toEqual(
      [path.basename(file), oldName('http://other:5000')].sort(),
    );
    expect(JSON.parse(await fs.readFile(file, 'utf8')).sent).toEqual({ 'rank-0': 30 });
    expect(
      loadServerState(dir, trackingPaths(dir).sendState('http://h:5000/'), 'http://h:5000/').sent,
    ).toEqual({
      'rank-0': 30,
    });
  });

  it('starts fresh for a server it never sent to', async () => {
    const dir = await makeRunDir();
    const s = loadServerState(dir, trackingPaths(dir).sendState('http://h'), 'http://h');
    expect([s.sent, s.parent_run_id]).toEqual([{}, undefined]);
  });
});
