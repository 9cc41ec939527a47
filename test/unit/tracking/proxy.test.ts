// Which proxy a tracking server is reached through (tracking-plugin/mlflow/proxy.ts), by the rules of
// Python's requests, which MLflow's own client uses.
import { proxyAuthorization, proxyFor } from '../../../tracking-plugin/mlflow/proxy';
import { TrackLaunchError } from '../../../core';

const via = (uri: string, env: NodeJS.ProcessEnv) => proxyFor(uri, env).proxy?.href;

test('the scheme picks the variable; lower case first; ALL_PROXY last', () => {
  const env = { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://p:2', ALL_PROXY: 'http://a:3' };
  expect(via('https://mlflow.example.org', env)).toBe('http://s:1/');
  expect(via('http://mlflow.example.org:5000', env)).toBe('http://p:2/');
  expect(via('https://x', { ALL_PROXY: 'http://a:3' })).toBe('http://a:3/');
  expect(via('https://x', { https_proxy: 'http://low:1', HTTPS_PROXY: 'http://up:1' })).toBe('http://low:1/');
  expect(via('https://x', { HTTPS_PROXY: 'proxy.corp:3128' })).toBe('http://proxy.corp:3128/');
  expect(via('https://x', {})).toBeUndefined();
});

test.each([
  ['*', 'https://anything.org', true],
  ['example.org', 'https://mlflow.example.org', true],
  ['.example.org', 'https://mlflow.example.org', true],
  ['example.org', 'https://badexample.org', false],
  ['mlflow.example.org:5000', 'http://mlflow.example.org:5000', true],
  ['mlflow.example.org:5001', 'http://mlflow.example.org:5000', false],
  ['10.1.0.0/16', 'http://10.1.2.3:5000', true],
  ['10.1.0.0/16', 'http://10.2.2.3:5000', false],
  ['127.0.0.1', 'http://127.0.0.1:5000', true],
  ['other.org, 127.0.0.0/8 ', 'http://127.0.0.1:5000', true],
])('NO_PROXY=%j for %s bypasses: %s', (noProxy, uri, bypass) => {
  const env = { HTTPS_PROXY: 'http://s:1', HTTP_PROXY: 'http://p:2', NO_PROXY: noProxy };
  expect(via(uri, env) === undefined).toBe(bypass);
});

test('proxy credentials go in Proxy-Authorization; unsupported proxies are refused in words', () => {
  const { proxy } = proxyFor('https://x', { HTTPS_PROXY: 'http://us%40r:p%3Ass@proxy:3128' });
  expect(proxyAuthorization(proxy!)).toBe(`Basic ${Buffer.from('us@r:p:ss').toString('base64')}`);
  expect(proxyAuthorization(new URL('http://proxy:3128'))).toBeUndefined();
  expect(() => proxyFor('https://x', { HTTPS_PROXY: 'socks5://proxy:1080' })).toThrow(TrackLaunchError);
  expect(() => proxyFor('https://x', { HTTPS_PROXY: 'socks5://proxy:1080' })).toThrow(/socks5:\/\/ proxies/);
});
