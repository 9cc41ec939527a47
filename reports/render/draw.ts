// Draws one Figure onto a page context: white background, title, then each panel in its box.
import { Chart, registerables } from 'chart.js';
import { TABLE, type Figure, type Panel } from '../model';
import type { Context2D } from './canvas';
import { FONT_FAMILY } from './fonts';
import { panelCanvas, type PanelCanvas } from './panel-canvas';

let chartReady = false;
function setupChart(): void {
  if (chartReady) return;
  Chart.register(...registerables);
  Chart.defaults.font.family = FONT_FAMILY;
  Chart.defaults.color = '#222';
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

/** Draw `figure` at `scale`, building its charts. */
export function drawFigure(page: Context2D, figure: Figure, scale: number): DrawnFigure {
  setupChart();
  paintPage(page, figure, scale);
  const charts = figure.panels.map((panel) => {
    if (panel.kind !== 'chart') {
      drawText(page, panel, scale);
      return undefined;
    }
    const canvas = panelCanvas(page, panel.box, scale);
    // chart.js only needs width, height and getContext(); the cast is what its DOM-typed signature requires.
    const chart = new Chart(canvas as unknown as ConstructorParameters<typeof Chart>[0], {
      ...panel.config,
      options: { ...panel.config.options, devicePixelRatio: 1 },
    });
    return { chart, canvas };
  });
  return { figure, charts, destroy: () => charts.forEach((c) => c?.chart.destroy()) };
}

/** Draw an already drawn figure again on another page (the PDF page's charts into the PNG), no new layout. */
export function redrawFigure(page: Context2D, drawn: DrawnFigure, scale: number): void {
  paintPage(page, drawn.figure, scale);
  drawn.figure.panels.forEach((panel, i) => {
    const c = drawn.charts[i];
    if (panel.kind !== 'chart') drawText(page, panel, scale);
    else if (c) {
      c.canvas.retarget(page, scale);
      c.chart.draw();
    }
  });
}

/** White background and the figure's title. Ligatures off: a PDF's "fi" is then extracted as two letters. */
function paintPage(page: Context2D, figure: Figure, scale: number): void {
  page.fontVariantLigatures = 'none';
  page.setTransform(scale, 0, 0, scale, 0, 0);
  page.fillStyle = '#ffffff';
  page.fillRect(0, 0, figure.width, figure.height);
  page.fillStyle = '#111';
  page.font = `bold 18px "${FONT_FAMILY}"`;
  page.textBaseline = 'top';
  page.textAlign = 'left';
  page.fillText(figure.title, 20, 14);
}

/** A table (label, value rows) or a note (lines) under a bold title, in the panel's box. */
function drawText(page: Context2D, panel: Exclude<Panel, { kind: 'chart' }>, scale: number): void {
  const { box } = panel;
  page.setTransform(scale, 0, 0, scale, scale * box.x, scale * box.y);
  page.textBaseline = 'top';
  page.fillStyle = '#111';
  page.font = `bold 15px "${FONT_FAMILY}"`;
  page.fillText(panel.title, 0, 0);
  if (panel.kind === 'note') {
    page.font = `13px "${FONT_FAMILY}"`;
    page.fillStyle = '#333';
    panel.lines.forEach((line, i) => page.fillText(fit(page, line, box.w), 0, 30 + i * 20));
  } else {
    const labelWidth = Math.min(220, box.w * 0.35);
    let y = 30;
    for (const [label, value] of panel.rows) {
      if (y + 20 > box.h) break;
      page.fillStyle = '#555';
      page.font = `bold 13px "${FONT_FAMILY}"`;
      page.fillText(label, 0, y);
      page.fillStyle = '#111';
      page.font = `13px "${FONT_FAMILY}"`;
      const lines = value.split('\n'); // the spec wrapped long values (tableHeight)
      lines.forEach((line, i) =>
        page.fillText(fit(page, line, box.w - labelWidth), labelWidth, y + i * TABLE.valueLine),
      );
      const bottom = y + (lines.length - 1) * TABLE.valueLine + 19.5;
      page.strokeStyle = '#e3e3e3';
      page.beginPath();
      page.moveTo(0, bottom);
      page.lineTo(box.w, bottom);
      page.stroke();
      y = bottom + TABLE.row - 19.5;
    }
  }
  page.setTransform(scale, 0, 0, scale, 0, 0);
}

/** Shorten `text` with an ellipsis so it fits in `width`. */
function fit(ctx: Context2D, text: string, width: number): string {
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
