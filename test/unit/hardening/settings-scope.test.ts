// ./.env sets only TRACK_LAUNCH_* and MLFLOW_*; the config file is read by submit only and, when
// broken, named in submit's error.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import {
  commandOf,
  CONFIG_COMMANDS,
  DOTENV_COMMANDS,
  loadDotenv,
  readConfigFile,
} from '../../../cli/settings';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-settings-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('.env: only TRACK_LAUNCH_* and MLFLOW_*, never overriding the shell', () => {
  fs.writeFileSync(
    path.join(dir, '.env'),
    'NODE_OPTIONS=--require /tmp/evil.js\nBASH_ENV=/tmp/evil.sh\nPATH=/evil\nTRACK_LAUNCH_PARTITION=gpu\nMLFLOW_TRACKING_URI=http://m\nMLFLOW_EXPERIMENT_NAME=file\n',
  );
  const env: NodeJS.ProcessEnv = { PATH: '/usr/bin', MLFLOW_EXPERIMENT_NAME: 'shell' };
  loadDotenv(dir, env);
  expect(env).toEqual({
    PATH: '/usr/bin',
    TRACK_LAUNCH_PARTITION: 'gpu',
    MLFLOW_TRACKING_URI: 'http://m',
    MLFLOW_EXPERIMENT_NAME: 'shell',
  });
});

test('the command of a command line, and which commands read what', () => {
  expect(commandOf(['--config', 'x.json', 'submit', '-N', '2'])).toBe('submit');
  expect(commandOf(['--json', 'status', '12'])).toBe('status');
  expect(commandOf(['--help'])).toBeUndefined();
  expect([...CONFIG_COMMANDS]).toEqual(['submit']);
  for (const c of ['logs', 'cancel', 'cluster', 'data']) expect(DOTENV_COMMANDS.has(c)).toBe(false);
  for (const c of ['submit', 'ingest', 'sync', 'status']) expect(DOTENV_COMMANDS.has(c)).toBe(true);
});

test('a broken config file is named, with what to do', () => {
  const f = path.join(dir, 'track-launch.config.json');
  fs.writeFileSync(f, '{"partition": ');
  expect(() => readConfigFile(undefined, dir)).toThrow(
    expect.objectContaining({
      message: expect.stringContaining(`the config file ${f} is not a JSON object`),
      hint: expect.stringMatching(/only submit reads it/),
    }),
  );
});
