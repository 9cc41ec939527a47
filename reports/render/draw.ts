// Draws one Figure onto a page context: white background, title, then each panel in its box.
import { Chart, registerables } from 'chart.js';
import type { CanvasRenderingContext2D } from 'canvas';
import type { Box, Figure, Panel } from '../model';
import { FONT_FAMILY } from './fonts';
import { panelCanvas, type PanelCanvas } from './panel-canvas';

let chartReady = false;
function setupChart(): void {
  if (chartReady) return;
  Chart.register(...registerables);
  Chart.defaults.font.family = FONT_FAMILY;
  Chart.defaults.color = '#222';
  Chart.defaults.animation = false;
  Chart.defaults.responsive = false;
  chartReady = true;
}

/** A figure drawn once: its charts, laid out, which redrawFigure() draws again on another page. */
export interface DrawnFigure {
  figure: Figure;
  /** Per panel, in order: its chart and stand-in canvas (undefined for tables and notes). */
  charts: ({ chart: Chart; canvas: PanelCanvas } | undefined)[];
  /** Destroy the charts; a PDF page's charts only once the next page is added (see renderPdf). */
  destroy(): void;
}

/**
 * Draw `figure` at `scale` (`raster`: onto a PNG's pixels, where long lines are stroked in pieces). chart.js
 * builds each chart here: parses, lays out and updates its elements, then draws.
 */
export function drawFigure(
  page: CanvasRenderingContext2D,
  figure: Figure,
  scale: number,
  raster = false,
): DrawnFigure {
  setupChart();
  paintPage(page, figure, scale);
  const charts = figure.panels.map((panel) => {
    if (panel.kind !== 'chart') {
      drawText(page, panel, scale);
      return undefined;
    }
    const canvas = panelCanvas(page, panel.box, scale, raster);
    const options = {
      ...panel.config.options,
      responsive: false,
      animation: false as const,
      devicePixelRatio: 1,
    };
    // chart.js only needs width, height and getContext(); the cast is what its DOM-typed signature requires.
    const chart = new Chart(canvas as unknown as ConstructorParameters<typeof Chart>[0], {
      ...panel.config,
      options,
    });
    return { chart, canvas };
  });
  return { figure, charts, destroy: () => charts.forEach((c) => c?.chart.destroy()) };
}

/**
 * Draw an already drawn figure again on another page, e.g. the PDF page's charts into the PNG: chart.js
 * only draws (its layout is in CSS pixels, and text measures the same on PDF and image pages).
 */
export function redrawFigure(
  page: CanvasRenderingContext2D,
  drawn: DrawnFigure,
  scale: number,
  raster = false,
): void {
  paintPage(page, drawn.figure, scale);
  drawn.figure.panels.forEach((panel, i) => {
    const c = drawn.charts[i];
    if (panel.kind !== 'chart') drawText(page, panel, scale);
    else if (c) {
      c.canvas.retarget(page, scale, raster);
      c.chart.draw();
    }
  });
}

/** White background and the figure's title. */
function paintPage(page: CanvasRenderingContext2D, figure: Figure, scale: number): void {
  page.setTransform(scale, 0, 0, scale, 0, 0);
  page.fillStyle = '#ffffff';
  page.fillRect(0, 0, figure.width, figure.height);
  page.fillStyle = '#111';
  page.font = `bold 18px "${FONT_FAMILY}"`;
  page.textBaseline = 'top';
  page.textAlign = 'left';
  page.fillText(figure.title, 20, 14);
}

function drawText(
  page: CanvasRenderingContext2D,
  panel: Exclude<Panel, { kind: 'chart' }>,
  scale: number,
): void {
  page.setTransform(scale, 0, 0, scale, scale * panel.box.x, scale * panel.box.y);
  if (panel.kind === 'table') drawTable(page, panel.box, panel.title, panel.rows);
  else drawNote(page, panel.box, panel.title, panel.lines);
  page.setTransform(scale, 0, 0, scale, 0, 0);
}

function drawTable(ctx: CanvasRenderingContext2D, box: Box, title: string, rows: [string, string][]): void {
  ctx.textBaseline = 'top';
  ctx.fillStyle = '#111';
  ctx.font = `bold 15px "${FONT_FAMILY}"`;
  ctx.fillText(title, 0, 0);
  const labelWidth = Math.min(220, box.w * 0.35);
  let y = 30;
  for (const [label, value] of rows) {
    if (y + 20 > box.h) break;
    ctx.fillStyle = '#555';
    ctx.font = `bold 13px "${FONT_FAMILY}"`;
    ctx.fillText(label, 0, y);
    ctx.fillStyle = '#111';
    ctx.font = `13px "${FONT_FAMILY}"`;
    ctx.fillText(fit(ctx, value, box.w - labelWidth), labelWidth, y);
    ctx.strokeStyle = '#e3e3e3';
    ctx.beginPath();
    ctx.moveTo(0, y + 19.5);
    ctx.lineTo(box.w, y + 19.5);
    ctx.stroke();
    y += 24;
  }
}

function drawNote(ctx: CanvasRenderingContext2D, box: Box, title: string, lines: string[]): void {
  ctx.textBaseline = 'top';
  ctx.fillStyle = '#111';
  ctx.font = `bold 15px "${FONT_FAMILY}"`;
  ctx.fillText(title, 0, 0);
  ctx.font = `13px "${FONT_FAMILY}"`;
  ctx.fillStyle = '#333';
  lines.forEach((line, i) => ctx.fillText(fit(ctx, line, box.w), 0, 30 + i * 20));
}

/** Shorten `text` with an ellipsis so it fits in `width`. */
function fit(ctx: CanvasRenderingContext2D, text: string, width: number): string {
  if (ctx.measureText(text).width <= width) return text;
  let lo = 0;
  let hi = text.length;
  while (lo < hi) {
    const mid = Math.ceil((lo + hi) / 2);
    if (ctx.measureText(text.slice(0, mid) + '…').width <= width) lo = mid;
    else hi = mid - 1;
  }
  return text.slice(0, lo) + '…';
}
