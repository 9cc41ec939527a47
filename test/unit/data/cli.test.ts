// The `data` command module through yargs (as main.ts will register it), and the synthetic generator.
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import yargs from 'yargs';
import { dataCommand, runDataVerify } from '../../../cli/commands/data';
import { parseCandidates } from '../../../data/luna-table';
import { LUNA16_SHAPE, syntheticLuna } from '../../../data/synthetic';

async function run(args: string[]): Promise<{ out: string; error?: Error }> {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((s: string | Uint8Array) => {
    lines.push(String(s));
    return true;
  });
  try {
    await yargs(args)
      .option('json', { type: 'boolean', global: true })
      .command(dataCommand)
      .strict()
      .exitProcess(false)
      .fail((msg, err) => {
        throw err ?? new Error(msg);
      })
      .parseAsync();
    return { out: lines.join('') };
  } catch (e) {
    return { out: lines.join(''), error: e as Error };
  } finally {
    write.mockRestore();
  }
}

describe('track-launch data', () => {
  it('synth, shard, verify through the command module', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'tl-data-cli-'));
    const s = await run([
      'data',
      'synth',
      '-o',
      dir,
      '--series',
      '12',
      '--candidates',
      '900',
      '--positives',
      '30',
      '--seed',
      '3',
    ]);
    expect(s.error).toBeUndefined();
    expect(s.out).toBe(
      `wrote ${dir}/candidates.csv (900 candidates, 30 positive, 12 series, seed 3) and ${dir}/annotations.csv\n`,
    );
    const out = path.join(dir, 'shards');
    const r = await run([
      'data',
      'shard',
      '--candidates',
      `${dir}/candidates.csv`,
      '--annotations',
      `${dir}/annotations.csv`,
      '--world-size',
      '3',
      '--out',
      out,
      '--seed',
      '5',
    ]);
    expect(r.error).toBeUndefined();
    expect(r.out).toMatch(
      /^sharded 900 candidates \(30 positive\) in 12 series over 3 rank\(s\), seed 5, validation fraction 0.1\n/,
    );
    expect(r.out).toMatch(/\n {2}rank {2}train rows {2}pos {2}series {2}val rows {2}pos {2}series\n {2}0 /);
    expect(r.out).toMatch(/train positives per rank \d+\.\.\d+ \(fair /);
    expect(fs.existsSync(path.join(out, 'rank-2.val.annotations.csv'))).toBe(true);
    const j = await run([
      'data',
      'shard',
      '--candidates',
      `${dir}/candidates.csv`,
      '-n',
      '2',
      '-o',
      out,
      '--json',
    ]);
    const m = JSON.parse(j.out);
    expect(m).toMatchObject({ version: 1, kind: 'track-launch-data-shards', world_size: 2, out_dir: out });
    const v = await run(['data', 'verify', out]);
    expect(v.out).toBe(`${out}: ranks 0, 1 match manifest.json\n`);
    fs.appendFileSync(path.join(out, 'rank-0.val.csv'), 'tampered\n');
    expect(() => runDataVerify({ dir: out }, () => undefined)).toThrow(
      /1 file\(s\) do not match manifest.json: rank-0\.val\.csv: /,
    );
    const bad = await run(['data', 'shard', '--candidates', `${dir}/candidates.csv`, '-n', 'x', '-o', out]);
    expect(bad.error?.message).toMatch(/--world-size: NaN is not valid/);
    const missing = await run(['data', 'shard', '-n', '2', '-o', out]);
    expect(missing.error?.message).toMatch(/Missing required argument: candidates/);
  });

  it('the generator makes exactly the LUNA16 shape, deterministically', () => {
    const a = syntheticLuna({ ...LUNA16_SHAPE, seed: 11 });
    const t = parseCandidates(a.candidates);
    expect(t.rows).toHaveLength(551_065);
    expect(t.seriesIds).toHaveLength(888);
    expect(t.positive.reduce((x, y) => x + y, 0)).toBe(1_351);
    expect(a.series.reduce((x, s) => x + s.candidates, 0)).toBe(551_065);
    const holders = a.series.filter((s) => s.positives > 0).length;
    expect(holders).toBeGreaterThan(500);
    expect(holders).toBeLessThan(700);
    const small = syntheticLuna({ series: 5, candidates: 50, positives: 7, seed: 1 });
    expect(syntheticLuna({ series: 5, candidates: 50, positives: 7, seed: 1 })).toEqual(small);
    expect(syntheticLuna({ series: 5, candidates: 50, positives: 7, seed: 2 }).candidates).not.toBe(
      small.candidates,
    );
    expect(() => syntheticLuna({ series: 5, candidates: 6, positives: 7 })).toThrow(
      /candidates >= series \+ positives/,
    );
  });
});
