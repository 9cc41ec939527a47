// Printing for people and for machines (--json); progress lines that rewrite themselves on a TTY.
import { TrackLaunchError } from '../core';

export function printJson(value: unknown): void {
  process.stdout.write(JSON.stringify(value, null, 2) + '\n');
}

const errorJson = (err: TrackLaunchError) => ({
  code: err.code,
  message: err.message,
  hint: err.hint,
  details: err.details,
});

/** Errors printed already, in their command's --json result. */
const printedInResult = new WeakSet<TrackLaunchError>();

/** --json output of a command that has a result even when it fails (what was tracked): one document,
 *  the result with `error` when `err` ends the command; reportError then prints nothing more. */
export function printJsonResult(result: object, err?: TrackLaunchError): void {
  printJson(err ? { ...result, error: errorJson(err) } : result);
  if (err) printedInResult.add(err);
}

/** A reader that went away (`track-launch logs 1234 | head`) ends the command quietly with 141, the
 *  status of a command-line tool killed by SIGPIPE; any other failure to write is said, exit 1. */
export function endOnClosedOutput(): void {
  for (const stream of [process.stdout, process.stderr])
    stream.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'EPIPE') process.exit(141);
      if (stream !== process.stderr)
        process.stderr.write(`track-launch: cannot write to standard output: ${e.message}\n`);
      process.exit(1);
    });
}

/** `text` on one terminal row of `width` columns: control characters (a server's multi-line
 *  error) become spaces, and a longer line is cut, ending in "…". */
export function fitRow(text: string, width: number): string {
  // eslint-disable-next-line no-control-regex
  const chars = [...text.replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ')];
  const room = Math.max(1, width);
  return chars.length <= room ? chars.join('') : chars.slice(0, room - 1).join('') + '…';
}

/** A status line: on a terminal one row, cut to its width and rewritten in place; elsewhere
 *  (a file, a pipe, CI) one plain line each time the state part changes. */
export class ProgressLine {
  private last = '';
  private readonly stream = process.stderr;
  constructor(private readonly quiet: boolean) {}

  /** `text` is printed when it changes; `volatile` (a clock, a counter) only refreshes a TTY line. */
  update(text: string, volatile = ''): void {
    if (this.quiet) return;
    if (this.stream.isTTY) {
      // one column spare: a row filled to the last column wraps on some terminals
      this.stream.write(`\r\x1b[2K${fitRow(`${text}${volatile}`, (this.stream.columns || 80) - 1)}`);
      this.last = text;
    } else if (text !== this.last) {
      this.last = text;
      this.stream.write(`${text}${volatile}\n`);
    }
  }

  done(): void {
    if (!this.quiet && this.stream.isTTY && this.last) this.stream.write('\n');
    this.last = '';
  }
}

/** The single top-level catch: message, hint and an exit code per error kind. */
export function reportError(err: unknown, json: boolean): number {
  if (err instanceof TrackLaunchError) {
    if (json) {
      if (!printedInResult.has(err)) printJson({ error: errorJson(err) });
    } else {
      process.stderr.write(`track-launch: ${err.message}\n`);
      if (err.hint) process.stderr.write(`  ${err.hint}\n`);
    }
    return err.exitCode;
  }
  const e = err as Error;
  process.stderr.write(`track-launch: internal error: ${e?.stack ?? String(err)}\n`);
  process.stderr.write('  This is a bug in track-launch; please report it with the command you ran.\n');
  return 70;
}

export function formatDuration(s: number): string {
  const t = Math.max(0, Math.round(s));
  const h = Math.floor(t / 3600);
  const m = Math.floor((t % 3600) / 60);
  return h ? `${h}h${String(m).padStart(2, '0')}m` : m ? `${m}m${String(t % 60).padStart(2, '0')}s` : `${t}s`;
}
