// Credentials never shown: in URLs (with or without a password, with or without a scheme), in
// secret-named arguments and settings, and in a command line recorded for MLflow.
import { invalidOption, redact, redactArgv, registerSecret } from '../../../core/errors';

describe('redact', () => {
  test.each([
    ['https://user:pass@mlflow.example/x', 'https://user:***@mlflow.example/x'],
    ['https://ghp_TOKEN123@mlflow.example/api', 'https://***@mlflow.example/api'],
    ['export HTTPS_PROXY=alice:s3cret@proxy:8080', 'export HTTPS_PROXY=alice:***@proxy:8080'],
    ['https_proxy="alice:s3cret@proxy.lan" ok', 'https_proxy="alice:***@proxy.lan" ok'],
    ['HTTP_PROXY=http://alice:s3cret@proxy:3128', 'HTTP_PROXY=http://alice:***@proxy:3128'],
    ['docker://u:pw@registry.example/img', 'docker://u:***@registry.example/img'],
    ['python t.py --token=abc --api-key xyz', 'python t.py --token=*** --api-key ***'],
    ['MLFLOW_TRACKING_PASSWORD=hunter2 set', 'MLFLOW_TRACKING_PASSWORD=*** set'],
    ['Authorization: Bearer abc.def', 'Authorization: Bearer ***'],
  ])('%s', (text, shown) => expect(redact(text)).toBe(shown));

  test.each([
    'the password is wrong: check MLFLOW_TRACKING_TOKEN or the token file',
    'git@github.com:org/repo.git',
    '--env: "X" is not valid; use KEY=VALUE',
    'epoch 3, loss = 0.5, rank 1/3 (tlnode2).',
    // credentials only: text shaped like userinfo is not a password
    'python3 train.py --image pytorch:24.01@sha256:abcdef',
    'docker://nvcr.io/nvidia/pytorch:24.01@sha256:0123456789abcdef',
    'oci://pytorch:24.01@sha512:abcdef',
    '--signal: "B:USR1@99999" is not valid; use [B:]SIG[@SECONDS] (e.g. USR1@90, B:USR1@60, 10@60)',
    'rsync -a alice@login.example:/scratch/run ./run',
    'scp data.tar alice@host:path/in/home',
    'mail alice.smith@example.org or bob+ml@lab.example.com',
    'see a:b@c and name:tag@digest',
  ])('leaves plain text alone: %s', (text) => expect(redact(text)).toBe(text));

  test('registered secrets anywhere', () => {
    registerSecret('canary-9f3a');
    expect(redact('value canary-9f3a!')).toBe('value ***!');
  });

  test("an option's error message shows the value given", () => {
    const e = invalidOption('signal', 'B:USR1@99999', 'use [B:]SIG[@SECONDS] (e.g. B:USR1@60)');
    expect(e.message).toBe('--signal: "B:USR1@99999" is not valid; use [B:]SIG[@SECONDS] (e.g. B:USR1@60)');
  });

  test('a command line recorded for MLflow keeps its image digest and signal', () => {
    const argv = ['python3', 'train.py', '--image', 'pytorch:24.01@sha256:abcdef', '--sig', 'B:USR1@60'];
    expect(redactArgv(argv)).toEqual(argv);
  });

  test('a command line: the word after a secret-named flag, and credentials in URLs', () => {
    expect(
      redactArgv(['python', 'train.py', '--token', 'abc', '--uri=https://u:p@h/x', '--lr', '0.1']),
    ).toEqual(['python', 'train.py', '--token', '***', '--uri=https://u:***@h/x', '--lr', '0.1']);
  });
});
