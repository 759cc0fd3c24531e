/**
 * site-model: the dashboard's data, from history to the JSON the pages read.
 * Pure: the writer (write-site.ts) and `benchbot serve` (dashboard-handler.ts)
 * read the store and hand the series here, one at a time, so a 10,000-series
 * history never needs to sit in memory as objects.
 *
 * Files (all JSON, every text in them untrusted; the pages show them as text):
 * - `data/overview.json`: OverviewJson, one row per series (latest median,
 *   change over the last 7 and 30 nights, status, last 30 nights for the
 *   sparkline), open regressions first; and the PR runs.
 * - `data/runs.json`: RunsJson, the nightly runs the series refer to by index
 *   (a commit and a time per run, stored once instead of once per series).
 * - `data/series/<id>.json`: SeriesJson, every night of one series (median,
 *   its 95% CI, sample count), the raw samples of the newest nights, change
 *   points, acks, regression issues with their culprit, recoveries, and the
 *   same benchmark on other machines.
 *
 * Change points are the nightly scan's history evidence: windowed E-divisive
 * means on log medians with the scan's defaults (scan/scan-options.ts),
 * segments cut at acks; each is a regression or an improvement by the
 * metric's direction, and an improvement that brings a series back within the
 * threshold of where it was before its last regression is a recovery.
 */

import type { Direction } from '../model/measurement.ts';
import { eDivisive, logMagnitude } from '../scan/e-divisive.ts';
import { seriesKey } from '../scan/series.ts';
import { dashboardSeriesId } from '../model/series-id.ts';
import { OVERVIEW_COLUMNS, SITE_VERSION, type ChangeJson, type DashboardPr, type OverviewJson, type OverviewRow, type RunsJson, type SeriesJson, type Status } from './site-json.ts';

export * from './site-json.ts';

/** DashboardSeries is one series as the model takes it: identity, and its nights in columns. */
export interface DashboardSeries {
  repo?: string;
  branch: string;
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  /** machine is the scan's machine key of the series (model/fingerprint.ts hostKey); `machineLabel` what people call it. */
  machine: string;
  machineLabel: string;
  /** run[i] indexes the run table; n, median, lo, hi per night (NaN where unknown), oldest first. */
  run: ArrayLike<number>;
  n: ArrayLike<number>;
  median: ArrayLike<number>;
  lo: ArrayLike<number>;
  hi: ArrayLike<number>;
  /** values[i]: the raw samples of night i when shipped (the newest nights), else undefined. */
  values: ReadonlyArray<readonly number[] | undefined>;
}

/** RunRow is one nightly run of the run table: commit, time (epoch ms). */
export interface RunRow {
  sha: string;
  timeMs: number;
}

/** DashboardAck is a stored ack (`benchbot ack`): the scan series it names, its commit (and time), why. */
export interface DashboardAck {
  series: string;
  sha: string;
  time?: string;
  reason?: string;
}

/** DashboardIssue is a regression issue filed for a scan series (the app's `issue:` state), with the culprit when bisection named one. */
export interface DashboardIssue {
  repo?: string;
  series: string;
  number: number;
  url: string;
  culprit?: { sha: string; subject?: string; pr?: number };
}

/**
 * SiteOptions: `threshold` (0.02) the smallest change that matters, as in the
 * scan; `windowLen` (30), `maxPValue` (0.001) E-divisive's; `recentNights`
 * (30) how new a regression must be to count as open; `repoUrl` the web
 * root of a repository (commit and PR links), undefined when unknown.
 */
export interface SiteOptions {
  threshold?: number;
  windowLen?: number;
  maxPValue?: number;
  recentNights?: number;
  repoUrl?: (repo: string | undefined) => string | undefined;
}

const DEFAULTS = { threshold: 0.02, windowLen: 30, maxPValue: 0.001, recentNights: 30 };

/** seriesId is the dashboard id of an input series (see model/series-id.ts). */
export function seriesId(s: Pick<DashboardSeries, 'repo' | 'branch' | 'benchmark' | 'metric' | 'machine'>): string {
  return dashboardSeriesId(s.repo, scanKey(s));
}

/** scanKey is the nightly scan's name of the series (what acks and issues name). */
export function scanKey(s: Pick<DashboardSeries, 'branch' | 'benchmark' | 'metric' | 'machine'>): string {
  return seriesKey({ branch: s.branch, benchmark: s.benchmark, metric: s.metric, machineKey: s.machine });
}

/**
 * buildSeries turns one series into its page's JSON and its overview row.
 * `runs` is the run table the series' `run` indexes; `siblings` the same
 * benchmark and metric on other machines.
 */
