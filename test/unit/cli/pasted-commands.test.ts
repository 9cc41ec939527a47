// Commands printed for the user to paste quote the run directory: one with spaces or quotes in its
// name is one word of the pasted command.
import { spawnSync } from 'child_process';
import { printSummary } from '../../../cli/tracking-output';
import { trackingLine } from '../../../cli/workflows/follower';
import type { Summary } from '../../../tracking-plugin';

const DIR = "/scratch/my runs/it's here";

/** The words bash makes of `cmd` (printed one per line by printf). */
const words = (cmd: string): string[] =>
  spawnSync('bash', ['-c', `set -- ${cmd}; printf '%s\\n' "$@"`], { encoding: 'utf8' })
    .stdout.split('\n')
    .slice(0, -1);

function stderrOf(f: () => void): string {
  const chunks: string[] = [];
  const spy = jest.spyOn(process.stderr, 'write').mockImplementation((c: string | Uint8Array) => {
    chunks.push(String(c));
    return true;
  });
  try {
    f();
  } finally {
    spy.mockRestore();
  }
  return chunks.join('');
}

it('offline: "send them with: track-launch sync <dir>" pastes as one directory', () => {
  const summary: Summary = {
    runDir: DIR,
    final: true,
    ranksSeen: 1,
    pointsSpooled: 3,
    pending: 3,
    lagMs: 0,
    skipped: 0,
    online: false,
    rankRunIds: {},
    complete: false,
    warnings: [],
  };
  const said = stderrOf(() => printSummary(summary));
  const cmd = /send them with: (track-launch sync .*)$/m.exec(said)?.[1];
  expect(cmd).toBeDefined();
  expect(words(cmd!)).toEqual(['track-launch', 'sync', DIR]);
});

it('the tracking line at submit pastes as one directory', () => {
  const line = trackingLine(DIR, 'login', undefined);
  const cmd = /^none running: (.*)$/.exec(line)?.[1];
  expect(words(cmd!)).toEqual(['track-launch', 'ingest', '--follow', DIR]);
  const byHand = /^by hand \((.*)\) or/.exec(trackingLine(DIR, 'none', undefined))?.[1];
  expect(words(byHand!)).toEqual(['track-launch', 'ingest', DIR]);
});
