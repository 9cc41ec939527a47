// Pure: report.html in one file (it opens from MLflow's artifact view, an e-mail): figures as embedded PNGs,
// the summary and notes as text, links to the MLflow run and the report's other files.
import type { Figure, Panel } from '../model';

export interface HtmlInput {
  /** In page order; `png` of each figure that has a chart (text-only figures are written as HTML). */
  figures: { figure: Figure; png?: Buffer }[];
  /** The parent MLflow run's page, when tracked. */
  mlflowUrl?: string;
  /** Base names of the files written beside report.html (linked relatively). */
  files: string[];
}

const ESCAPES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
};
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]);

/** Only http(s) URLs become links: anything else read from a run directory stays text. */
const isWebUrl = (text: string) => /^https?:\/\/[^\s"'<>]+$/.test(text);
const linkOrText = (text: string) =>
  isWebUrl(text) ? `<a href="${escapeHtml(text)}">${escapeHtml(text)}</a>` : escapeHtml(text);

const STYLE = `
body { font-family: "DejaVu Sans", Verdana, sans-serif; margin: 24px auto; max-width: 1040px; color: #222; }
h1 { font-size: 22px; } h2 { font-size: 17px; margin-top: 32px; } h3 { font-size: 15px; }
nav a, .links a { margin-right: 12px; }
table { border-collapse: collapse; width: 100%; font-size: 14px; }
th { text-align: left; color: #555; width: 200px; vertical-align: top; padding: 4px 8px 4px 0; }
td { padding: 4px 0; border-bottom: 1px solid #e3e3e3; word-break: break-word; }
img { width: 100%; max-width: 1000px; border: 1px solid #eee; }
li { font-size: 14px; margin: 2px 0; }`;

function textPanel(panel: Exclude<Panel, { kind: 'chart' }>): string {
  if (panel.kind === 'table') {
    const rows = panel.rows.map(([k, v]) => `<tr><th>${escapeHtml(k)}</th><td>${linkOrText(v)}</td></tr>`);
    return `<h3>${escapeHtml(panel.title)}</h3>\n<table>\n${rows.join('\n')}\n</table>`;
  }
  const items = panel.lines.map((l) => `<li>${escapeHtml(l)}</li>`);
  return `<h3>${escapeHtml(panel.title)}</h3>\n<ul>\n${items.join('\n')}\n</ul>`;
}

function section({ figure, png }: HtmlInput['figures'][number]): string {
  const id = `fig-${escapeHtml(figure.name)}`;
  const head = `<section id="${id}">\n<h2>${escapeHtml(figure.title)}</h2>`;
  const textOnly = figure.panels.every((p) => p.kind !== 'chart');
  if (textOnly || !png) {
    const texts = figure.panels.filter((p): p is Exclude<Panel, { kind: 'chart' }> => p.kind !== 'chart');
    return `${head}\n${texts.map(textPanel).join('\n')}\n</section>`;
  }
  const src = `data:image/png;base64,${png.toString('base64')}`;
  return `${head}\n<img alt="${escapeHtml(figure.title)}" src="${src}">\n</section>`;
}

export function reportHtml(input: HtmlInput): string {
  const title = input.figures[0]?.figure.title ?? 'track-launch report';
  const nav = input.figures.map(
    ({ figure }) => `<a href="#fig-${escapeHtml(figure.name)}">${escapeHtml(figure.name)}</a>`,
  );
  const links = [
    input.mlflowUrl && isWebUrl(input.mlflowUrl) ? `MLflow run: ${linkOrText(input.mlflowUrl)}` : '',
    input.files.length
      ? `Files: ${input.files.map((f) => `<a href="${escapeHtml(encodeURIComponent(f))}">${escapeHtml(f)}</a>`).join(' ')}`
      : '',
  ].filter((l) => l !== '');
  return [
    '<!doctype html>',
    '<html lang="en">',
    `<head>\n<meta charset="utf-8">\n<title>${escapeHtml(title)}</title>\n<style>${STYLE}\n</style>\n</head>`,
    '<body>',
    `<h1>${escapeHtml(title)}</h1>`,
    ...links.map((l) => `<p class="links">${l}</p>`),
    `<nav>${nav.join(' ')}</nav>`,
    ...input.figures.map(section),
    '</body>',
    '</html>',
    '',
  ].join('\n');
}
