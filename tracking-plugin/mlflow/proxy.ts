// Proxies as MLflow's Python client (requests) reads them: HTTPS_PROXY for https:// servers, HTTP_PROXY
// for http:// ones (lower case first, ALL_PROXY as the fallback), NO_PROXY honoured. Pure.
import { TrackLaunchError, registerSecret } from '../../core';

interface ProxyChoice {
  /** The proxy to use, or undefined for a direct connection. */
  proxy?: URL;
  /** Which variable chose it (for messages), or why none is used. */
  why: string;
}

const pick = (env: NodeJS.ProcessEnv, name: string): [string, string] | undefined => {
  for (const n of [name.toLowerCase(), name.toUpperCase()]) {
    const v = env[n]?.trim();
    if (v) return [n, v];
  }
  return undefined;
};

function ipv4(host: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(host);
  if (!m || m.slice(1).some((o) => Number(o) > 255)) return undefined;
  return m.slice(1).reduce((n, o) => n * 256 + Number(o), 0);
}

/** One NO_PROXY entry: `*`, a host or domain suffix (`.example.com` or `example.com`), `host:port`, or an IPv4 CIDR. */
function bypasses(entry: string, host: string, port: string): boolean {
  if (entry === '*') return true;
  const cidr = /^(\d+\.\d+\.\d+\.\d+)\/(\d{1,2})$/.exec(entry);
  if (cidr) {
    const [net, ip, bits] = [ipv4(cidr[1]), ipv4(host), Number(cidr[2])];
    if (net === undefined || ip === undefined || bits > 32) return false;
    const mask = bits === 0 ? 0 : (0xffffffff << (32 - bits)) >>> 0;
    return (net & mask) >>> 0 === (ip & mask) >>> 0;
  }
  const [eHost, ePort] =
    entry.includes(':') && !entry.startsWith('[') ? entry.split(':') : [entry, undefined];
  if (ePort !== undefined && ePort !== port) return false;
  const h = eHost.replace(/^\*?\./, '').toLowerCase();
  return host === h || host.endsWith('.' + h);
}

/** The proxy for a tracking server URL under this environment. */
export function proxyFor(serverUrl: string, env: NodeJS.ProcessEnv = process.env): ProxyChoice {
  const url = new URL(serverUrl);
  const host = url.hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  const noProxy = pick(env, 'no_proxy');
  if (noProxy) {
    const hit = noProxy[1]
      .split(',')
      .map((e) => e.trim())
      .find((e) => e && bypasses(e.toLowerCase(), host, port));
    if (hit) return { why: `${noProxy[0]} lists ${hit}` };
  }
  const scheme = url.protocol === 'https:' ? 'https_proxy' : 'http_proxy';
  const chosen = pick(env, scheme) ?? pick(env, 'all_proxy');
  if (!chosen) return { why: 'no proxy variable is set' };
  let proxy: URL;
  try {
    proxy = new URL(/^[a-z][a-z0-9+.-]*:\/\//i.test(chosen[1]) ? chosen[1] : `http://${chosen[1]}`);
  } catch {
    throw new TrackLaunchError('TRACKING', `${chosen[0]} is not a proxy URL: ${JSON.stringify(chosen[1])}`, {
      hint: `set ${chosen[0]}=http://proxy-host:3128 (or unset it)`,
    });
  }
  if (proxy.protocol !== 'http:') {
    throw new TrackLaunchError('TRACKING', `${chosen[0]}: ${proxy.protocol}// proxies are not supported`, {
      hint: `use an http:// proxy URL in ${chosen[0]} (the tunnel to an https:// server is still end-to-end TLS)`,
    });
  }
  registerSecret(decodeURIComponent(proxy.password));
  return { proxy, why: chosen[0] };
}

/** Proxy-Authorization for a proxy URL with user:password, else undefined. */
export function proxyAuthorization(proxy: URL): string | undefined {
  if (!proxy.username) return undefined;
  const user = decodeURIComponent(proxy.username);
  const pass = decodeURIComponent(proxy.password);
  const value = Buffer.from(`${user}:${pass}`).toString('base64');
  registerSecret(value);
  return `Basic ${value}`;
}
