// A log read from where the last read stopped, through truncation and replacement (rotation, a
// rewrite): a file smaller than what was read of it, or another file under its name (another
// inode), is read again from its start.
import { readRangeOf } from '../../core';

export class FollowedFile {
  private offset = 0;
  private id: string | undefined; // device and inode of the file read so far

  /** `onRestart` is called once each time the file is found truncated or replaced. */
  constructor(
    private readonly runDir: string,
    readonly file: string,
    private readonly onRestart: (file: string) => void = () => {},
  ) {}

  /** Up to `max` bytes from where the last read stopped (empty: nothing more now); `restarted`
   *  when they are the start of new content (what came before is to be ended first). */
  async read(max: number): Promise<{ bytes: Buffer; restarted: boolean }> {
    const got = await readRangeOf(this.runDir, this.file, this.offset, max);
    if (!got) return { bytes: Buffer.alloc(0), restarted: false }; // moved away: its successor comes
    if (this.id === undefined || (got.id === this.id && got.size >= this.offset)) {
      this.id = got.id;
      this.offset += got.bytes.length;
      return { bytes: got.bytes, restarted: false };
    }
    this.onRestart(this.file);
    this.rewind();
    const again = await this.read(max);
    return { bytes: again.bytes, restarted: true };
  }

  /** Read from the start again, as a file never seen. */
  rewind(): void {
    this.offset = 0;
    this.id = undefined;
  }
}
