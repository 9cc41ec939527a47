// Buffered writes to stdout that wait when the pipe is full (a slow `less` must not grow memory).
import { once } from 'events';

export class OutputBuffer {
  private parts: Buffer[] = [];
  private size = 0;

  constructor(
    private readonly out: NodeJS.WritableStream = process.stdout,
    private readonly flushAt = 1 << 16,
  ) {}

  async write(buf: Buffer): Promise<void> {
    this.parts.push(buf);
    this.size += buf.length;
    if (this.size >= this.flushAt) await this.flush();
  }

  async flush(): Promise<void> {
    if (this.size === 0) return;
    const data = Buffer.concat(this.parts);
    this.parts = [];
    this.size = 0;
    if (!this.out.write(data)) await once(this.out, 'drain');
  }
}
