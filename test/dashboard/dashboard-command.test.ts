// `benchbot dashboard` as a user runs it: the files it writes, what it says,
// and the errors that name the flag to fix.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { writeHistory } from '../../bench/history-generator.ts';
import { bundleDashboard } from '../../scripts/dashboard-bundle.ts';
import { main } from '../../src/cli/main.ts';
import type { OverviewJson, SeriesJson } from '../../src/dashboard/site-model.ts';
import { dashboardSeriesId } from '../../src/model/series-id.ts';
import { openStore } from '../../src/store/open-store.ts';
import { seedFixture } from './fixture-store.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchbot-dashboard-cli-'));
const store = join(dir, 'history.db');
after(() => rmSync(dir, { recursive: true, force: true }));
before(async () => {
  // The command ships the pages' bundle from dist/, as the released CLI does.
  await bundleDashboard();
  const s = await openStore(store, { cwd: dir, env: {} });
  try {
    await seedFixture(s);
  } finally {
    await s.close();
  }
});

async function run(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  const out: string[] = [];
  const err: string[] = [];
  const code = await main(args, (t) => out.push(t) > 0, (t) => err.push(t) > 0);
  return { code, out: out.join('\n'), err: err.join('\n') };
}

test('benchbot dashboard writes the site, and a second run removes the pages of series that are gone', async () => {
  const out = join(dir, 'site');
  mkdirSync(join(out, 'data', 'series'), { recursive: true });
  writeFileSync(join(out, 'data', 'series', '0123456789abcdef.json'), '{}');
  writeFileSync(join(out, 'CNAME'), 'bench.example.com');
  const r = await run('dashboard', '--store', store, '--out', out, '--repository', 'example/suite', '--branch', 'main', '--samples-nights', '5');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^wrote the dashboard of 304 series to .+ \(310 files, [\d.]+ MB, [\d.]+ s\); the nightly scan: \d+ confirmed regression\(s\), \d+ awaiting an interleaved A\/B, \d+ on watch, \d+ confirmed improvement\(s\), \d+ refuted$/);
  for (const file of ['index.html', 'dashboard.js', 'dashboard.css', '.nojekyll', 'data/overview.json', 'data/runs.json']) assert.ok(existsSync(join(out, file)), file);
  assert.equal(readdirSync(join(out, 'data', 'series')).length, 304);
  assert.equal(existsSync(join(out, 'data', 'series', '0123456789abcdef.json')), false, 'a stale series page is removed');
  assert.equal(readFileSync(join(out, 'CNAME'), 'utf8'), 'bench.example.com', 'files that are not the dashboard\'s stay');
  const overview = JSON.parse(readFileSync(join(out, 'data', 'overview.json'), 'utf8')) as OverviewJson;
  assert.equal(overview.title, 'benchbot: example/suite');
  assert.match(readFileSync(join(out, 'index.html'), 'utf8'), /<title>benchbot: example\/suite<\/title>/);
  const page = JSON.parse(readFileSync(join(out, 'data', 'series', `${overview.rows[0][0]}.json`), 'utf8')) as { samples: { from: number; values: unknown[] } };
  assert.deepEqual([page.samples.from, page.samples.values.length], [85, 5], 'raw samples of the newest 5 nights only');
});

test('a title is HTML-escaped in the page, and an empty selection says why it is empty', async () => {
  const out = join(dir, 'empty');
  const r = await run('dashboard', '--store', store, '--out', out, '--branch', 'nope', '--title', '<script>alert(1)</script>');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /^wrote an empty dashboard to .+: no nightly runs on branch nope in /);
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  assert.ok(!html.includes('<script>alert'), 'no markup from the title');
  assert.match(html, /&#60;script&#62;alert\(1\)&#60;\/script&#62;/);
});

