// Effects: figures -> one PNG per figure (2x density), one multi-page vector PDF with selectable text, and one
// self-contained HTML page.
import * as path from 'path';
import { createCanvas, type Canvas } from 'canvas';
import { ensureReportDir, writeReportFile } from '../../core';
import type { Figure } from '../model';
import { drawFigure, redrawFigure, type DrawnFigure } from './draw';
import { ensureFont } from './fonts';
import { reportHtml } from '../html/page';

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
function renderBoth(figures: Figure[], png: (i: number, buffer: Buffer) => void): Buffer {
  let i = 0;
  return renderPdf(figures, (drawn) => {
    const canvas = pngCanvas(drawn.figure);
    redrawFigure(canvas.getContext('2d'), drawn, PNG_SCALE, true);
    png(i++, canvas.toBuffer('image/png', PNG_OPTIONS));
  });
}

export type OutputFormat = 'pdf' | 'png' | 'html';

/**
 * Write the PDF, PNGs and/or the HTML page into `outDir`; returns the paths written: PDF, HTML, then the PNGs.
 * `root`: the run directory `outDir` is in (its reports/), else `outDir` itself (a directory given with
 * --out). The HTML page is named after the PDF (report.html) and embeds the PNGs, drawn for it when the
 * PNG files are not asked for.
 */
export function writeFigures(
  figures: Figure[],
  outDir: string,
  formats: ReadonlySet<OutputFormat>,
  pdfName: string,
  root = outDir,
  page: { mlflowUrl?: string } = {},
): string[] {
  ensureFont(); // before the directory: no font, no empty reports/ left behind
  ensureReportDir(root, outDir);
  const write = (name: string, data: Buffer) => writeReportFile(root, outDir, name, data);
  const [wantPdf, wantPng, wantHtml] = (['pdf', 'png', 'html'] as const).map(
    (f) => formats.has(f) && figures.length > 0,
  );
  const kept: Buffer[] = []; // each figure's PNG, for the HTML page
  const pngs: string[] = [];
  const onPng = (i: number, buffer: Buffer) => {
    if (wantPng) pngs.push(write(`${figures[i].name}.png`, buffer));
    if (wantHtml) kept[i] = buffer;
  };
  const files: string[] = [];
  if (wantPdf) {
    const pdf = wantPng || wantHtml ? renderBoth(figures, onPng) : renderPdf(figures);
    files.push(write(pdfName, pdf));
  } else if (wantPng || wantHtml) figures.forEach((f, i) => onPng(i, renderPng(f)));
  if (wantHtml) {
    const html = reportHtml({
      figures: figures.map((figure, i) => ({ figure, png: kept[i] })),
      files: [...files, ...pngs].map((f) => path.basename(f)),
      ...(page.mlflowUrl ? { mlflowUrl: page.mlflowUrl } : {}),
    });
    files.push(write(pdfName.replace(/\.pdf$/, '') + '.html', Buffer.from(html, 'utf8')));
  }
  return [...files, ...pngs];
}
