// The nodes of the test cluster live in network namespaces: 127.0.0.1 there is their own. A server
// of the tests (MLflow, a counting proxy) listens on the host's 127.0.0.1; this relay makes it
// reachable from the nodes on the host's address on the cluster bridge.
import * as net from 'net';

/** The host's address on the cluster bridge (test/cluster/up). */
export const BRIDGE = '10.77.77.1';

/** A TCP relay on the bridge to 127.0.0.1:port; uri is http://<bridge>:<its port>. */
export async function bridgeRelay(port: number): Promise<{ uri: string; close(): Promise<void> }> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((inbound) => {
    const out = net.connect(port, '127.0.0.1');
    for (const s of [inbound, out]) {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
      s.on('error', () => [inbound, out].forEach((x) => x.destroy()));
    }
    inbound.pipe(out).pipe(inbound);
  });
  await new Promise<void>((r) => server.listen(0, BRIDGE, r));
  const { port: at } = server.address() as net.AddressInfo;
  return {
    uri: `http://${BRIDGE}:${at}`,
    close: () =>
      new Promise<void>((r) => {
        for (const s of sockets) s.destroy();
        server.close(() => r());
      }),
  };
}