test('bad flags are usage errors that name the flag', async () => {
  const cases: [string[], RegExp][] = [
    [['dashboard', '--store', store], /--out DIR is required/],
    [['dashboard', '--store', store, '--out', dir, '--repo', 'example/suite'], /--repo is a directory in every benchbot command; dashboard takes the GitHub repository as --repository OWNER\/NAME/],
    [['dashboard', '--store', store, '--out', dir, '--samples-nights', 'many'], /--samples-nights many: give a whole number/],
    [['dashboard', '--store', store, '--out', dir, '--threshold', 'big'], /--threshold big is not a percentage/],
    [['dashboard', '--store', store, '--out', dir, '--max-age', '0'], /--max-age 0: give a whole number of nights, at least 1/],
    [['dashboard', '--store', store, '--out', dir, '--max-items-in-chart', 'ten'], /--max-items-in-chart ten: give a whole number/],
    [['dashboard', '--store', store, '--out', dir, '--max-items-in-chart', '1'], /--max-items-in-chart 1: give a whole number of nights, at least 2/],
  ];
  for (const [args, message] of cases) {
    const r = await run(...args);
    assert.equal(r.code, 2, args.join(' '));
    assert.match(r.err, message);
  }
});

/** ScanJsonFinding is what these tests read of `benchbot scan --output json`. */
interface ScanJsonFinding {
  series: string;
  kind: string;
  direction: string;
}

/**
 * statusSets runs `benchbot scan --output json` and `benchbot dashboard` on
 * one store, as a user would, and returns the series ids (the dashboard's
 * public permalink ids) by what each says of them.
 */
async function statusSets(storePath: string, out: string, repo: string | undefined): Promise<{ site: Record<string, string[]>; scan: Record<string, string[]> }> {
  const scope = repo ? ['--repository', repo] : [];
  const scanned = await run('scan', '--store', storePath, '--branch', 'main', '--output', 'json', ...scope);
  assert.ok(scanned.code === 0 || scanned.code === 1, scanned.err);
  const json = JSON.parse(scanned.out) as { findings: ScanJsonFinding[]; awaiting: { series?: string; benchmark: string; metric: string }[] };
  const id = (series: string) => dashboardSeriesId(repo, series);
  const wrote = await run('dashboard', '--store', storePath, '--out', out, '--branch', 'main', ...scope);
  assert.equal(wrote.code, 0, wrote.err);
  const overview = JSON.parse(readFileSync(join(out, 'data', 'overview.json'), 'utf8')) as OverviewJson;
  const site: Record<string, string[]> = {};
  for (const r of overview.rows) (site[r[11]] ??= []).push(r[0]);
  const sorted = (xs: string[]) => [...new Set(xs)].sort();
  for (const k of Object.keys(site)) site[k] = sorted(site[k]);
  return {
    site,
    scan: {
      regression: sorted(json.findings.filter((f) => f.kind !== 'watch' && f.direction === 'regression').map((f) => id(f.series))),
      awaiting: sorted(json.awaiting.map((f) => id(f.series as string))),
      watch: sorted(json.findings.filter((f) => f.kind === 'watch').map((f) => id(f.series))),
    },
  };
}

test('the overview marks a regression exactly where benchbot scan --output json confirmed one (npm run bench:dashboard\'s history, a tenth of its series)', async (t) => {
  // bench/dashboard.ts's shape (365 nights x 10 samples, 10 real steps, seed 1) with 1,000 series instead of 10,000: before the
  // dashboard took its findings from the scan, its overview badged 9 regressions here where the scan confirmed 7 (22 vs 7 at full size).
  const work = join(dir, 'bench-history');
  mkdirSync(work, { recursive: true });
  const history = join(work, 'history.ndjson');
  await writeHistory({ series: 1000, nights: 365, samples: 10, steps: 10, seed: 1 }, history);
  t.diagnostic('generated 1,000 series x 365 nights; importing');
  const storePath = join(work, 'history.db');
  const imported = await run('import', history, '--store', storePath);
  assert.equal(imported.code, 0, imported.err);
  t.diagnostic('imported; scanning and writing the dashboard');
  const { site, scan } = await statusSets(storePath, join(work, 'site'), 'example/suite');
  assert.ok(scan.regression.length > 0, 'the history holds steps the scan confirms');
  assert.deepEqual(site.regression ?? [], scan.regression, 'the overview\'s regressions are the scan\'s confirmed ones, no more, no fewer');
  // A series the scan left awaiting shows as awaiting unless a confirmed regression outranks it, and nothing else does.
  for (const a of scan.awaiting) assert.ok(site.awaiting?.includes(a) || site.regression?.includes(a), `awaiting ${a}`);
  assert.ok((site.awaiting ?? []).every((a) => scan.awaiting.includes(a)), 'nothing the scan did not leave awaiting is shown as awaiting');
});

