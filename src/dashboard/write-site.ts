/**
 * write-site: `benchbot dashboard`'s edge. Reads the store (read-history.ts),
 * builds each series' page with the pure model (site-model.ts) and writes
 * the static site: index.html, dashboard.js and dashboard.css (the bundle
 * `npm run build` makes from src/dashboard/web), and data/. No server is
 * needed to look at it; GitHub Pages, any static host or a file share will do.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { getAsset, isSea } from 'node:sea';
import { fileURLToPath } from 'node:url';
import { scanStoredNightlies } from '../jobs/nightly.ts';
import { cliSetting } from '../jobs/setting-names.ts';
import { RunnerError } from '../runner/git-checkout.ts';
import type { ScanResult } from '../scan/scan-history.ts';
import type { Store } from '../store/store.ts';
import { indexHtml } from './index-html.ts';
import { readAcks, readGroups, readIssues, readPrs, RunTable, toSeries, type HistoryFilter, type SeriesGroup } from './read-history.ts';
import { buildOverview, buildRuns, buildSeries, decisionsBySeries, seriesId, SITE_DEFAULTS, type DashboardAck, type DashboardIssue, type OverviewJson, type OverviewRow, type ScanDecisions, type SeriesJson, type SiteOptions } from './site-model.ts';

/**
 * SiteSettings: what to show and how. `samplesNights` (default 30) is how
 * many of each series' newest nights ship their raw samples (the rest show
 * median, CI and count: a year of a 10,000-series suite's samples would be
 * 300 MB); `prs` (default 100) how many PR runs are listed.
 */
export interface SiteSettings extends HistoryFilter, SiteOptions {
  title: string;
  samplesNights?: number;
  prs?: number;
  /** generated is the build time shown on the pages (the edge's clock). */
  generated: string;
  repoUrl?: (repo: string | undefined) => string | undefined;
}

/** SiteAssets are the browser bundle's files. */
export interface SiteAssets {
  js: string;
  css: string;
}

/**
 * loadSiteAssets reads dist/dashboard.js and dist/dashboard.css, beside
 * the bundled CLI (dist/benchbot.js) or two levels up from this source file;
 * the standalone executable carries them as its assets (scripts/build-sea.ts).
 */
export function loadSiteAssets(): SiteAssets {
  if (isSea()) return { js: getAsset('dashboard.js', 'utf8'), css: getAsset('dashboard.css', 'utf8') };
  for (const dir of [new URL('./', import.meta.url), new URL('../../dist/', import.meta.url)]) {
    const js = fileURLToPath(new URL('dashboard.js', dir));
    const css = fileURLToPath(new URL('dashboard.css', dir));
    if (existsSync(js) && existsSync(css)) return { js: readFileSync(js, 'utf8'), css: readFileSync(css, 'utf8') };
  }
  throw new RunnerError('the dashboard\'s pages (dist/dashboard.js, dist/dashboard.css) are missing: run npm run build');
}

/** BuiltSite is everything the pages read, built page by page through `onSeries`, and the scan's decisions they show. */
export interface BuiltSite {
  overview: OverviewJson;
  runs: ReturnType<typeof buildRuns>;
  table: RunTable;
  series: number;
  /** decisions: what the nightly scan decided, by the scan's series key (one scan per repository and branch shown). */
  decisions: Map<string, ScanDecisions>;
  /** scan counts the scan's findings by status, every repository and branch together. */
  scan: { regression: number; improvement: number; awaiting: number; watch: number; refuted: number };
}

/**
 * scanDecisions runs the nightly scan (`benchbot scan`'s own call, with its
 * threshold and max age) once for each repository and branch among
 * `groups`, and files its decisions by series.
 */
export async function scanDecisions(store: Store, groups: readonly { repo?: string; branch: string }[], settings: SiteOptions): Promise<{ decisions: Map<string, ScanDecisions>; results: ScanResult[] }> {
  const scopes = new Map<string, { repo?: string; branch: string }>();
  for (const g of groups) scopes.set(`${g.repo ?? ''}\u0000${g.branch}`, { repo: g.repo, branch: g.branch });
  const decisions = new Map<string, ScanDecisions>();
  const results: ScanResult[] = [];
  for (const { repo, branch } of scopes.values()) {
    const { result } = await scanStoredNightlies(store, {
      branch, repository: repo, threshold: settings.threshold ?? SITE_DEFAULTS.threshold, maxAgeNights: settings.maxAgeNights ?? SITE_DEFAULTS.maxAgeNights, nameSetting: cliSetting,
    });
    results.push(result);
    // A series key names its branch, not its repository: two repositories' series of one key share a scope only when the store kept no repository.
    for (const [key, d] of decisionsBySeries(result)) decisions.set(decisionKey(repo, key), d);
  }
  return { decisions, results };
}

/** decisionKey is where scanDecisions files a series' decisions. */
export function decisionKey(repo: string | undefined, key: string): string {
  return `${repo ?? ''}\u0000${key}`;
}

/**
 * buildSite reads the history and builds every series page, handing each to
 * `onSeries` as it is made (the writer writes it, the server caches nothing
 * but the overview), then the overview and the run table.
 */
