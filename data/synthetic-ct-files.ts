// Writes a synthetic CT set as LUNA16 lays it out (CSVs, subset<K>/<seriesuid>.mhd and .raw), one series at a
// time, each file under a temporary name and renamed: an interrupted run leaves no half-written series.
import * as fs from 'fs';
import * as path from 'path';
import { ctVoxels, mhdHeader } from './ct-volume';
import { CtOptions, syntheticCt } from './synthetic-ct';

export interface WrittenCt {
  candidates: string;
  annotations: string;
  series: number;
  rows: number;
  positives: number;
  /** Bytes of .mhd and .raw files. */
  bytes: number;
}

export function writeSyntheticCt(outDir: string, opts: CtOptions): WrittenCt {
  const ct = syntheticCt(opts);
  fs.mkdirSync(outDir, { recursive: true });
  let bytes = 0;
  for (const s of ct.series) {
    const dir = path.join(outDir, s.subset);
    fs.mkdirSync(dir, { recursive: true });
    bytes += put(path.join(dir, `${s.id}.raw`), ctVoxels(s));
    bytes += put(path.join(dir, `${s.id}.mhd`), Buffer.from(mhdHeader(s), 'utf8'));
  }
  const candidates = path.join(outDir, 'candidates.csv');
  const annotations = path.join(outDir, 'annotations.csv');
  put(candidates, Buffer.from(ct.candidates, 'utf8'));
  put(annotations, Buffer.from(ct.annotations, 'utf8'));
  const all = ct.series.flatMap((s) => s.candidates);
  return {
    candidates,
    annotations,
    series: ct.series.length,
    rows: all.length,
    positives: all.filter((c) => c.positive).length,
    bytes,
  };
}

function put(file: string, data: Buffer): number {
  const tmp = path.join(path.dirname(file), `.tmp-${process.pid}-${path.basename(file)}`);
  fs.writeFileSync(tmp, data);
  fs.renameSync(tmp, file);
  return data.length;
}