export function buildSeries(
  s: DashboardSeries,
  runs: readonly RunRow[],
  context: { acks: readonly DashboardAck[]; issues: readonly DashboardIssue[]; siblings: readonly { id: string; machineLabel: string }[] },
  options: SiteOptions = {},
): { page: SeriesJson; row: OverviewRow } {
  const o = { ...DEFAULTS, ...Object.fromEntries(Object.entries(options).filter(([, v]) => v !== undefined)) } as typeof DEFAULTS & SiteOptions;
  const key = scanKey(s);
  const id = dashboardSeriesId(s.repo, key);
  const count = s.run.length;
  const acks = context.acks.filter((a) => a.series === key);
  const ackAt = acks.map((a) => ({ ack: a, index: ackIndex(a, s, runs) })).filter((x) => x.index >= 0);
  const changes = changePoints(s, ackAt.map((x) => x.index), o);
  const issues = context.issues.filter((i) => i.series === key && (i.repo === undefined || s.repo === undefined || i.repo.toLowerCase() === s.repo.toLowerCase()));
  const firstSample = s.values.findIndex((v) => v !== undefined);
  const sameN = count > 0 && Array.prototype.every.call(s.n, (x: number) => x === s.n[0]);
  const page: SeriesJson = {
    version: SITE_VERSION, id, key, repo: s.repo ?? null, branch: s.branch, benchmark: s.benchmark, metric: s.metric, unit: s.unit, better: s.better,
    machine: s.machine, machineLabel: s.machineLabel, repoUrl: o.repoUrl?.(s.repo) ?? null,
    siblings: context.siblings.filter((x) => x.id !== id).map((x) => ({ id: x.id, machineLabel: x.machineLabel })),
    run: Array.from(s.run), n: sameN ? s.n[0] : Array.from(s.n), median: rounded(s.median), lo: rounded(s.lo), hi: rounded(s.hi),
    samples: firstSample < 0 ? { from: count, values: [] } : { from: firstSample, values: s.values.slice(firstSample).map((v) => (v ?? []).map(round6)) },
    changes,
    acks: ackAt.map(({ ack, index }) => ({ index, sha: ack.sha, reason: ack.reason ?? '' })),
    issues: issues.map((i) => ({ number: i.number, url: i.url, culprit: i.culprit ? { sha: i.culprit.sha, subject: i.culprit.subject ?? '', pr: i.culprit.pr ?? null } : null })),
  };
  return { page, row: overviewRow(page, s, runs, o) };
}

function overviewRow(page: SeriesJson, s: DashboardSeries, runs: readonly RunRow[], o: typeof DEFAULTS): OverviewRow {
  const valid: number[] = [];
  for (let i = 0; i < s.median.length; i++) if (s.median[i] > 0 && Number.isFinite(s.median[i])) valid.push(i);
  const last = valid.length > 0 ? valid[valid.length - 1] : -1;
  const latest = last < 0 ? null : s.median[last];
  // A night is noisy: the newest three nights against three nights around 7 (30) nights before.
  const level = (from: number) => {
    const picked = valid.slice(Math.max(0, from - 2), from + 1).map((i) => s.median[i]);
    return picked.length === 0 ? NaN : medianOf(picked);
  };
  const now = level(valid.length - 1);
  const change = (back: number) => (valid.length > back ? round6(now / level(valid.length - 1 - back) - 1) : null);
  const spark = latest === null ? [] : valid.slice(-30).map((i) => Math.round((s.median[i] / latest - 1) * 1000));
  const recentFrom = count(s) - o.recentNights;
  const open = openRegression(page.changes, recentFrom);
  const status: Status = open ? 'regression' : page.changes.some((c) => c.index >= recentFrom && c.kind === 'improvement') ? 'improvement' : 'ok';
  return [
    page.id, page.repo, page.branch, page.benchmark, page.metric, page.unit, page.better, page.machineLabel,
    latest === null ? null : round6(latest), change(7), change(30), status, s.run.length, last < 0 ? null : (runs[s.run[last]]?.timeMs ?? null),
    page.issues.length > 0 ? page.issues[page.issues.length - 1].number : null, spark,
  ];
}

function count(s: DashboardSeries): number {
  return s.run.length;
}

/** openRegression: the newest regression among the recent nights that no later recovery or improvement undid. */
function openRegression(changes: readonly ChangeJson[], recentFrom: number): boolean {
  const last = changes[changes.length - 1];
  return last !== undefined && last.kind === 'regression' && last.index >= recentFrom;
}

/** ackIndex is the night an ack starts its baseline at: its commit's night, else the first night at or after its time. */
function ackIndex(ack: DashboardAck, s: DashboardSeries, runs: readonly RunRow[]): number {
  for (let i = 0; i < s.run.length; i++) if (runs[s.run[i]]?.sha === ack.sha) return i;
  if (ack.time === undefined) return -1;
  const t = Date.parse(ack.time);
  for (let i = 0; i < s.run.length; i++) if ((runs[s.run[i]]?.timeMs ?? -Infinity) >= t) return i;
  return -1;
}

