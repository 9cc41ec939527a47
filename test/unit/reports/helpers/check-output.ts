// Checks on rendered files with real tools: poppler's pdfinfo/pdftotext for the PDF, a PNG decoder for pixels.
import { execFileSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { loadImage, createCanvas } from '@napi-rs/canvas';

export const FIXTURES = path.join(__dirname, '..', '..', '..', 'fixtures', 'runs');
export const POLYNOMIAL_3 = path.join(FIXTURES, 'polynomial-3');
export const POLYNOMIAL_1 = path.join(FIXTURES, 'polynomial-1');
/** The host the committed fixture was made on (it changes when the fixture is regenerated). */
export const FIXTURE_HOST: string = JSON.parse(
  fs.readFileSync(path.join(POLYNOMIAL_3, 'logs', 'rank-0.json'), 'utf8'),
).host;

function poppler(tool: string, args: string[]): string {
  try {
    return execFileSync(tool, args, { encoding: 'utf8' });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT')
      throw new Error(`${tool} not found: install poppler-utils (apt-get install poppler-utils)`);
    throw err;
  }
}

export const pdfPages = (file: string): number =>
  Number(/^Pages:\s+(\d+)/m.exec(poppler('pdfinfo', [file]))?.[1]);
/** The text of the PDF, which only has words when text was drawn as glyphs (vector text), not outlines. */
export const pdfText = (file: string): string => poppler('pdftotext', ['-layout', file, '-']);

/** Width and height from the PNG header (IHDR). */
export function pngSize(file: string): { width: number; height: number } {
  const b = fs.readFileSync(file);
  if (b.toString('latin1', 1, 4) !== 'PNG') throw new Error(`${file} is not a PNG`);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

/** Share of pixels that are not white, and whether any pixel is transparent. */
export async function pngInk(file: string): Promise<{ ink: number; transparent: boolean }> {
  const img = await loadImage(file);
  const c = createCanvas(img.width, img.height);
  const ctx = c.getContext('2d');
  ctx.drawImage(img, 0, 0);
  const d = ctx.getImageData(0, 0, img.width, img.height).data;
  let ink = 0;
  let transparent = false;
  for (let i = 0; i < d.length; i += 4) {
    if (d[i + 3] < 255) transparent = true;
    if (d[i] < 240 || d[i + 1] < 240 || d[i + 2] < 240) ink++;
  }
  return { ink: ink / (d.length / 4), transparent };
}

export const tmpDir = (prefix: string) => fs.mkdtempSync(path.join(os.tmpdir(), `track-launch-${prefix}-`));
