/// <reference lib="dom" />
// The dashboard as a person uses it: Debian's chromium (playwright-core,
// never a downloaded browser) against the site `benchbot dashboard` wrote
// from the generated fixture store (fixture-store.ts), served on loopback.
// Screenshots of the overview and of a series page are compared with
// golden images (test/dashboard/golden, UPDATE_GOLDEN=1 rewrites them) and
// saved for CI to upload (BENCHBOT_ARTIFACTS, default test-results/).
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Browser, Page } from 'playwright-core';
import { nightSha, nightTime } from '../../bench/history-generator.ts';
import { bundleDashboard } from '../../scripts/dashboard-bundle.ts';
import { githubRepoUrl } from '../../src/dashboard/read-history.ts';
import { dashboardSeriesId } from '../../src/model/series-id.ts';
import { writeSite } from '../../src/dashboard/write-site.ts';
import { renderRegressionIssue } from '../../src/report/regression-issue.ts';
import type { ScanFinding } from '../../src/scan/scan-finding.ts';
import { main } from '../../src/cli/main.ts';
import { openStore } from '../../src/store/open-store.ts';
import { chromiumUnavailable, launch, serveDirectory, watch, type Watched } from './browser.ts';
import { HOSTILE, SHAPE, seedFixture, type Fixture } from './fixture-store.ts';
import { decodePng, imageDifference } from './png.ts';

const GOLDEN = join(import.meta.dirname, 'golden');
const ARTIFACTS = process.env.BENCHBOT_ARTIFACTS ?? join(import.meta.dirname, '../../test-results/dashboard');
/** MAX_DIFFERENCE is the share of pixels a screenshot may differ from its golden image by (fonts, anti-aliasing). */
const MAX_DIFFERENCE = 0.01;

const noBrowser = chromiumUnavailable();
if (noBrowser) console.log(`# skipping the dashboard browser tests: ${noBrowser}`);

