// A probe (pace.ts): the first half of a sync's spool bytes goes out at one number of requests in
// flight, the rest at the other, and each half's rate is measured from its first request's send to
// its last answer. The second half waits until every request of the first is answered, so the two
// never share the server. Requests other than the points (run creates, tags) pass the same limit
// uncounted.
import type { Gate } from './limiter';

interface Half {
  limit: number;
  bytes: number;
  requests: number;
  started?: number;
  ended?: number;
  open: number;
}

export class Probe {
  private readonly halves: [Half, Half];
  private issued = 0;
  private failed = false;
  private firstDone?: Promise<void>;
  private resolveFirst?: () => void;

  /** `total`: the spool bytes of the sync; `limit`: the sync's gate, resized between the halves. */
  constructor(
    private readonly total: number,
    first: number,
    second: number,
    private readonly limit: Gate & { resize(max: number): void },
    private readonly now: () => number = () => performance.now(),
  ) {
    this.halves = [
      { limit: first, bytes: 0, requests: 0, open: 0 },
      { limit: second, bytes: 0, requests: 0, open: 0 },
    ];
    limit.resize(first);
  }

  /** Sends one part of `bytes` spool bytes (in the order the parts are sent) through `send`, whose
   *  requests pass the gate it is given. A part counts from here until its send settles. */
  async send<T>(bytes: number, send: (gate: Gate) => Promise<T>): Promise<T> {
    const index = this.issued < this.total / 2 ? 0 : 1;
    this.issued += bytes;
    const half = this.halves[index];
    half.open++;
    if (index === 1) {
      this.closeFirst();
      await this.firstDone;
    }
    const gate: Gate = (task) =>
      this.limit(() => {
        half.started ??= this.now();
        return task();
      });
    try {
      const r = await send(gate);
      half.bytes += bytes;
      half.requests++;
      return r;
    } catch (err) {
      this.failed = true;
      throw err;
    } finally {
      half.ended = this.now();
      half.open--;
      if (index === 0) this.maybeFirstDone();
    }
  }

  /** The first part of the second half is asked for: the first half takes no more requests. */
  private closeFirst(): void {
    if (this.firstDone) return;
    this.firstDone = new Promise((resolve) => (this.resolveFirst = resolve));
    this.maybeFirstDone();
  }

  private maybeFirstDone(): void {
    if (!this.resolveFirst || this.halves[0].open > 0) return;
    this.limit.resize(this.halves[1].limit);
    this.resolveFirst();
    this.resolveFirst = undefined;
  }

  /** Rate at `high` / rate at `low` requests in flight, or undefined if the probe cannot tell
   *  (a part failed, or a half had fewer than 2 parts). */
  ratio(high: number): number | undefined {
    if (this.failed) return undefined;
    const rates = this.halves.map((h) =>
      h.requests >= 2 && h.started !== undefined && h.ended !== undefined && h.ended > h.started
        ? h.bytes / (h.ended - h.started)
        : undefined,
    );
    if (rates[0] === undefined || rates[1] === undefined) return undefined;
    return this.halves[0].limit === high ? rates[0] / rates[1] : rates[1] / rates[0];
  }
}
