// An https.Agent that reaches the server through an HTTP proxy's CONNECT tunnel: TLS runs end to end
// inside the tunnel, so the proxy sees the server's host and port and nothing else (not the
// Authorization header). Effects only; which proxy to use is decided in proxy.ts.
import * as http from 'http';
import * as https from 'https';
import type { Duplex } from 'stream';
import * as tls from 'tls';

/** A CONNECT the proxy refused: not a network blip, a setting to change (407: proxy credentials). */
export class ProxyRefusedError extends Error {
  readonly code = 'EPROXYREFUSED';
  constructor(
    readonly status: number,
    proxyHost: string,
  ) {
    super(
      `the proxy ${proxyHost} answered ${status} to CONNECT` +
        (status === 407
          ? ' (it wants credentials: put them in the proxy URL, http://user:password@host:port)'
          : ''),
    );
  }
}

export class TunnelAgent extends https.Agent {
  constructor(
    private readonly proxy: URL,
    private readonly proxyAuth: string | undefined,
    opts: https.AgentOptions,
  ) {
    super(opts);
  }

  override createConnection(
    options: https.RequestOptions,
    callback?: (err: Error | null, stream: Duplex) => void,
  ): Duplex | null | undefined {
    const done = callback ?? (() => undefined);
    const target = `${options.host ?? options.hostname}:${options.port ?? 443}`;
    const req = http.request({
      host: this.proxy.hostname,
      port: Number(this.proxy.port || 80),
      method: 'CONNECT',
      path: target,
      headers: { Host: target, ...(this.proxyAuth ? { 'Proxy-Authorization': this.proxyAuth } : {}) },
      agent: false,
      timeout: options.timeout,
    });
    req.once('connect', (res, socket) => {
      if (res.statusCode !== 200) {
        socket.destroy();
        done(new ProxyRefusedError(res.statusCode ?? 0, this.proxy.host), socket);
        return;
      }
      const servername = String(options.servername ?? options.host ?? options.hostname);
      done(null, tls.connect({ ...(options as tls.ConnectionOptions), socket, servername }));
    });
    req.once('timeout', () =>
      req.destroy(Object.assign(new Error('proxy CONNECT timed out'), { code: 'ETIMEDOUT' })),
    );
    req.once('error', (err) => done(err, req.socket as Duplex));
    req.end();
    return undefined;
  }
}
