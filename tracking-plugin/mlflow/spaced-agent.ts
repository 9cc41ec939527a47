// New connections to the server opened at least CONNECT_GAP_MS apart. `mlflow server --workers N`
// (uvicorn or gunicorn) runs N processes on one listening socket, and the first of them to wake
// accepts every connection waiting: the 4 sockets of a burst of 4 requests then all land on one
// worker, and the sync runs at one worker's speed for as long as they live. Opened apart, while the
// first ones' requests keep their worker busy, they land on others (measured: BENCHMARKS.md).
import type * as http from 'http';
import type { Duplex } from 'stream';

/** The least time between two new connections of one agent; keep-alive reuse is not delayed. */
export const CONNECT_GAP_MS = 40;

type Created = Duplex | null | undefined;

/** Makes `agent` open its new connections `gapMs` apart (the first at once); returns it. */
export function spaceConnections<A extends http.Agent>(agent: A, gapMs = CONNECT_GAP_MS): A {
  const create = agent.createConnection.bind(agent);
  let nextAt = 0;
  agent.createConnection = (options, callback) => {
    const now = Date.now();
    const wait = nextAt - now;
    nextAt = Math.max(now, nextAt) + gapMs;
    if (wait <= 0 || !callback) return create(options, callback);
    setTimeout(() => {
      let socket: Created;
      try {
        // without a callback: the agent's own callback is given the socket once, here
        socket = create(options);
      } catch (err) {
        callback(err as Error, undefined as unknown as Duplex);
        return;
      }
      if (socket) callback(null, socket);
      else callback(new Error('the agent made no connection'), undefined as unknown as Duplex);
    }, wait);
    return undefined;
  };
  return agent;
}
