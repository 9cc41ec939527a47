// The plan shows what staging copies per node and passes the data directory, quoted, to stage.sh.
import { renderLocalScript } from '../../../launcher/plan/render-local';
import { renderSbatchScript } from '../../../launcher/plan/render-sbatch';
import { NAMED_SPECS } from '../launcher/specs';

const DATA = "/scratch/it's luna16"; // a quote: the path travels single-quoted
const spec = {
  ...NAMED_SPECS['srun-stage-2x2'],
  stagePlan: {
    dataDir: DATA,
    nodes: [
      { node: 0, ranks: [0, 1], files: 11, bytes: 4_003_234 },
      { node: 1, ranks: [2, 3], files: 13, bytes: 999 },
    ],
    all: { files: 23, bytes: 4_004_233 },
  },
};

describe('staging in the rendered scripts', () => {
  it('sbatch: one line per node with files and bytes, and the data directory as stage.sh argument', () => {
    const s = renderSbatchScript(spec, { version: 't' });
    expect(s).toContain(`#   node 0 (ranks 0-1): 11 file(s), 4003234 bytes (4.0 MB)\n`);
    expect(s).toContain(`#   node 1 (ranks 2-3): 13 file(s), 999 bytes (999 B)\n`);
    expect(s).toMatch(/stage\.sh" hold '[^\n]*' 2 '\/scratch\/it'\\''s luna16' &\n/);
  });

  it('local: the total for this machine, and the data directory', () => {
    const s = renderLocalScript(spec, { version: 't' });
    expect(s).toContain(': 23 file(s), 4004233 bytes (4.0 MB).\n');
    expect(s).toMatch(/stage\.sh" copy '[^\n]*' 4 '\/scratch\/it'\\''s luna16'\n/);
  });

  it('without a staging plan the scripts are as before (no data argument)', () => {
    const s = renderSbatchScript(NAMED_SPECS['srun-stage-2x2'], { version: 't' });
    expect(s).not.toContain('# Staged per node');
    expect(s).toMatch(/stage\.sh" hold '[^\n]*' 2 &\n/);
  });
});
