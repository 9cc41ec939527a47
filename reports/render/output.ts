// Effects: figures -> one PNG per figure (2x density) and one multi-page vector PDF with selectable text.
import { createCanvas, type Canvas } from 'canvas';
import { ensureReportDir, writeReportFile } from '../../core';
import type { Figure } from '../model';
import { drawFigure, redrawFigure, type DrawnFigure } from './draw';
import { ensureFont } from './fonts';

export const PNG_SCALE = 2;
/** zlib level 3, not 6: a third less time encoding, and files within a few percent of the size (lossless). */
const PNG_OPTIONS = { compressionLevel: 3 } as const;

function pngCanvas(figure: Figure): Canvas {
  return createCanvas(figure.width * PNG_SCALE, figure.height * PNG_SCALE);
}

/** Render one PNG; the canvas is dropped afterwards so its pixel buffer can be collected. */
export function renderPng(figure: Figure): Buffer {
  ensureFont();
  const canvas = pngCanvas(figure);
  const drawn = drawFigure(canvas.getContext('2d'), figure, PNG_SCALE, true);
  const buffer = canvas.toBuffer('image/png', PNG_OPTIONS);
  drawn.destroy();
  return buffer;
}

/**
 * All figures as pages of one PDF. Text is drawn as glyphs (not outlines) so it can be selected and searched.
 * addPage() comes before the previous page's charts are destroyed: destroying clears what they drew.
 * `eachPage` is called with each page's drawn figure before it is destroyed (renderBoth draws its PNG there).
 */
export function renderPdf(figures: Figure[], eachPage?: (drawn: DrawnFigure) => void): Buffer {
  ensureFont();
  const first = figures[0];
  const canvas = createCanvas(first.width, first.height, 'pdf');
  const ctx = canvas.getContext('2d');
  ctx.textDrawingMode = 'glyph';
  let previous: DrawnFigure | undefined;
  for (const [i, figure] of figures.entries()) {
    if (i > 0) ctx.addPage(figure.width, figure.height);
    previous?.destroy();
    previous = drawFigure(ctx, figure, 1);
    eachPage?.(previous);
  }
  const buffer = canvas.toBuffer('application/pdf');
  previous?.destroy();
  return buffer;
}

/**
 * The PDF and a PNG per figure with each chart built once: chart.js parses, lays out and updates a chart for
 * its PDF page, and the PNG is drawn from the same chart. The PNGs are the same as renderPng's.
 */
function renderBoth(figures: Figure[], png: (figure: Figure, buffer: Buffer) => void): Buffer {
  return renderPdf(figures, (drawn) => {
    const canvas = pngCanvas(drawn.figure);
    redrawFigure(canvas.getContext('2d'), drawn, PNG_SCALE, true);
    png(drawn.figure, canvas.toBuffer('image/png', PNG_OPTIONS));
  });
}

/** Write PNGs and/or the PDF into `outDir`; returns the paths written, in order. `root`: the run
 *  directory `outDir` is in (its reports/), else `outDir` itself (a directory given with --out). */
export function writeFigures(
  figures: Figure[],
  outDir: string,
  formats: ReadonlySet<'png' | 'pdf'>,
  pdfName: string,
  root = outDir,
): string[] {
  ensureFont(); // before the directory: no font, no empty reports/ left behind
  ensureReportDir(root, outDir);
  const write = (name: string, data: Buffer) => writeReportFile(root, outDir, name, data);
  const pngName = (figure: Figure) => `${figure.name}.png`;
  const pdf = formats.has('pdf') && figures.length > 0;
  if (pdf && formats.has('png')) {
    const pngs: string[] = [];
    const pdfData = renderBoth(figures, (figure, buffer) => pngs.push(write(pngName(figure), buffer)));
    return [write(pdfName, pdfData), ...pngs];
  }
  const files: string[] = [];
  if (pdf) files.push(write(pdfName, renderPdf(figures)));
  if (formats.has('png')) for (const figure of figures) files.push(write(pngName(figure), renderPng(figure)));
  return files;
}
