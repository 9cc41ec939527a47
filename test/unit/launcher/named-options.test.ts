// The Slurm options users type, named in the registry and rendered as sbatch expects them.
import { sbatchDirectives } from '../../../launcher/plan/render-sbatch';
import { renderSbatchScript } from '../../../launcher/plan/render-sbatch';
import { spec } from './specs';

const lines = (raw: Parameters<typeof spec>[0]) => sbatchDirectives(spec({ command: ['x'], ...raw }));

describe('named Slurm options', () => {
  test('--gres stands for --gpus-per-node (one request), or agrees with it', () => {
    const s = spec({ nodes: 2, gres: 'gpu:a100:4', command: ['x'] });
    expect([s.gpusPerNode, s.tasksPerNode, s.backend]).toEqual([4, 4, 'nccl']);
    expect(sbatchDirectives(s)).toContain('#SBATCH --gres=gpu:a100:4');
    expect(sbatchDirectives(s).some((l) => l.includes('gpus-per-node'))).toBe(false);
    expect(spec({ gres: 'gpu:4', gpusPerNode: 4, command: ['x'] }).gpusPerNode).toBe(4);
    expect(spec({ gres: 'shard:2', gpusPerNode: 1, command: ['x'] }).gpusPerNode).toBe(1);
  });

  test('--nodelist, --exclude, --reservation, --dependency as sbatch spells them', () => {
    expect(
      lines({
        nodes: 2,
        nodelist: 'tlnode[1-2]',
        exclude: 'tlnode3',
        reservation: 'maint',
        dependency: 'afterok:12:13?singleton',
      }),
    ).toEqual(
      expect.arrayContaining([
        '#SBATCH --nodelist=tlnode[1-2]',
        '#SBATCH --exclude=tlnode3',
        '#SBATCH --reservation=maint',
        '#SBATCH --dependency=afterok:12:13?singleton',
      ]),
    );
  });

  test('--signal: names, numbers and B:', () => {
    expect(lines({ signal: '10@90' })).toContain('#SBATCH --signal=USR1@90');
    expect(lines({ signal: 'SIGUSR2' })).toContain('#SBATCH --signal=USR2@60');
    expect(lines({ signal: 'b:usr1@60' })).toContain('#SBATCH --signal=B:USR1@60');
  });

  test('--signal B: the batch shell passes the signal on to the launcher, then waits again', () => {
    const script = renderSbatchScript(spec({ signal: 'B:USR1@60', command: ['x'] }), { version: 't' });
    expect(script).toContain(`trap 'tl_signalled=1; kill -USR1 "$launch_pid" 2>/dev/null || true' USR1`);
    expect(script).toMatch(/-- x &\n {2}launch_pid=\$!/);
    expect(renderSbatchScript(spec({ signal: 'USR1@60', command: ['x'] }), { version: 't' })).not.toContain(
      'launch_pid',
    );
  });
});
