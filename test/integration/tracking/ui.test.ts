// The MLflow UI in headless Chromium, opened as a user does: the experiment link track-launch prints
// (cli/mlflow-link.ts experimentUrl), in a fresh browser profile. MLflow 3.17 opens every experiment in
// a global GenAI or Model training mode (GenAI by default, whatever the experiment's kind tag says), so
// the link asks for the training view. The test fails if the landing view is not the training runs
// table (the GenAI overview, or its "Evaluation runs"). Two jobs of the same script are told apart by
// their names (`poly #<job id>`); each parent hides its 3 rank runs until expanded, then lists them
// right below it. The screenshot goes to test/.artifacts/ (gitignored); UPDATE_DOCS_IMAGES=1 also
// writes it to docs/images/mlflow-ui-training-runs.png, the picture in README (refused under CI).
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium, type Page } from 'playwright-core';
import { syncRunDir } from '../../../tracking-plugin';
import { endJob, jobRecord, makeRunDir, polyLog, rankFacts, writeJob } from '../../unit/tracking/fixture';
import { underCi } from '../../unit/launcher/golden-helper';
import { experimentUrl } from '../../../cli/mlflow-link';
import { appendLines } from './helpers';
import { mlflowUp, uniqueName } from './server';

jest.setTimeout(240_000);
const ARTIFACTS = path.resolve(__dirname, '../../.artifacts');
const DOCS_IMAGE = path.resolve(__dirname, '../../../docs/images/mlflow-ui-training-runs.png');
const updateDocs = process.env.UPDATE_DOCS_IMAGES === '1';

/** A finished 3-rank job of the polynomial script, synced into the experiment; its parent run's id. */
async function syncJob(uri: string, experiment: string, jobId: string, startedAt: number): Promise<string> {
  const dir = await makeRunDir();
  await writeJob(
    dir,
    jobRecord({
      name: 'poly',
      job_id: jobId,
      submitted_at: startedAt - 5,
      state: { name: 'RUNNING', nodes: 'n[1-3]', started_at: startedAt },
    }),
  );
  for (const r of [0, 1, 2]) {
    await appendLines(dir, r, polyLog(r), startedAt + 1);
    // rank 0 starts a moment after the others, so the runs table (newest first) lists rank-0, rank-1, rank-2
    const facts = { ...rankFacts(r), job_id: jobId, started_at: startedAt + 1 - r / 10 };
    await fs.writeFile(path.join(dir, 'logs', `rank-${r}.json`), JSON.stringify(facts));
  }
  await endJob(dir, 'COMPLETED', startedAt + 95);
  const s = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment });
  expect(s.complete).toBe(true);
  await fs.rm(dir, { recursive: true, force: true });
  return String(s.experimentId);
}

/** The grid row (aria-rowindex) that holds the link with this exact text. */
async function rowIndex(page: Page, text: string): Promise<number> {
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: text, exact: true }) });
  return Number(await row.first().getAttribute('aria-rowindex'));
}

