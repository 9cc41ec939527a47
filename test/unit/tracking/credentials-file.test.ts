// ~/.mlflow/credentials, read as MLflow's client reads it (configparser's [mlflow] section), below
// the environment, and refused unless private.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { authHeader, trackingConfig } from '../../../tracking-plugin/mlflow/config';
import { parseCredentials } from '../../../tracking-plugin/mlflow/credentials-file';

function home(text: string, mode = 0o600): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-home-'));
  fs.mkdirSync(path.join(dir, '.mlflow'));
  fs.writeFileSync(path.join(dir, '.mlflow', 'credentials'), text, { mode });
  fs.chmodSync(path.join(dir, '.mlflow', 'credentials'), mode);
  return dir;
}

const basic = (u: string, p: string) => `Basic ${Buffer.from(`${u}:${p}`).toString('base64')}`;

test('the [mlflow] section only; = or :, spaces and comments as configparser takes them', () => {
  expect(
    parseCredentials(
      '[other]\nmlflow_tracking_username = no\n\n[mlflow]\n# a comment\nmlflow_tracking_username = alice\nMLFLOW_TRACKING_PASSWORD: pw = with = signs\n',
    ),
  ).toEqual({ username: 'alice', password: 'pw = with = signs' });
  expect(parseCredentials('mlflow_tracking_username = before-any-section\n')).toEqual({});
});

test('used when the environment has no credentials; each from the environment wins', () => {
  const HOME = home('[mlflow]\nmlflow_tracking_username = alice\nmlflow_tracking_password = file-pw\n');
  expect(authHeader(trackingConfig('http://h', { HOME }))).toBe(basic('alice', 'file-pw'));
  expect(authHeader(trackingConfig('http://h', { HOME, MLFLOW_TRACKING_USERNAME: 'bob' }))).toBe(
    basic('bob', 'file-pw'),
  );
  expect(
    authHeader(
      trackingConfig('http://h', { HOME, MLFLOW_TRACKING_USERNAME: 'b', MLFLOW_TRACKING_PASSWORD: 'e' }),
    ),
  ).toBe(basic('b', 'e'));
  expect(authHeader(trackingConfig('http://h', { HOME: path.join(HOME, 'none') }))).toBeUndefined();
});

test('a file others may read is refused, saying how to fix it', () => {
  const HOME = home('[mlflow]\nmlflow_tracking_password = pw\n', 0o644);
  expect(() => trackingConfig('http://h', { HOME })).toThrow(/credentials is not a private file of yours/);
  const linked = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-home-'));
  fs.mkdirSync(path.join(linked, '.mlflow'));
  fs.symlinkSync(path.join(HOME, '.mlflow', 'credentials'), path.join(linked, '.mlflow', 'credentials'));
  expect(() => trackingConfig('http://h', { HOME: linked })).toThrow(/cannot read .*credentials/);
});
