import { forEachCsvRecord } from '../../../data/csv';

/** All records of `text`. */
export function parseCsv(text: string, file = 'input'): string[][] {
  const out: string[][] = [];
  forEachCsvRecord(text, file, (f) => out.push(f));
  return out;
}