/**
 * changePoints runs E-divisive on the log medians of each segment between
 * acks, and classifies every change point; night indices are the series'.
 */
function changePoints(s: DashboardSeries, cuts: readonly number[], o: typeof DEFAULTS): ChangeJson[] {
  const nights: number[] = [];
  const logs: number[] = [];
  for (let i = 0; i < s.median.length; i++) {
    const m = s.median[i];
    if (m > 0 && Number.isFinite(m)) {
      nights.push(i);
      logs.push(Math.log(m));
    }
  }
  const bounds = [...new Set([0, ...cuts.map((c) => nights.findIndex((n) => n >= c)).filter((k) => k > 0), logs.length])].sort((a, b) => a - b);
  const out: ChangeJson[] = [];
  for (let b = 0; b + 1 < bounds.length; b++) {
    const from = bounds[b];
    const to = bounds[b + 1];
    if (to - from < 3) continue;
    const segment = logs.slice(from, to);
    const found = eDivisive(segment, { windowLen: o.windowLen, maxPValue: o.maxPValue, minMagnitude: o.threshold, magnitude: logMagnitude }).changePoints.map((c) => c.index);
    const edges = [0, ...found, segment.length];
    let beforeRegression: number | undefined;
    for (let k = 1; k + 1 < edges.length; k++) {
      const before = mean(segment, edges[k - 1], edges[k]);
      const after = mean(segment, edges[k], edges[k + 1]);
      const worse = s.better === 'lower' ? after > before : after < before;
      let kind: ChangeJson['kind'] = worse ? 'regression' : 'improvement';
      if (worse) beforeRegression = before;
      else if (beforeRegression !== undefined && Math.expm1(Math.abs(after - beforeRegression)) < o.threshold) {
        kind = 'recovery';
        beforeRegression = undefined;
      }
      out.push({ index: nights[from + edges[k]], kind, ratio: round6(Math.exp(after - before)) });
    }
  }
  return out;
}

function mean(values: readonly number[], from: number, to: number): number {
  let sum = 0;
  for (let i = from; i < to; i++) sum += values[i];
  return sum / (to - from);
}

function medianOf(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

/** round6 keeps 6 significant digits: what a chart and a table show, at a third of the bytes. */
export function round6(v: number): number {
  if (!Number.isFinite(v) || v === 0) return v;
  // toPrecision is exact but slow (a tenth of the site's generation time); scaling by an exact power of ten is not.
  const digits = 5 - Math.floor(Math.log10(Math.abs(v)));
  if (digits > 0 && digits <= 22) {
    const scale = POWERS[digits];
    return Math.round(v * scale) / scale;
  }
  if (digits <= 0 && digits >= -22) {
    const scale = POWERS[-digits];
    return Math.round(v / scale) * scale;
  }
  return Number(v.toPrecision(6));
}

const POWERS = Array.from({ length: 23 }, (_, i) => 10 ** i);

function rounded(values: ArrayLike<number>): (number | null)[] {
  const out = new Array<number | null>(values.length);
  for (let i = 0; i < values.length; i++) out[i] = Number.isFinite(values[i]) ? round6(values[i]) : null;
  return out;
}

/**
 * buildOverview puts the rows in the overview's order: open regressions
 * first (largest change over 30 nights first), then recent improvements,
 * then the rest by name.
 */
export function buildOverview(rows: OverviewRow[], prs: DashboardPr[], meta: { title: string; generated: string; threshold?: number }): OverviewJson {
  const rank = (r: OverviewRow) => (r[11] === 'regression' ? 0 : r[11] === 'improvement' ? 1 : 2);
  const size = (r: OverviewRow) => Math.abs(r[10] ?? r[9] ?? 0);
  rows.sort((a, b) => rank(a) - rank(b) || (rank(a) < 2 ? size(b) - size(a) : 0) || cmp(a[3], b[3]) || cmp(a[4], b[4]) || cmp(a[7], b[7]) || cmp(a[2], b[2]) || cmp(a[1] ?? '', b[1] ?? ''));
  return { version: SITE_VERSION, title: meta.title, generated: meta.generated, threshold: meta.threshold ?? DEFAULTS.threshold, columns: OVERVIEW_COLUMNS, rows, prs: [...prs].sort((a, b) => b.timeMs - a.timeMs) };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** buildRuns is `data/runs.json` from the run table. */
export function buildRuns(runs: readonly RunRow[]): RunsJson {
  return { version: SITE_VERSION, runs: runs.map((r) => [r.sha, r.timeMs]) };
}
