// report.html: one self-contained page, written beside the PDF by default, with the PNGs embedded (the same
// bytes as the PNG files), the summary as a table, links to the MLflow run and to the files; text escaped.
import * as fs from 'fs';
import * as path from 'path';
import { renderReport } from '../../../reports/report';
import { escapeHtml, reportHtml } from '../../../reports/html/page';
import type { Figure } from '../../../reports/model';
import { POLYNOMIAL_3, tmpDir } from './helpers/check-output';

jest.setTimeout(60_000);

describe('renderReport with the default formats', () => {
  let out: string;
  let html: string;
  let files: string[];
  const url = 'http://mlflow.example:5000/#/experiments/1/runs/0123abcd';
  beforeAll(async () => {
    out = tmpDir('html');
    ({ files } = await renderReport(POLYNOMIAL_3, { out, mlflowUrl: url }));
    html = fs.readFileSync(path.join(out, 'report.html'), 'utf8');
  });

  it('writes the PDF, report.html, then the PNGs', () => {
    expect(files.map((f) => path.basename(f))).toEqual([
      'report.pdf',
      'report.html',
      'summary.png',
      'loss.png',
      'evaluation.png',
      'stragglers.png',
    ]);
  });

  it('embeds each chart figure as the PNG file`s bytes and the summary as a table', () => {
    const embedded = [...html.matchAll(/src="data:image\/png;base64,([^"]+)"/g)].map((m) => m[1]);
    expect(embedded).toEqual(
      ['loss', 'evaluation', 'stragglers'].map((n) =>
        fs.readFileSync(path.join(out, `${n}.png`)).toString('base64'),
      ),
    );
    expect(html).toContain('<tr><th>Final state</th><td>COMPLETED, exit code 0</td></tr>');
    expect(html).not.toMatch(/src="(?!data:)/); // nothing fetched from elsewhere
  });

  it('links the MLflow run and the files beside it', () => {
    expect(html).toContain(`MLflow run: <a href="${url}">`);
    expect(html).toContain(`<tr><th>MLflow</th><td><a href="${url}">`);
    for (const f of ['report.pdf', 'loss.png']) expect(html).toContain(`<a href="${f}">${f}</a>`);
  });

  it('is written alone with --format html, still with the figures embedded', async () => {
    const only = tmpDir('html-only');
    const r = await renderReport(POLYNOMIAL_3, { out: only, formats: ['html'] });
    expect(fs.readdirSync(only)).toEqual(['report.html']);
    expect(r.files).toEqual([path.join(only, 'report.html')]);
    expect(fs.readFileSync(r.files[0], 'utf8').match(/data:image\/png/g)).toHaveLength(3);
  });
});

describe('reportHtml', () => {
  const figure: Figure = {
    name: 'summary',
    title: 'job <b>"x"</b>',
    width: 10,
    height: 10,
    panels: [
      {
        kind: 'table',
        box: { x: 0, y: 0, w: 1, h: 1 },
        title: 'T',
        rows: [['Command', "echo '<script>' & x"]],
      },
    ],
  };

  it('escapes every text from the run directory, and links only http(s) URLs', () => {
    const page = reportHtml({ figures: [{ figure }], files: [], mlflowUrl: 'javascript:alert(1)' });
    expect(page).toContain('<td>echo &#39;&lt;script&gt;&#39; &amp; x</td>');
    expect(page).toContain('<title>job &lt;b&gt;&quot;x&quot;&lt;/b&gt;</title>');
    expect(page).not.toContain('javascript:');
    expect(escapeHtml(`<&>"'`)).toBe('&lt;&amp;&gt;&quot;&#39;');
  });
});
