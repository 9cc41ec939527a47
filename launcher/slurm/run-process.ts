// The one place that spawns programs. Failures become TrackLaunchError('COMMAND_FAILED') carrying
// the command, exit code and stderr tail; callers that expect failures read the ProcessResult instead.
import { execFile } from 'child_process';
import { TrackLaunchError } from '../../core';

export interface ProcessResult {
  argv: string[];
  code: number;
  stdout: string;
  stderr: string;
}

export type ProcessRunner = (
  argv: string[],
  opts?: { cwd?: string; timeoutMs?: number; env?: NodeJS.ProcessEnv },
) => Promise<ProcessResult>;

/** Runs argv without a shell; resolves with the exit code (rejects only when it cannot start). */
export const runProcess: ProcessRunner = (argv, opts = {}) =>
  new Promise((resolve, reject) => {
    execFile(
      argv[0],
      argv.slice(1),
      {
        cwd: opts.cwd,
        env: opts.env,
        timeout: opts.timeoutMs ?? 60_000,
        maxBuffer: 64 * 1024 * 1024,
        encoding: 'utf8',
      },
      (err, stdout, stderr) => {
        const e = err as (NodeJS.ErrnoException & { code?: string | number }) | null;
        if (e?.code !== 'ENOENT')
          resolve({ argv, code: e ? (typeof e.code === 'number' ? e.code : 1) : 0, stdout, stderr });
        else
          reject(
            new TrackLaunchError('COMMAND_FAILED', `${argv[0]} was not found on PATH`, {
              hint: argv[0].startsWith('s')
                ? 'Run track-launch on a Slurm login node, or use --executor local.'
                : undefined,
              details: { command: argv },
            }),
          );
      },
    );
  });

export function tail(text: string, lines = 12): string {
  return text.trimEnd().split('\n').slice(-lines).join('\n');
}

export function commandFailed(r: ProcessResult, what: string, hint?: string): TrackLaunchError {
  const err = tail(r.stderr) || tail(r.stdout);
  return new TrackLaunchError(
    'COMMAND_FAILED',
    `${what}: \`${r.argv.join(' ')}\` exited with ${r.code}${err ? `:\n${err}` : ''}`,
    {
      hint,
      details: { command: r.argv, exitCode: r.code, stderr: tail(r.stderr) },
    },
  );
}
