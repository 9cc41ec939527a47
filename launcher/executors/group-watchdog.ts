// Ranks that die with their supervisor: a bash watchdog in a session of its own reads a pipe only the
// supervisor holds; at EOF (the supervisor ended, SIGKILL included) it stops the job's process group,
// SIGTERM then SIGKILL after the grace. A supervisor that finishes normally writes "done" first.
import { spawn } from 'child_process';
import type { Writable } from 'stream';

// $1: the job's process group, $2: the grace in tenths of a second. It ignores the signals that
// would end it with the supervisor (a terminal's hangup, Ctrl-C to a foreground group).
const WATCHDOG_SCRIPT = `trap '' TERM INT HUP
g=$1 grace=$2
while IFS= read -r line; do
  if [[ $line == 'done' ]]; then exit 0; fi
done
kill -TERM -- "-$g" 2>/dev/null || exit 0
for ((i = 0; i < grace; i++)); do
  kill -0 -- "-$g" 2>/dev/null || exit 0
  sleep 0.1
done
kill -KILL -- "-$g" 2>/dev/null
exit 0
`;

/** disarm(): the job ended under the supervisor's eyes, so the watchdog exits without signalling. */
export function startWatchdog(pgid: number, graceMs: number): { disarm(): void } {
  const child = spawn(
    'bash',
    ['-c', WATCHDOG_SCRIPT, 'track-launch-watchdog', String(pgid), String(Math.ceil(graceMs / 100))],
    {
      detached: true, // its own session: a signal to the supervisor's group does not reach it
      stdio: ['pipe', 'ignore', 'ignore'],
    },
  );
  child.unref();
  const pipe = child.stdin as Writable;
  pipe.on('error', () => undefined); // the watchdog gone first: nothing left to tell it
  return { disarm: () => void pipe.end('done\n') };
}
