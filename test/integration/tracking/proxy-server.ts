// A small HTTP proxy on loopback for the proxy tests: CONNECT tunnels and forward-proxied plain
// requests, counting both and keeping every byte it relayed, so a test can see what a proxy sees.
import * as http from 'http';
import * as net from 'net';

export interface TestProxy {
  url: string;
  connects: string[]; // CONNECT targets
  forwarded: string[]; // absolute URLs of plain requests
  proxyAuth: (string | undefined)[];
  seen: Buffer[]; // every byte relayed in either direction
  close(): Promise<void>;
}

export async function startProxy(opts: { requireAuth?: string } = {}): Promise<TestProxy> {
  const p: Omit<TestProxy, 'url' | 'close'> = { connects: [], forwarded: [], proxyAuth: [], seen: [] };
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    p.forwarded.push(req.url ?? '');
    p.proxyAuth.push(req.headers['proxy-authorization']);
    const target = new URL(req.url ?? '');
    const headers = { ...req.headers };
    delete headers['proxy-authorization'];
    for (const [k, v] of Object.entries(headers)) p.seen.push(Buffer.from(`${k}: ${String(v)}\n`));
    const up = http.request(
      {
        host: target.hostname,
        port: target.port,
        path: target.pathname + target.search,
        method: req.method,
        headers,
      },
      (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      },
    );
    up.on('error', () => res.writeHead(502).end());
    req.on('data', (d: Buffer) => p.seen.push(Buffer.from(d)));
    req.pipe(up);
  });
  server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => {
    p.connects.push(req.url ?? '');
    p.proxyAuth.push(req.headers['proxy-authorization']);
    if (opts.requireAuth && req.headers['proxy-authorization'] !== opts.requireAuth) {
      client.end('HTTP/1.1 407 Proxy Authentication Required\r\n\r\n');
      return;
    }
    const [host, port] = (req.url ?? '').split(':');
    const up = net.connect(Number(port), host, () => {
      client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
      if (head.length) up.write(head);
      client.on('data', (d: Buffer) => p.seen.push(Buffer.from(d)));
      up.on('data', (d: Buffer) => p.seen.push(Buffer.from(d)));
      client.pipe(up).pipe(client);
    });
    for (const s of [client, up]) {
      sockets.add(s);
      s.on('error', () => s.destroy());
      s.on('close', () => sockets.delete(s));
    }
  });
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as net.AddressInfo;
  return {
    ...p,
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
