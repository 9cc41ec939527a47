// New connections to the server opened at least CONNECT_GAP_MS apart. `mlflow server --workers N`
// (uvicorn or gunicorn) runs N processes on one listening socket, and the first of them to wake
// accepts every connection waiting: the 4 sockets of a burst of 4 requests then all land on one
// worker, and the sync runs at one worker's speed for as long as they live. Opened apart, while the
// first ones' requests keep their worker busy, they land on others (measured: BENCHMARKS.md).
import type * as http from 'http';
import type { Duplex } from 'stream';

/** The least time between two new connections of one agent; keep-alive reuse is not delayed. */
export const CONNECT_GAP_MS = 40;

type OnCreate = (err: Error | null, socket: Duplex) => void;

/** Makes `agent` open its new connections `gapMs` apart (the first at once); returns it. Works for
 *  agents that return the socket (node's) and for those that hand it to the callback later
 *  (TunnelAgent, through a proxy). */
export function spaceConnections<A extends http.Agent>(agent: A, gapMs = CONNECT_GAP_MS): A {
  const create = agent.createConnection.bind(agent);
  let nextAt = 0;
  agent.createConnection = (options, callback) => {
    const now = performance.now(); // monotonic: a wall clock set back must not hold connections
    const at = Math.max(now, nextAt);
    nextAt = at + gapMs;
    if (at <= now || !callback) return create(options, callback);
    const open = () => {
      // node's timers count whole milliseconds and can fire up to one before `at` (2 ms by
      // Date.now(), seen in CI): wait out the rest.
      const left = at - performance.now();
      if (left > 0) {
        setTimeout(open, left);
        return;
      }
      // Once only, as node's own agent does: net.createConnection also takes the callback as its
      // 'connect' listener, and calls it again, without arguments, when it connects.
      let called = false;
      const once: OnCreate = (err, socket) => {
        if (called) return;
        called = true;
        callback(err, socket);
      };
      let socket: Duplex | null | undefined;
      try {
        socket = create(options, once);
      } catch (err) {
        once(err as Error, undefined as unknown as Duplex);
        return;
      }
      if (socket) once(null, socket);
    };
    setTimeout(open, at - now);
    return undefined;
  };
  return agent;
}