test('an imported github-action-benchmark data.js: the overview confirms nothing the scan does not, and says what each finding waits for', async () => {
  const gab = join(dir, 'gab');
  mkdirSync(gab, { recursive: true });
  // The committed generator of a gh-pages data.js (fixtures/capture/github-action-benchmark.ts): 400 pushes, two real steps.
  const made = spawnSync(process.execPath, [join(import.meta.dirname, '../../fixtures/capture/github-action-benchmark.ts'), join(gab, 'data.js')], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  const gabStore = join(gab, 'history.db');
  const imported = await run('import', '--from', 'github-action-benchmark', join(gab, 'data.js'), '--store', gabStore);
  assert.equal(imported.code, 0, imported.err);
  const { site, scan } = await statusSets(gabStore, join(gab, 'site'), undefined);
  assert.deepEqual(site.regression ?? [], scan.regression, 'the overview\'s regressions are the scan\'s confirmed ones');
  assert.ok(scan.awaiting.length > 0 && scan.regression.length === 0, 'one value per push: the steps wait for an interleaved A/B that nothing has measured');
  assert.ok((site.awaiting ?? []).length > 0, 'the steps show as awaiting');
  const overview = JSON.parse(readFileSync(join(gab, 'site', 'data', 'overview.json'), 'utf8')) as OverviewJson;
  for (const r of overview.rows) {
    if (r[11] === 'awaiting') assert.match(r[16], /waits for (the|one more) interleaved A\/B (session )?of [0-9a-f]{10} against [0-9a-f]{10}/);
    else if (r[11] === 'watch') assert.match(r[16], /waits for a second night/);
    else if (r[11] === 'ok') assert.equal(r[16], '');
  }
});

test('--max-items-in-chart N keeps the newest N nights on each series page; the overview and the scan\'s marks stay', async () => {
  const whole = join(dir, 'whole');
  const capped = join(dir, 'capped');
  assert.equal((await run('dashboard', '--store', store, '--out', whole, '--repository', 'example/suite')).code, 0);
  const r = await run('dashboard', '--store', store, '--out', capped, '--repository', 'example/suite', '--max-items-in-chart', '20');
  assert.equal(r.code, 0, r.err);
  const read = <T>(root: string, file: string) => JSON.parse(readFileSync(join(root, 'data', file), 'utf8')) as T;
  const a = read<OverviewJson>(whole, 'overview.json');
  const b = read<OverviewJson>(capped, 'overview.json');
  const statuses = (o: OverviewJson) => o.rows.map((row) => `${row[0]} ${row[11]}`).sort();
  assert.deepEqual(statuses(b), statuses(a), 'the same series with the same status');
  const regression = b.rows.find((row) => row[11] === 'regression');
  assert.ok(regression);
  for (const row of [b.rows[b.rows.length - 1], regression]) {
    const full = read<SeriesJson>(whole, `series/${row[0]}.json`);
    const page = read<SeriesJson>(capped, `series/${row[0]}.json`);
    assert.equal(page.run.length, 20);
    assert.deepEqual(page.run, full.run.slice(-20), 'the newest 20 nights');
    assert.deepEqual(page.median, full.median.slice(-20));
    assert.deepEqual(page.findings.map((f) => [f.status, f.firstBad]), full.findings.map((f) => [f.status, f.firstBad]), 'the scan\'s findings are all there');
    for (const [i, f] of page.findings.entries()) assert.equal(f.index, full.findings[i].index < full.run.length - 20 ? -1 : full.findings[i].index - (full.run.length - 20));
  }
});
