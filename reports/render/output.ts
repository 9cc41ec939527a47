// Effects: figures -> a PNG each (2x density), one vector PDF with selectable text, one HTML page.
import * as path from 'path';
import { createCanvas, type Canvas } from 'canvas';
import { ensureReportDir, writeReportFile } from '../../core';
import type { Figure } from '../model';
import { drawFigure, redrawFigure, type DrawnFigure } from './draw';
import { ensureFont } from './fonts';
import { reportHtml } from '../html/page';

export type ReportFormat = 'pdf' | 'png' | 'html';

const PNG_SCALE = 2;
/** zlib level 3, not 6: quicker to encode, and lossless all the same. */
const PNG_OPTIONS = { compressionLevel: 3 } as const;

const pngCanvas = (figure: Figure): Canvas =>
  createCanvas(figure.width * PNG_SCALE, figure.height * PNG_SCALE);

/** All figures as pages of one PDF. Text is drawn as glyphs (not outlines): it can be selected and searched.
 *  addPage() comes before the previous page's charts are destroyed: destroying clears what they drew.
 *  `eachPage` is called with each page's drawn figure before it is destroyed. */
function renderPdf(figures: Figure[], eachPage?: (drawn: DrawnFigure) => void): Buffer {
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

/** Write the PDF, PNGs and/or the HTML page into `outDir`; returns the paths written: PDF, HTML, then PNGs.
 *  `root`: the run directory `outDir` is in (its reports/), else `outDir` itself (a directory given with
 *  --out). The HTML page is named after the PDF (report.html) and embeds the PNGs, drawn for it when the
 *  PNG files are not asked for. With the PDF, each PNG is drawn from the PDF page's charts (built once). */
export function writeFigures(
  figures: Figure[],
  outDir: string,
  formats: Iterable<ReportFormat>,
  pdfName: string,
  root = outDir,
  page: { mlflowUrl?: string } = {},
): string[] {
  ensureFont(); // before the directory: no font, no empty reports/ left behind
  ensureReportDir(root, outDir);
  const write = (name: string, data: Buffer) => writeReportFile(root, outDir, name, data);
  const want = new Set(formats);
  const [wantPdf, wantPng, wantHtml] = (['pdf', 'png', 'html'] as const).map(
    (f) => want.has(f) && figures.length > 0,
  );
  const kept: Buffer[] = []; // each figure's PNG, for the HTML page
  const pngs: string[] = [];
  const onPng = (i: number, canvas: Canvas) => {
    const buffer = canvas.toBuffer('image/png', PNG_OPTIONS);
    if (wantPng) pngs.push(write(`${figures[i].name}.png`, buffer));
    if (wantHtml) kept[i] = buffer;
  };
  const files: string[] = [];
  if (wantPdf) {
    let i = 0;
    const eachPage = (drawn: DrawnFigure) => {
      const canvas = pngCanvas(drawn.figure);
      redrawFigure(canvas.getContext('2d'), drawn, PNG_SCALE, true);
      onPng(i++, canvas);
    };
    files.push(write(pdfName, renderPdf(figures, wantPng || wantHtml ? eachPage : undefined)));
  } else if (wantPng || wantHtml)
    figures.forEach((figure, i) => {
      const canvas = pngCanvas(figure);
      const drawn = drawFigure(canvas.getContext('2d'), figure, PNG_SCALE, true);
      onPng(i, canvas);
      drawn.destroy();
    });
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
