import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { renderLocalScript } from '../../../launcher/plan/render-local';
import { expectGolden } from './golden-helper';
import { LOCAL_GOLDEN, NAMED_SPECS } from './specs';

describe('local executor script', () => {
  for (const name of LOCAL_GOLDEN) {
    const script = renderLocalScript(NAMED_SPECS[name], { version: '0.0.0-test' });
    test(`${name} matches its golden file`, () => expectGolden(`${name}.local.sh`, script));
    test(`${name} passes bash -n and shellcheck`, () => {
      const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'tl-local-')), 'job.local.sh');
      fs.writeFileSync(file, script);
      expect(spawnSync('bash', ['-n', file]).status).toBe(0);
      const sc = spawnSync('shellcheck', [file], { encoding: 'utf8' });
      expect(sc.stdout).toBe('');
    });
  }

  test('starts world-size ranks through the bootstrap in local mode', () => {
    const s = renderLocalScript(NAMED_SPECS['torchrun-3x2'], { version: 't' });
    expect(s).toContain('for ((r = 0; r < 6; r++)); do');
    expect(s).toContain('TRACK_LAUNCH_WORLD_SIZE=6 TRACK_LAUNCH_TASKS_PER_NODE=2');
    expect(s).toContain('--launcher local');
    expect(s).not.toContain('--launcher torchrun');
  });
});