test('the experiment link lands on the training runs: jobs told apart, a parent expanded over its rank runs', async () => {
  if (updateDocs && underCi())
    throw new Error(
      `UPDATE_DOCS_IMAGES=1 is refused under CI (CI=${process.env.CI}): the README's picture is a reviewed change; regenerate it locally and commit it`,
    );
  const uri = mlflowUp();
  const experiment = uniqueName('ui');
  const now = Math.floor(Date.now() / 1000);
  const olderId = 4000 + Math.floor(Math.random() * 2500);
  const newerId = olderId + 1 + Math.floor(Math.random() * 2000);
  const experimentId = await syncJob(uri, experiment, String(olderId), now - 1900);
  expect(await syncJob(uri, experiment, String(newerId), now - 400)).toBe(experimentId);
  const [olderName, newerName] = [`poly #${olderId}`, `poly #${newerId}`]; // the parent runs' names

  const profile = await fs.mkdtemp(path.join(os.tmpdir(), 'tl-chromium-'));
  // a fresh profile: playwright takes it as launchPersistentContext's userDataDir (it refuses --user-data-dir in args)
  const browser = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1440, height: 560 },
  });
  try {
    const page = await browser.newPage();
    const link = experimentUrl(uri, experimentId)!;
    expect(link).toBe(`${uri}/#/experiments/${experimentId}?workflowType=machine_learning`);
    await page.goto(link, { waitUntil: 'domcontentloaded', timeout: 60_000 });

    // The landing view is the training runs table, not the GenAI overview (traces, "Detect Issues")
    // nor its "Evaluation runs".
    await page
      .getByRole('heading', { name: 'Runs', exact: true, level: 2 })
      .waitFor({ timeout: 90_000 })
      .catch((err: Error) => {
        throw new Error(
          `the experiment link did not land on the training runs (at ${page.url()}): ${err.message}`,
        );
      });
    expect(page.url()).toMatch(new RegExp(`#/experiments/${experimentId}/runs\\?`));
    expect(new URL(page.url().replace('#/', '')).searchParams.get('workflowType')).toBe('machine_learning');
    await page
      .getByRole('columnheader', { name: 'Run Name', exact: true })
      .first()
      .waitFor({ timeout: 60_000 });
    await page.getByRole('link', { name: 'Models', exact: true }).waitFor({ timeout: 30_000 }); // training's sidebar
    for (const genai of ['Overview', 'Evaluation runs', 'Sessions'])
      expect(await page.getByRole('link', { name: genai, exact: true }).count()).toBe(0);
    expect(await page.getByText('Detect Issues').count()).toBe(0);

    // Both jobs' parent runs, told apart by their job ids; all 8 runs loaded, the rank runs folded away
    // under their parents (were they top-level runs, they would be listed).
    for (const name of [newerName, olderName])
      await page.getByRole('link', { name, exact: true }).waitFor({ timeout: 60_000 });
    await page.getByText(/^\s*8\s*matching runs\s*$/).waitFor({ timeout: 60_000 });
    expect(await page.getByRole('link', { name: /^rank-\d$/ }).count()).toBe(0);

    // Expanding the newer job (the [+] in its name cell) lists its 3 rank runs right below it.
    await page
      .getByRole('gridcell')
      .filter({ has: page.getByRole('link', { name: newerName, exact: true }) })
      .getByRole('button')
      .first()
      .click();
    for (const r of [0, 1, 2])
      await page.getByRole('link', { name: `rank-${r}`, exact: true }).waitFor({ timeout: 30_000 });
    expect(await page.getByRole('link', { name: /^rank-\d$/ }).count()).toBe(3);
    const parentRow = await rowIndex(page, newerName);
    const rankRows = [
      await rowIndex(page, 'rank-0'),
      await rowIndex(page, 'rank-1'),
      await rowIndex(page, 'rank-2'),
    ];
    expect([...rankRows].sort((a, b) => a - b)).toEqual([parentRow + 1, parentRow + 2, parentRow + 3]);
    expect(await rowIndex(page, olderName)).toBe(parentRow + 4);

    // The picture: without the assistant panel MLflow opens beside the table in a fresh profile.
    const close = page.getByRole('button', { name: 'Close', exact: true });
    if (await close.count()) {
      await close.first().click();
      await close.first().waitFor({ state: 'hidden', timeout: 30_000 });
    }
    await fs.mkdir(ARTIFACTS, { recursive: true });
    const shot = path.join(ARTIFACTS, 'mlflow-ui-training-runs.png');
    await page.screenshot({ path: shot });
    expect((await fs.stat(shot)).size).toBeGreaterThan(10_000);
    if (updateDocs) await fs.copyFile(shot, DOCS_IMAGE);
  } finally {
    await browser.close();
    await fs.rm(profile, { recursive: true, force: true });
  }
});
