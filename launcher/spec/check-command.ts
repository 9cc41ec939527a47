// Is the command there before the job queues? The interpreter on PATH (or at its path) and the
// script it runs, where they are visible from here (the shared filesystem). Pure: the file
// system is asked through the probes passed in. Skipped with --no-check.
import * as path from 'path';
import { invalidOption, TrackLaunchError } from '../../core';

export interface CommandProbes {
  cwd: string;
  /** Is this path an existing file? */
  isFile: (file: string) => boolean;
  /** Does this path exist (a file or a directory)? */
  exists: (file: string) => boolean;
  /** Is this program on PATH (or, with a /, an executable file)? */
  onPath: (program: string) => boolean;
}

/** Interpreters whose first non-option argument is the script (python -m / -c run none). */
const INTERPRETER = /^(python[0-9.]*|bash|sh|zsh|Rscript|julia|perl|ruby|node)$/;
/** Their options that take the next word as a value. */
const TAKES_VALUE = new Set(['-W', '-X', '-O', '--rcfile', '--init-file']);

/** The script the command runs, or undefined when there is none to check (python -m, -c, ...). */
export function scriptOf(command: string[]): string | undefined {
  const [program, ...args] = command;
  if (!INTERPRETER.test(path.basename(program))) return program.includes('/') ? program : undefined;
  for (let i = 0; i < args.length; i++) {
    const a = args[i];
    if (a === '-m' || a === '-c' || a === '-e' || a === '-') return undefined;
    if (TAKES_VALUE.has(a)) i++;
    else if (!a.startsWith('-')) return a;
  }
  return undefined;
}

/** Throws INVALID_SPEC for a missing script or interpreter; the interpreter is not looked up with a
 *  `container` (it lives in the image) or `modules` (they change PATH on the nodes). */
export function checkCommand(
  command: string[],
  opts: CommandProbes & { container?: boolean; modules?: boolean },
): void {
  const program = command[0];
  const hint =
    'Check the path (relative paths start from the directory you submit from); `--no-check` skips this check.';
  if (!opts.container && !opts.modules && !program.includes('/') && !opts.onPath(program))
    throw new TrackLaunchError(
      'INVALID_SPEC',
      `the command's program ${JSON.stringify(program)} is not on PATH here`,
      {
        hint: 'Install it, give its full path, or load it with --module; `--no-check` skips this check.',
        details: { option: 'command', value: program },
      },
    );
  const script = scriptOf(command);
  if (script === undefined) return;
  // A program given by path inside a container is the image's: not visible here.
  if (opts.container && script === program && path.isAbsolute(program)) return;
  if (!opts.isFile(path.resolve(opts.cwd, script))) {
    const err = invalidOption('command', script, `no such file from ${opts.cwd}`);
    throw new TrackLaunchError('INVALID_SPEC', err.message, { hint, details: err.details });
  }
}
