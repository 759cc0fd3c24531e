// `benchbot serve --dashboard`: the same pages as the static site, built
// from the store as they are asked for, behind the pages' CSP.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { startAppServer, type AppServer } from '../../src/app/app-server.ts';
import { bundleDashboard } from '../../scripts/dashboard-bundle.ts';
import { createDashboardHandler } from '../../src/dashboard/dashboard-handler.ts';
import { CONTENT_SECURITY_POLICY } from '../../src/dashboard/index-html.ts';
import { githubRepoUrl } from '../../src/dashboard/read-history.ts';
import { dashboardSeriesId } from '../../src/model/series-id.ts';
import type { OverviewJson, SeriesJson } from '../../src/dashboard/site-model.ts';
import { writeSite, type SiteAssets } from '../../src/dashboard/write-site.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { Store } from '../../src/store/store.ts';
import { chromiumUnavailable, launch, watch } from './browser.ts';
import { seedFixture, type Fixture } from './fixture-store.ts';

const scratch = mkdtempSync(join(tmpdir(), 'benchbot-serve-dashboard-'));
let store: Store;
let server: AppServer;
let fixture: Fixture;
let assets: SiteAssets;
const settings = { title: 'benchbot: example/suite', repoUrl: githubRepoUrl('https://github.com') };

before(async () => {
  await bundleDashboard(join(scratch, 'assets'));
  assets = { js: readFileSync(join(scratch, 'assets', 'dashboard.js'), 'utf8'), css: readFileSync(join(scratch, 'assets', 'dashboard.css'), 'utf8') };
  store = await openStore(join(scratch, 'history.db'), { cwd: scratch, env: {} });
  fixture = await seedFixture(store);
  server = await startAppServer({
    githubToken: 'unused', secret: 'unused', apiUrl: 'http://127.0.0.1:9', store, botLogin: 'benchbot[bot]', logLevel: 'fatal',
    dashboard: createDashboardHandler({ store, assets, settings }),
  });
});
after(async () => {
  await server?.close();
  await store?.close();
  rmSync(scratch, { recursive: true, force: true });
});

test('GET /dashboard/ serves the pages and their data from the store, with the CSP', async () => {
  const moved = await fetch(`${server.url}/dashboard`, { redirect: 'manual' });
  assert.equal(moved.status, 301);
  assert.equal(moved.headers.get('location'), '/dashboard/');
  const page = await fetch(`${server.url}/dashboard/`);
  assert.equal(page.status, 200);
  assert.equal(page.headers.get('content-security-policy'), CONTENT_SECURITY_POLICY);
  assert.equal(page.headers.get('x-content-type-options'), 'nosniff');
  assert.match(await page.text(), /<script src="dashboard.js" defer><\/script>/);
  const overview = (await (await fetch(`${server.url}/dashboard/data/overview.json`)).json()) as OverviewJson;
  assert.equal(overview.rows.length, fixture.seriesCount);

  // The same rows as the static site of the same store.
  await writeSite(store, join(scratch, 'site'), { ...settings, generated: overview.generated }, assets);
  const written = JSON.parse(readFileSync(join(scratch, 'site', 'data', 'overview.json'), 'utf8')) as OverviewJson;
  assert.deepEqual(overview.rows, written.rows);

  const id = dashboardSeriesId('example/suite', `main:${fixture.issue.benchmark}:real_time:${fixture.machine}`);
  const series = (await (await fetch(`${server.url}/dashboard/data/series/${id}.json`)).json()) as SeriesJson;
  assert.deepEqual(series, JSON.parse(readFileSync(join(scratch, 'site', 'data', 'series', `${id}.json`), 'utf8')));
  assert.equal((await fetch(`${server.url}/dashboard/data/series/0000000000000000.json`)).status, 404);
  assert.equal((await fetch(`${server.url}/dashboard/data/series/..%2F..%2Fhistory.db`)).status, 404);
  assert.equal((await fetch(`${server.url}/dashboard/`, { method: 'POST', body: 'x' })).status, 404, 'a POST is not the dashboard\'s');
  assert.equal((await fetch(`${server.url}/healthz`)).status, 200, 'the app\'s own routes still answer');
});

test('the served pages work in chromium under the CSP header', { skip: chromiumUnavailable() }, async () => {
  const browser = await launch();
  try {
    const w = await watch(browser);
    const id = dashboardSeriesId('example/suite', `main:${fixture.issue.benchmark}:real_time:${fixture.machine}`);
    await w.page.goto(`${server.url}/dashboard/#/series/${id}`);
    await w.page.waitForSelector('body[data-ready="series"]', { timeout: 15_000 });
    assert.equal(await w.page.textContent('h2'), fixture.issue.benchmark);
    await w.page.click('text=← All series');
    await w.page.waitForSelector('body[data-ready="overview"]');
    assert.deepEqual([w.problems, w.dialogs], [[], []]);
  } finally {
    await browser.close();
  }
});
