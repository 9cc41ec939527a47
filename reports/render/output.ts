// Effects: figures -> a PNG each (2x density), one vector PDF with selectable text, one HTML page.
import * as path from 'path';
import type { Canvas } from '@napi-rs/canvas';
import { ensureReportDir, writeReportFile } from '../../core';
import type { Figure } from '../model';
import { canvas, type Context2D } from './canvas';
import { drawFigure, redrawFigure, type DrawnFigure } from './draw';
import { ensureFont } from './fonts';
import { reportHtml } from '../html/page';

export type ReportFormat = 'pdf' | 'png' | 'html';

const PNG_SCALE = 2;
/** zlib level 3, not 6: quicker to encode, and lossless all the same. */
const PNG_OPTIONS = { compressionLevel: 3 } as const;

const pngCanvas = (figure: Figure): Canvas =>
  canvas().createCanvas(figure.width * PNG_SCALE, figure.height * PNG_SCALE);

/** All figures as pages of one vector PDF, fonts embedded: its text can be selected and searched.
 *  `eachPage` is called with each page's drawn figure while its page is open, before it is destroyed. */
function renderPdf(figures: Figure[], eachPage?: (drawn: DrawnFigure) => void): Buffer {
  const doc = new (canvas().PDFDocument)({ title: figures[0].title, creator: 'track-launch' });
  for (const figure of figures) {
    // A page's context is the same skia context as a canvas's; its type declaration only omits the extras.
    const page = doc.beginPage(figure.width, figure.height) as Context2D;
    const drawn = drawFigure(page, figure, 1);
    eachPage?.(drawn);
    drawn.destroy();
    doc.endPage();
  }
  return doc.close();
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
  const onPng = (i: number, png: Canvas) => {
    const buffer = png.toBuffer('image/png', PNG_OPTIONS);
    if (wantPng) pngs.push(write(`${figures[i].name}.png`, buffer));
    if (wantHtml) kept[i] = buffer;
  };
  const files: string[] = [];
  if (wantPdf) {
    let i = 0;
    const eachPage = (drawn: DrawnFigure) => {
      const png = pngCanvas(drawn.figure);
      redrawFigure(png.getContext('2d'), drawn, PNG_SCALE);
      onPng(i++, png);
    };
    files.push(write(pdfName, renderPdf(figures, wantPng || wantHtml ? eachPage : undefined)));
  } else if (wantPng || wantHtml)
    figures.forEach((figure, i) => {
      const png = pngCanvas(figure);
      const drawn = drawFigure(png.getContext('2d'), figure, PNG_SCALE);
      onPng(i, png);
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
