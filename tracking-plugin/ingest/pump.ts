// Sending the spools: each stream's records in requests of up to 1,000 points, every stream taking
// turns for a few shared tickets, so that the request limit stays full to the last request and a
// stream starts the moment its run exists. A stream's cursor moves only over requests the server
// acknowledged, in the order of the spool; after a failure no stream takes another request, and the
// failure is reported once every request in flight has settled.
import type { MetricPoint } from '../types';
import { semaphore } from './limiter';
import { readRecords } from './records';
import type { Sent } from './sender';

export const PER_REQUEST = 1000; // MLflow's metrics per log-batch

export interface Stream {
  id: string;
  file: string;
  /** Send the spool up to this byte. */
  size: number;
  /** The run its points go to (created on the first call, if need be); undefined: not sent now. */
  run: () => Promise<string | undefined>;
}

export interface PumpIo {
  runDir: string;
  /** Spool bytes of the stream already acknowledged. */
  cursor: (id: string) => number;
  send: (runId: string, points: MetricPoint[]) => Promise<Sent>;
  /** Every request of the stream up to byte `end` is acknowledged: move the cursor, save. */
  commit: (id: string, end: number, sent: Sent[]) => Promise<void>;
  /** Timestamp of the stream's first point not yet acknowledged (undefined: none left). */
  unsent: (id: string, timestamp: number | undefined) => void;
  /** Requests prepared or in flight at once, all streams together. */
  tickets: number;
}

interface Part {
  end: number;
  first: number;
  sent?: Sent;
}

export async function pump(streams: readonly Stream[], io: PumpIo): Promise<void> {
  const ticket = semaphore(io.tickets);
  let failure: { error: unknown } | undefined;
  const fail = (error: unknown) => {
    failure ??= { error };
  };

  const one = async (st: Stream): Promise<void> => {
    const runId = await st.run();
    if (runId === undefined || failure) return;
    const parts: Part[] = [];
    let done = 0; // parts committed
    const inFlight: Promise<void>[] = [];
    const advance = async () => {
      const sent: Sent[] = [];
      let end = -1;
      while (done < parts.length && parts[done].sent) {
        sent.push(parts[done].sent!);
        end = parts[done].end;
        done++;
      }
      if (!sent.length) return;
      const next = parts[done];
      if (next) io.unsent(st.id, next.first);
      else if (end >= st.size) io.unsent(st.id, undefined);
      await io.commit(st.id, end, sent);
    };
    let from = io.cursor(st.id);
    while (from < st.size && !failure) {
      const recs = await readRecords(io.runDir, st.file, from, st.size);
      if (done === parts.length) io.unsent(st.id, recs[0].point.timestamp);
      for (let i = 0; i < recs.length && !failure; i += PER_REQUEST) {
        const release = await ticket(); // waits its turn among the streams
        if (failure) {
          release();
          break;
        }
        const chunk = recs.slice(i, i + PER_REQUEST);
        const part: Part = { end: chunk[chunk.length - 1].end, first: chunk[0].point.timestamp };
        parts.push(part);
        const points = chunk.map((r) => r.point);
        inFlight.push(
          io
            .send(runId, points)
            .then(
              (sent) => {
                release(); // answered: the next request goes out while the cursor is saved
                part.sent = sent;
                return advance();
              },
              (err: unknown) => {
                fail(err); // before the ticket is free: no stream takes another request
                release();
              },
            )
            .catch(fail),
        );
      }
      from = recs[recs.length - 1].end;
    }
    await Promise.all(inFlight);
  };

  await Promise.all(streams.map((st) => one(st).catch(fail)));
  if (failure) throw failure.error;
}