describe('the dashboard in chromium', { skip: noBrowser }, () => {
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-dashboard-'));
  let fixture: Fixture;
  /** scanned: what `benchbot scan --output json` decided on the fixture store, by series key. */
  let scanned: { confirmed: string[]; awaiting: string[] };
  let site: Awaited<ReturnType<typeof serveDirectory>>;
  let browser: Browser;
  const id = (benchmark: string, machine = fixture.machine) => dashboardSeriesId('example/suite', `main:${benchmark}:real_time:${machine}`);
  const day = (night: number) => nightTime(SHAPE, night).slice(0, 10);

  before(async () => {
    const assets = join(scratch, 'assets');
    await bundleDashboard(assets);
    const store = await openStore(join(scratch, 'history.db'), { cwd: scratch, env: {} });
    try {
      fixture = await seedFixture(store);
      await writeSite(store, join(scratch, 'site'), { title: 'benchbot: example/suite', generated: '2025-04-01T00:00:00Z', repoUrl: githubRepoUrl('https://github.com') }, {
        js: readFileSync(join(assets, 'dashboard.js'), 'utf8'),
        css: readFileSync(join(assets, 'dashboard.css'), 'utf8'),
      });
    } finally {
      await store.close();
    }
    const out: string[] = [];
    await main(['scan', '--store', join(scratch, 'history.db'), '--repository', 'example/suite', '--output', 'json'], (t) => out.push(t) > 0, () => true);
    const json = JSON.parse(out.join('\n')) as { findings: { series: string; kind: string; direction: string }[]; awaiting: { series: string }[] };
    scanned = { confirmed: json.findings.filter((f) => f.kind !== 'watch' && f.direction === 'regression').map((f) => f.series), awaiting: json.awaiting.map((f) => f.series) };
    site = await serveDirectory(join(scratch, 'site'));
    browser = await launch();
    mkdirSync(ARTIFACTS, { recursive: true });
  });
  after(async () => {
    await browser?.close();
    await site?.close();
    rmSync(scratch, { recursive: true, force: true });
  });

  /** open loads a route and waits until the page says it is drawn. */
  async function open(route: string, ready: string): Promise<Watched> {
    const w = await watch(browser);
    await w.page.goto(`${site.url}${route}`);
    await w.page.waitForSelector(`body[data-ready="${ready}"]`, { timeout: 15_000 });
    return w;
  }

  async function done(w: Watched): Promise<void> {
    assert.deepEqual(w.problems, [], 'no console error or warning, no page error, no failed request');
    assert.deepEqual(w.dialogs, [], 'no dialog opened');
    await w.page.close();
  }

  const rowNames = (page: Page) => page.$$eval('tbody a.row-link', (as) => as.map((a) => a.textContent));

  test('the overview lists every seeded series, the regressions the scan confirmed first', async () => {
    const w = await open('', 'overview');
    assert.match(await w.page.textContent('caption') ?? '', new RegExp(`of ${fixture.seriesCount} series, page 1 of 4`));
    assert.equal((await rowNames(w.page)).length, 100);
    const regressions = await w.page.$$eval('tr.status-regression a.row-link', (as) => as.map((a) => a.textContent));
    const expected = fixture.steps.filter((s) => s.ratio > 1 && s.benchmark !== fixture.acked.benchmark).map((s) => s.benchmark);
    assert.deepEqual([...regressions].sort(), [...expected].sort(), 'the unacknowledged steps for the worse, and nothing else');
    assert.deepEqual([...regressions].sort(), scanned.confirmed.map((k) => k.split(':')[1]).sort(), 'what benchbot scan confirmed');
    assert.deepEqual(await w.page.$$eval('tr.status-regression .badge', (bs) => [...new Set(bs.map((b) => b.textContent))]), ['regression']);
    assert.deepEqual((await rowNames(w.page)).slice(0, regressions.length).sort(), [...expected].sort(), 'shown first');
    assert.equal(await w.page.$$eval('h1, h2', (hs) => hs.map((x) => x.tagName).join()), 'H1,H2', 'real headings');
    await done(w);
  });

  test('a finding the scan has not confirmed is no regression: it reads "awaiting A/B" and says which A/B it waits for', async () => {
    assert.ok(scanned.awaiting.length > 0, 'the fixture history leaves a finding awaiting its interleaved A/B');
    const w = await open('#/?q=awaiting', 'overview');
    const rows = await w.page.$$eval('tbody tr', (trs) => trs.map((tr) => ({
      cls: tr.className, name: tr.querySelector('a.row-link')?.textContent, badge: tr.querySelector('.badge')?.textContent, title: tr.querySelector('.badge')?.getAttribute('title'),
    })));
    assert.deepEqual(rows.map((r) => r.name).sort(), [...new Set(scanned.awaiting.filter((k) => !scanned.confirmed.includes(k)).map((k) => k.split(':')[1]))].sort());
    for (const r of rows) {
      assert.equal(r.cls, 'status-awaiting');
      assert.equal(r.badge, 'awaiting A/B');
      assert.match(r.title ?? '', /waits for (the|one more) interleaved A\/B (session )?of [0-9a-f]{10} against [0-9a-f]{10}/);
    }
    await w.page.click('a.row-link');
    await w.page.waitForSelector('body[data-ready="series"]');
    assert.equal(await w.page.locator('.annotations li.regression').count(), 0, 'no regression on its page either');
    assert.match(await w.page.textContent('.annotations li.awaiting') ?? '', /^awaiting A\/B \d{4}-\d{2}-\d{2}: .*waits for/);
    await done(w);
  });

  test('the filter narrows 304 series as you type, and the URL keeps it', async () => {
    const w = await open('', 'overview');
    await w.page.fill('#filter', 'bench-arm');
    assert.deepEqual((await rowNames(w.page)).sort(), ['BM_Hash/small/16', 'BM_Parse/small/16', 'BM_Sort/small/16'], 'the second machine runs three benchmarks');
    await w.page.fill('#filter', `${fixture.acked.benchmark} bench-1`);
    assert.deepEqual(await rowNames(w.page), [fixture.acked.benchmark]);
    assert.equal(await w.page.textContent('tr .badge'), 'steady', 'an acknowledged step is no regression');
    assert.match(new URL(w.page.url()).hash, /^#\/\?q=/);
    await w.page.reload();
    await w.page.waitForSelector('body[data-ready="overview"]');
    assert.deepEqual(await rowNames(w.page), [fixture.acked.benchmark], 'a reload (or a shared link) shows the same rows');
    await w.page.fill('#filter', 'no such benchmark');
    assert.equal(await w.page.textContent('caption'), 'No series match the filter.');
    await done(w);
  });

  test('the overview works from the keyboard: / to the filter, arrows between rows, Enter opens one', async () => {
    const w = await open('', 'overview');
    await w.page.keyboard.press('/');
    assert.equal(await w.page.evaluate(() => document.activeElement?.id), 'filter');
    const names = await rowNames(w.page);
    await w.page.keyboard.press('ArrowDown');
    assert.equal(await w.page.evaluate(() => document.activeElement?.textContent), names[0]);
    await w.page.keyboard.press('ArrowDown');
    assert.equal(await w.page.evaluate(() => document.activeElement?.textContent), names[1]);
    await w.page.keyboard.press('End');
    await w.page.keyboard.press('ArrowDown');
    assert.equal(await w.page.evaluate(() => document.activeElement?.textContent), names.length === 100 ? (await rowNames(w.page))[0] : undefined, 'past the last row: the next page');
    assert.match(await w.page.textContent('caption') ?? '', /page 2 of 4/);
    await w.page.keyboard.press('ArrowUp');
    await w.page.keyboard.press('Home');
    const first = await w.page.evaluate(() => document.activeElement?.textContent);
    await w.page.keyboard.press('Enter');
    await w.page.waitForSelector('body[data-ready="series"]');
    assert.equal(await w.page.textContent('h2'), first);
    await done(w);
  });

  test('a series page draws the chart with the change point at the night of the step', async () => {
    const step = fixture.issue;
    const w = await open(`#/series/${id(step.benchmark)}`, 'series');
    assert.equal(await w.page.textContent('h2'), step.benchmark);
    const first = await w.page.textContent('.annotations li.regression');
    assert.ok(first?.includes(`${day(step.night)}:`) && first.includes(step.sha.slice(0, 10)), `the change point is the step's night ${day(step.night)}: ${first}`);
    // Where it lives: the command that profiles the benchmark across the change (issue 23).
    assert.match(await w.page.textContent('.annotations li.regression .profile code') ?? '', new RegExp(`^benchbot profile --base [0-9a-f]{40} --head ${step.sha} --bench CMD --benchmark `));
    // On the canvas: the regression mark (vermillion) is drawn where that night is on the time axis.
    const found = await w.page.evaluate(({ from, at, to }) => {
      const over = document.querySelector('.u-over') as HTMLElement;
      const canvas = document.querySelector('.chart canvas') as HTMLCanvasElement;
      const box = over.getBoundingClientRect();
      const cbox = canvas.getBoundingClientRect();
      const expected = box.left - cbox.left + ((at - from) / (to - from)) * box.width;
      const ctx = canvas.getContext('2d') as CanvasRenderingContext2D;
      const { data, width, height } = ctx.getImageData(0, 0, canvas.width, canvas.height);
      const scale = canvas.width / cbox.width;
      const columns: number[] = [];
      for (let x = 0; x < width; x++) {
        let hits = 0;
        for (let y = 0; y < height; y++) {
          const i = (y * width + x) * 4;
          if (Math.abs(data[i] - 0xd5) < 12 && Math.abs(data[i + 1] - 0x5e) < 12 && data[i + 2] < 20) hits++;
        }
        if (hits > 20) columns.push(x / scale);
      }
      return { expected, columns };
    }, { from: Date.parse(nightTime(SHAPE, 0)), at: Date.parse(nightTime(SHAPE, step.night)), to: Date.parse(nightTime(SHAPE, SHAPE.nights - 1)) });
    assert.ok(found.columns.length > 0 && found.columns.every((x) => Math.abs(x - found.expected) <= 3), `mark at ${found.columns.join(', ')} px, night ${step.night} is at ${found.expected.toFixed(1)} px`);
    assert.equal(await w.page.$$eval('details.data tbody tr', (rows) => rows.length), SHAPE.nights, 'the table alternative holds every night shown');
    assert.match(await w.page.getAttribute('#chart', 'aria-label') ?? '', /90 nights, 1 marked changes/);
    // The regression issue and the culprit bisection named, as text and links.
    assert.equal(await w.page.getAttribute(`a[href="${step.url}"]`, 'href'), step.url);
    assert.ok((await w.page.textContent('.annotations li.issue'))?.includes(step.culprit.subject), 'the culprit subject shows as text, markup and all');
    assert.equal(await w.page.getAttribute('a[href$="/pull/4199"]', 'href'), 'https://github.com/example/suite/pull/4199');
    await done(w);
  });

  test('a night shows its raw samples on click and with the arrow keys', async () => {
    const w = await open(`#/series/${id(fixture.issue.benchmark)}`, 'series');
    const box = await w.page.locator('.u-over').boundingBox();
    assert.ok(box);
    await w.page.mouse.click(box.x + box.width - 1, box.y + box.height / 2);
    assert.equal(await w.page.textContent('#night-title'), `Night of ${day(SHAPE.nights - 1)}`);
    const samples = (await w.page.textContent('.samples .values')) ?? '';
    assert.equal(samples.split(', ').length, SHAPE.samples);
    await w.page.focus('#chart');
    await w.page.keyboard.press('ArrowLeft');
    assert.equal(await w.page.textContent('#night-title'), `Night of ${day(SHAPE.nights - 2)}`);
    await done(w);
  });

  test('zoom and pan keep a permalink to the time range', async () => {
    const w = await open(`#/series/${id(fixture.issue.benchmark)}`, 'series');
    await w.page.click('text=30 nights');
    const hash = new URL(w.page.url()).hash;
    assert.match(hash, /from=\d{4}-\d{2}-\d{2}&to=\d{4}-\d{2}-\d{2}/);
    const shown = await w.page.textContent('#range');
    assert.equal(await w.page.$$eval('details.data tbody tr', (rows) => rows.length), 30);
    await w.page.reload();
    await w.page.waitForSelector('body[data-ready="series"]');
    assert.equal(await w.page.textContent('#range'), shown, 'the link shows the same nights');
    await w.page.click('text=← Earlier');
    assert.notEqual(await w.page.textContent('#range'), shown);
    await done(w);
  });

  test('the link in a regression issue lands on that series, at the change', async () => {
    const step = fixture.issue;
    const series = `main:${step.benchmark}:real_time:${fixture.machine}`;
    const finding = {
      series, benchmark: step.benchmark, metric: 'real_time', unit: 'ns', better: 'lower', machineKey: fixture.machine, branch: 'main', kind: 'change-point', direction: 'regression',
      ratio: step.ratio, ratioCi: null, p: 1e-6, q: 1e-6, lastGood: { sha: nightSha(SHAPE.seed ?? 1, step.night - 1), time: nightTime(SHAPE, step.night - 1) }, firstBad: { sha: step.sha, time: nightTime(SHAPE, step.night) },
      nightsSince: SHAPE.nights - step.night, before: { nights: 5, n: 50, median: 1 }, after: { nights: 5, n: 50, median: 1 },
      trend: [step.night - 5, step.night + 5].map((n) => ({ sha: nightSha(SHAPE.seed ?? 1, n), time: nightTime(SHAPE, n), median: 1 })),
    } as ScanFinding;
    const body = renderRegressionIssue({ finding, owner: 'example', repo: 'suite', dashboardUrl: site.url }).body;
    const link = /\[Every night of this series on the dashboard\]\(<([^>]+)>\)/.exec(body)?.[1];
    assert.ok(link, body);
    const w = await watch(browser);
    await w.page.goto(link);
    await w.page.waitForSelector('body[data-ready="series"]');
    assert.equal(await w.page.textContent('h2'), step.benchmark);
    assert.equal(await w.page.textContent('#range'), `Showing ${day(step.night - 5)} to ${day(step.night + 5)}.`);
    assert.ok((await w.page.textContent('details.data tbody'))?.includes('regression'), 'the change is in the range shown');
    await done(w);
  });

  test('a hostile benchmark name is text everywhere: no element, no dialog, no javascript: link', async () => {
    const w = await open(`#/?q=${encodeURIComponent('onerror')}`, 'overview');
    assert.deepEqual(await rowNames(w.page), [HOSTILE]);
    assert.equal(await w.page.locator('main img').count(), 0);
    await w.page.click('a.row-link');
    await w.page.waitForSelector('body[data-ready="series"]');
    assert.equal(await w.page.textContent('h2'), HOSTILE);
    assert.equal(await w.page.locator('img').count(), 0);
    assert.equal(await w.page.locator('a[href^="javascript"]').count(), 0, 'the issue record\'s javascript: URL is not a link');
    assert.ok((await w.page.textContent('.annotations'))?.includes('regression issue #13'));
    assert.equal(await w.page.title(), `${HOSTILE} (real_time) · benchbot: example/suite`);
    await w.page.waitForTimeout(200);
    await done(w);
  });

  test('an acknowledged change is marked with its reason, not as a regression', async () => {
    const w = await open(`#/series/${id(fixture.acked.benchmark)}`, 'series');
    const ack = await w.page.textContent('.annotations li.ack');
    assert.ok(ack?.includes(day(fixture.acked.night)) && ack.includes(fixture.acked.reason), ack ?? '');
    assert.equal(await w.page.locator('.annotations li.regression').count(), 0);
    await done(w);
  });

  test('a machine selector switches between runners of the same benchmark', async () => {
    const w = await open(`#/series/${id('BM_Sort/small/16')}`, 'series');
    assert.deepEqual(await w.page.$$eval('#machine option', (os) => os.map((o) => o.textContent)), ['bench-1', 'bench-arm']);
    await w.page.selectOption('#machine', { label: 'bench-arm' });
    await w.page.waitForFunction((target) => location.hash === `#/series/${target}` && document.body.dataset.ready === 'series', id('BM_Sort/small/16', fixture.secondMachine));
    assert.match(await w.page.textContent('dl.meta') ?? '', /bench-arm/);
    await done(w);
  });

  test('PR runs are listed with their recomputed verdicts and a link to the pull request', async () => {
    const w = await open('#/prs', 'prs');
    const rows = await w.page.$$eval('table.prs tbody tr', (trs) => trs.map((tr) => Array.from(tr.children).map((c) => c.textContent)));
    assert.equal(rows.length, 2);
    assert.deepEqual(rows[1].slice(0, 1).concat(rows[1].slice(5, 9)), ['#77', '1', '0', '2', '0']);
    assert.match(rows[1][9] ?? '', /^BM_Hash\/small\/16 \(real_time\) \+1\d(\.\d)?%$/);
    assert.equal(await w.page.getAttribute('a[href$="/pull/77"]', 'href'), 'https://github.com/example/suite/pull/77');
    assert.equal(rows[0][0], 'faster-hash', 'without a /bench record the run is named by its branch');
    await done(w);
  });

  test('screenshots of the overview and a series page match the golden images', async () => {
    for (const [name, route, ready] of [['overview', '', 'overview'], ['series', `#/series/${id(fixture.issue.benchmark)}`, 'series']] as const) {
      const w = await open(route, ready);
      await w.page.mouse.move(0, 0);
      const shot = await w.page.screenshot({ fullPage: false });
      writeFileSync(join(ARTIFACTS, `${name}.png`), shot);
      const golden = join(GOLDEN, `${name}.png`);
      if (process.env.UPDATE_GOLDEN === '1') {
        mkdirSync(GOLDEN, { recursive: true });
        writeFileSync(golden, shot);
      } else {
        assert.ok(existsSync(golden), `${golden} is missing; run with UPDATE_GOLDEN=1 to create it`);
        const difference = imageDifference(decodePng(shot), decodePng(readFileSync(golden)));
        assert.ok(difference <= MAX_DIFFERENCE, `${name}: ${(difference * 100).toFixed(2)}% of the pixels differ from ${golden} (at most ${MAX_DIFFERENCE * 100}%); see ${join(ARTIFACTS, `${name}.png`)}, and rerun with UPDATE_GOLDEN=1 if the change is intended`);
      }
      await done(w);
    }
  });
});
