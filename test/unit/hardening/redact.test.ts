// Credentials never shown: in URLs (with or without a password, with or without a scheme), in
// secret-named arguments and settings, and in a command line recorded for MLflow.
import { redact, redactArgv, registerSecret } from '../../../core/errors';

describe('redact', () => {
  test.each([
    ['https://user:pass@mlflow.example/x', 'https://user:***@mlflow.example/x'],
    ['https://ghp_TOKEN123@mlflow.example/api', 'https://***@mlflow.example/api'],
    ['export HTTPS_PROXY=alice:s3cret@proxy:8080', 'export HTTPS_PROXY=alice:***@proxy:8080'],
    ['proxy alice:s3cret@proxy.lan ok', 'proxy alice:***@proxy.lan ok'],
    ['python t.py --token=abc --api-key xyz', 'python t.py --token=*** --api-key ***'],
    ['MLFLOW_TRACKING_PASSWORD=hunter2 set', 'MLFLOW_TRACKING_PASSWORD=*** set'],
    ['Authorization: Bearer abc.def', 'Authorization: Bearer ***'],
  ])('%s', (text, shown) => expect(redact(text)).toBe(shown));

  test.each([
    'the password is wrong: check MLFLOW_TRACKING_TOKEN or the token file',
    'git@github.com:org/repo.git',
    '--env: "X" is not valid; use KEY=VALUE',
    'epoch 3, loss = 0.5, rank 1/3 (tlnode2).',
  ])('leaves plain text alone: %s', (text) => expect(redact(text)).toBe(text));

  test('registered secrets anywhere', () => {
    registerSecret('canary-9f3a');
    expect(redact('value canary-9f3a!')).toBe('value ***!');
  });

  test('a command line: the word after a secret-named flag, and credentials in URLs', () => {
    expect(
      redactArgv(['python', 'train.py', '--token', 'abc', '--uri=https://u:p@h/x', '--lr', '0.1']),
    ).toEqual(['python', 'train.py', '--token', '***', '--uri=https://u:***@h/x', '--lr', '0.1']);
  });
});
