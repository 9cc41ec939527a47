// Effects: figures -> one PNG per figure (2x density) and one multi-page vector PDF with selectable text.
import * as fs from 'fs';
import * as path from 'path';
import { createCanvas } from 'canvas';
import type { Figure } from '../model';
import { drawFigure } from './draw';
import { ensureFont } from './fonts';

export const PNG_SCALE = 2;

/** Render one PNG; the canvas is dropped afterwards so its pixel buffer can be collected. */
export function renderPng(figure: Figure): Buffer {
  ensureFont();
  const canvas = createCanvas(figure.width * PNG_SCALE, figure.height * PNG_SCALE);
  const charts = drawFigure(canvas.getContext('2d'), figure, PNG_SCALE);
  const buffer = canvas.toBuffer('image/png');
  charts.forEach((c) => c.destroy());
  return buffer;
}

/**
 * All figures as pages of one PDF. Text is drawn as glyphs (not outlines) so it can be selected and searched.
 * addPage() comes before the previous page's charts are destroyed: destroying clears what they drew.
 */
export function renderPdf(figures: Figure[]): Buffer {
  ensureFont();
  const first = figures[0];
  const canvas = createCanvas(first.width, first.height, 'pdf');
  const ctx = canvas.getContext('2d');
  ctx.textDrawingMode = 'glyph';
  let previous: { destroy(): void }[] = [];
  for (const [i, figure] of figures.entries()) {
    if (i > 0) ctx.addPage(figure.width, figure.height);
    previous.forEach((c) => c.destroy());
    previous = drawFigure(ctx, figure, 1);
  }
  const buffer = canvas.toBuffer('application/pdf');
  previous.forEach((c) => c.destroy());
  return buffer;
}

/** Write PNGs and/or the PDF into `outDir`; returns the paths written, in order. */
export function writeFigures(
  figures: Figure[],
  outDir: string,
  formats: ReadonlySet<'png' | 'pdf'>,
  pdfName: string,
): string[] {
  fs.mkdirSync(outDir, { recursive: true });
  const files: string[] = [];
  if (formats.has('pdf') && figures.length > 0) {
    const file = path.join(outDir, pdfName);
    fs.writeFileSync(file, renderPdf(figures));
    files.push(file);
  }
  if (formats.has('png')) {
    for (const figure of figures) {
      const file = path.join(outDir, `${figure.name}.png`);
      fs.writeFileSync(file, renderPng(figure));
      files.push(file);
    }
  }
  return files;
}
