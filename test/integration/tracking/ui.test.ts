// The MLflow UI in headless Chromium, opened as a user does: from the experiment link track-launch
// prints, in a fresh browser profile. MLflow 3.17 opens every experiment in a global GenAI or Model
// training mode (GenAI by default, whatever the experiment's kind tag says), so the link asks for the
// training view; there the job's parent run hides its 3 rank runs until expanded, then lists them
// right below it. The experiment also carries mlflow.experimentKind=custom_model_development. The screenshot is kept under test/.artifacts/ (gitignored); UPDATE_DOCS_IMAGES=1 also
// writes it to docs/images/mlflow-ui-training-runs.png, the picture in README.
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium } from 'playwright-core';
import { syncRunDir } from '../../../tracking-plugin';
import { endJob, jobRecord, makeRunDir, polyLog, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { experimentUrl } from '../../../cli/mlflow-link';
import { appendLines } from './helpers';
import { mlflowUp, uniqueName } from './server';

jest.setTimeout(240_000);
const ARTIFACTS = path.resolve(__dirname, '../../.artifacts');

test('the MLflow UI shows the parent run and its 3 rank runs', async () => {
  const uri = mlflowUp();
  const dir = await makeRunDir();
  const jobName = uniqueName('ui-job');
  const jobId = String(4000 + Math.floor(Math.random() * 5000));
  const name = `${jobName} #${jobId}`; // the parent run's name
  await writeJob(dir, jobRecord({ name: jobName, job_id: jobId }));
  for (const r of [0, 1, 2]) {
    await appendLines(dir, r, polyLog(r), 1764669000 + r);
    await writeFacts(dir, r);
  }
  await endJob(dir, 'COMPLETED');
  const s = await syncRunDir(dir, { env: { MLFLOW_TRACKING_URI: uri }, experiment: uniqueName('ui') });
  expect(s.complete).toBe(true);

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
    viewport: { width: 1600, height: 900 },
  });
  try {
    const page = await browser.newPage();
    await page.goto(experimentUrl(uri, String(s.experimentId))!, {
      waitUntil: 'domcontentloaded',
      timeout: 60_000,
    });
    await page.getByText(name, { exact: true }).first().waitFor({ timeout: 60_000 });
    // The training runs table, not the GenAI overview (traces, "Detect issues").
    expect(page.url()).toMatch(/#\/experiments\/\d+\/runs\?/);
    expect(await page.getByText('Detect issues').count()).toBe(0);
    // Nested runs are collapsed under their parent: before expanding, no rank run is listed (were
    // they top-level runs, they would be); the [+] button in the parent's name cell shows them.
    await page.waitForTimeout(1000);
    expect(await page.getByText('rank-0', { exact: true }).count()).toBe(0);
    const parentRow = page.locator('[role="row"]', { hasText: name }).first();
    await parentRow.locator('button[data-component-id*="runnamecellrenderer"]').first().click();
    for (const r of [0, 1, 2])
      await page.getByText(`rank-${r}`, { exact: true }).first().waitFor({ timeout: 30_000 });
    // ... and they are listed right below the parent, in the grid's row order.
    const rowIndex = async (text: string) =>
      Number(
        await page
          .locator('[role="row"][aria-rowindex]', { has: page.getByText(text, { exact: true }) })
          .first()
          .getAttribute('aria-rowindex'),
      );
    const parentIndex = await rowIndex(name);
    const rankIndices = [await rowIndex('rank-0'), await rowIndex('rank-1'), await rowIndex('rank-2')];
    expect(rankIndices.every((i) => i > parentIndex && i <= parentIndex + 3)).toBe(true);
    expect(new Set(rankIndices).size).toBe(3);
    await fs.mkdir(ARTIFACTS, { recursive: true });
    const shot = path.join(ARTIFACTS, 'mlflow-ui-training-runs.png');
    await page.screenshot({ path: shot });
    expect((await fs.stat(shot)).size).toBeGreaterThan(10_000);
    if (process.env.UPDATE_DOCS_IMAGES === '1') {
      if (process.env.CI) throw new Error('UPDATE_DOCS_IMAGES is for a developer: CI only checks');
      await fs.copyFile(shot, path.resolve(__dirname, '../../../docs/images/mlflow-ui-training-runs.png'));
    }
  } finally {
    await browser.close();
    await fs.rm(profile, { recursive: true, force: true });
  }
});