export async function buildSite(store: Store, settings: SiteSettings, onSeries: (page: SeriesJson) => void | Promise<void>, onGroup?: (group: SeriesGroup) => void): Promise<BuiltSite> {
  const samplesNights = settings.samplesNights ?? 30;
  // The scan first, before the history is read in columns: its batches are gone by then, so the two never share the peak memory.
  const scopes = (await store.listSeries({ role: 'nightly', repo: settings.repo, branch: settings.branch, benchmark: settings.benchmark, metric: settings.metric }))
    .map((i) => ({ repo: i.repo, branch: i.branch ?? '' }));
  const { decisions, results } = await scanDecisions(store, scopes, settings);
  const [groups, acks, issues, prs] = await Promise.all([
    readGroups(store, settings, samplesNights),
    readAcks(store),
    readIssues(store),
    readPrs(store, settings, settings.prs ?? 100, settings.repoUrl ?? (() => undefined)),
  ]);
  const runs = RunTable.of(groups);
  if (onGroup) groups.forEach(onGroup);
  const rows = await buildPages(groups, runs, acks, issues, settings, onSeries, decisions);
  const scan = { regression: 0, improvement: 0, awaiting: 0, watch: 0, refuted: 0 };
  for (const r of results) {
    for (const f of r.findings) scan[f.kind === 'watch' ? 'watch' : f.direction]++;
    scan.awaiting += r.awaiting.length;
    scan.refuted += r.refuted.length;
  }
  return { overview: buildOverview(rows, prs, { title: settings.title, generated: settings.generated, threshold: settings.threshold }), runs: buildRuns(runs.rows), table: runs, series: rows.length, decisions, scan };
}

/**
 * buildPages builds each group's page (dropping its columns as it goes) and
 * returns the overview rows; when `onSeries` returns a promise (the writer
 * has enough pages in flight), the next page waits for it.
 */
export async function buildPages(
  groups: SeriesGroup[], runs: RunTable, acks: readonly DashboardAck[], issues: readonly DashboardIssue[], settings: SiteOptions, onSeries: (page: SeriesJson) => void | Promise<void>,
  decisions: ReadonlyMap<string, ScanDecisions> = new Map(),
): Promise<OverviewRow[]> {
  const siblings = new Map<string, { id: string; machineLabel: string }[]>();
  const family = (g: SeriesGroup) => `${g.repo ?? ''}\u0000${g.branch}\u0000${g.benchmark}\u0000${g.metric}`;
  for (const g of groups) {
    const list = siblings.get(family(g)) ?? [];
    list.push({ id: seriesId(g), machineLabel: g.machineLabel });
    siblings.set(family(g), list);
  }
  const acksOf = groupBy(acks, (a) => a.series);
  const issuesOf = groupBy(issues, (i) => i.series);
  const rows: OverviewRow[] = [];
  for (let k = 0; k < groups.length; k++) {
    const g = groups[k];
    const series = toSeries(g, runs);
    const key = `${g.branch}:${g.benchmark}:${g.metric}:${g.machine}`;
    const { page, row } = buildSeries(series, runs.rows, { acks: acksOf.get(key) ?? [], issues: issuesOf.get(key) ?? [], siblings: siblings.get(family(g)) ?? [], decisions: decisions.get(decisionKey(g.repo, key)) }, settings);
    const wait = onSeries(page);
    if (wait) await wait;
    rows.push(row);
    // The columns are in the page now; let them go before the next series.
    groups[k] = { ...g, parts: [] };
  }
  return rows;
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const out = new Map<string, T[]>();
  for (const item of items) {
    const k = key(item);
    const list = out.get(k);
    if (list) list.push(item);
    else out.set(k, [item]);
  }
  return out;
}

/** WRITES_IN_FLIGHT is how many series pages are being written at once (libuv has 4 threads by default). */
const WRITES_IN_FLIGHT = 16;

/** WriteResult says what was written. */
export interface WriteResult {
  series: number;
  files: number;
  bytes: number;
  /** scan counts the nightly scan's findings the pages show, by status. */
  scan: BuiltSite['scan'];
}

/**
 * writeSite writes the static site into `out` (created if missing). Series
 * files a previous run left behind for series no longer in the history are
 * removed; nothing else in `out` is touched.
 */
export async function writeSite(store: Store, out: string, settings: SiteSettings, assets: SiteAssets = loadSiteAssets()): Promise<WriteResult> {
  const seriesDir = join(out, 'data', 'series');
  mkdirSync(seriesDir, { recursive: true });
  const before = new Set(readdirSync(seriesDir).filter((f) => /^[0-9a-f]{16}\.json$/.test(f)));
  let files = 0;
  let bytes = 0;
  const write = (path: string, text: string) => {
    writeFileSync(path, text);
    files++;
    bytes += Buffer.byteLength(text);
  };
  // The pages are written by libuv's threads while the next ones are built, WRITES_IN_FLIGHT at a time:
  // written one by one (writeFileSync), the 10,000 files of a big suite held the build up for 2 to 10 s.
  const inFlight = new Set<Promise<void>>();
  let failed: { error: unknown } | undefined;
  const site = await buildSite(store, settings, (page) => {
    if (failed) throw failed.error;
    before.delete(`${page.id}.json`);
    const text = JSON.stringify(page);
    const written = writeFile(join(seriesDir, `${page.id}.json`), text).then(() => {
      files++;
      bytes += Buffer.byteLength(text);
    }, (error: unknown) => {
      failed ??= { error };
    }).finally(() => inFlight.delete(written));
    inFlight.add(written);
    return inFlight.size >= WRITES_IN_FLIGHT ? Promise.race(inFlight) : undefined;
  }).finally(() => Promise.all(inFlight));
  if (failed) throw failed.error;
  for (const stale of before) rmSync(join(seriesDir, stale), { force: true });
  write(join(out, 'data', 'overview.json'), JSON.stringify(site.overview));
  write(join(out, 'data', 'runs.json'), JSON.stringify(site.runs));
  write(join(out, 'index.html'), indexHtml(settings.title));
  write(join(out, 'dashboard.js'), assets.js);
  write(join(out, 'dashboard.css'), assets.css);
  // GitHub Pages runs Jekyll on a branch's files unless told not to; the site is already built.
  write(join(out, '.nojekyll'), '');
  return { series: site.series, files, bytes, scan: site.scan };
}
