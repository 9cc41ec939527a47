// The MLflow UI in headless Chromium shows the parent run with its 3 rank runs nested under it
// (hidden until the parent is expanded, then listed right below it).
// The screenshot is kept under test/.artifacts/ (gitignored).
import { promises as fs } from 'fs';
import * as os from 'os';
import * as path from 'path';
import { chromium } from 'playwright-core';
import { syncRunDir } from '../../../tracking-plugin';
import { endJob, jobRecord, makeRunDir, polyLog, writeFacts, writeJob } from '../../unit/tracking/fixture';
import { appendLines } from './helpers';
import { mlflowUp, uniqueName } from './server';

jest.setTimeout(240_000);
const ARTIFACTS = path.resolve(__dirname, '../../.artifacts');

test('the MLflow UI shows the parent run and its 3 rank runs', async () => {
  const uri = mlflowUp();
  const dir = await makeRunDir();
  const name = uniqueName('ui-job');
  await writeJob(dir, jobRecord({ name, job_id: uniqueName('ui') }));
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
    await page.goto(`${uri}/#/experiments/${s.experimentId}/runs`, {
      waitUntil: 'domcontentloaded',
      timeout: 60_000,
    });
    await page.getByText(name, { exact: true }).first().waitFor({ timeout: 60_000 });
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
    const shot = path.join(ARTIFACTS, 'mlflow-ui-nested-runs.png');
    await page.screenshot({ path: shot, fullPage: true });
    expect((await fs.stat(shot)).size).toBeGreaterThan(10_000);
  } finally {
    await browser.close();
    await fs.rm(profile, { recursive: true, force: true });
  }
});
