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
 * What a series' status and marks say is what the nightly scan decided
 * (scan/scan-history.ts, the same call `benchbot scan` makes; the edges
 * hand its result here as ScanDecisions): a series is a regression only
 * when the scan confirmed one; awaiting, watch and refuted findings carry
 * their own status and say what they wait for. The model computes no
 * change points of its own, so the pages cannot contradict the scan.
 */

import type { Direction } from '../model/measurement.ts';
import type { ScanFinding } from '../scan/scan-finding.ts';
import type { ScanResult } from '../scan/scan-history.ts';
import { seriesKey } from '../scan/series.ts';
import { dashboardSeriesId } from '../model/series-id.ts';
import { profileCommand } from '../report/profile-report.ts';
import { OVERVIEW_COLUMNS, SITE_VERSION, type DashboardPr, type FindingJson, type FindingStatus, type OverviewJson, type OverviewRow, type RunsJson, type SeriesJson, type Status } from './site-json.ts';

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
 * SiteOptions: `threshold` (0.02) the smallest change that matters and
 * `maxAgeNights` (30) the oldest first bad night reported, both handed to
 * the scan as `benchbot scan --threshold --max-age` take them;
 * `maxItemsInChart` the newest nights each series page carries (undefined:
 * all; github-action-benchmark's max-items-in-chart); `repoUrl` the web
 * root of a repository (commit and PR links), undefined when unknown.
 */
export interface SiteOptions {
  threshold?: number;
  maxAgeNights?: number;
  maxItemsInChart?: number;
  repoUrl?: (repo: string | undefined) => string | undefined;
}

/** SITE_DEFAULTS are the scan's own defaults (scan-command.ts): the dashboard shows what `benchbot scan` without flags decides. */
export const SITE_DEFAULTS = { threshold: 0.02, maxAgeNights: 30 };

/**
 * ScanDecisions is what the nightly scan decided about one series: each
 * finding with its status, and `scannedAs`, the metric the scan read
 * instead of this one (Google Benchmark's real_time and cpu_time are one
 * measurement; the scan reads one of them, scan/time-families.ts).
 */
export interface ScanDecisions {
  findings: { status: FindingStatus; finding: ScanFinding }[];
  scannedAs?: string;
}

/**
 * decisionsBySeries files a scan's result under the series each finding
 * names (the scan's key, {@link scanKey}): confirmed findings are
 * `regression` or `improvement` by their direction, one-night watches
 * `watch`, and the scan's `awaiting` and `refuted` lists keep those names.
 */
export function decisionsBySeries(result: ScanResult): Map<string, ScanDecisions> {
  const out = new Map<string, ScanDecisions>();
  const of = (key: string) => {
    let d = out.get(key);
    if (!d) out.set(key, (d = { findings: [] }));
    return d;
  };
  for (const f of result.findings) of(f.series).findings.push({ status: f.kind === 'watch' ? 'watch' : f.direction, finding: f });
  for (const f of result.awaiting) of(f.series).findings.push({ status: 'awaiting', finding: f });
  for (const f of result.refuted) of(f.series).findings.push({ status: 'refuted', finding: f });
  for (const t of result.timeFamilies ?? []) of(seriesKey({ branch: t.branch, benchmark: t.benchmark, metric: t.secondary, machineKey: t.machineKey })).scannedAs = t.primary;
  return out;
}

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
 * benchmark and metric on other machines; `decisions` what the nightly
 * scan decided about it (none: nothing found).
 */
export function buildSeries(
  whole: DashboardSeries,
  runs: readonly RunRow[],
  context: { acks: readonly DashboardAck[]; issues: readonly DashboardIssue[]; siblings: readonly { id: string; machineLabel: string }[]; decisions?: ScanDecisions },
  options: SiteOptions = {},
): { page: SeriesJson; row: OverviewRow } {
  const s = options.maxItemsInChart === undefined ? whole : newest(whole, options.maxItemsInChart);
  const key = scanKey(s);
  const id = dashboardSeriesId(s.repo, key);
  const count = s.run.length;
  const acks = context.acks.filter((a) => a.series === key);
  const ackAt = acks.map((a) => ({ ack: a, index: ackIndex(a, s, runs) })).filter((x) => x.index >= 0);
  const issues = context.issues.filter((i) => i.series === key && (i.repo === undefined || s.repo === undefined || i.repo.toLowerCase() === s.repo.toLowerCase()));
  const firstSample = s.values.findIndex((v) => v !== undefined);
  const sameN = count > 0 && Array.prototype.every.call(s.n, (x: number) => x === s.n[0]);
  const findings = (context.decisions?.findings ?? [])
    .map(({ status, finding }) => findingJson(status, finding, s, runs))
    .sort((a, b) => a.index - b.index || STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status));
  const page: SeriesJson = {
    version: SITE_VERSION, id, key, repo: s.repo ?? null, branch: s.branch, benchmark: s.benchmark, metric: s.metric, unit: s.unit, better: s.better,
    machine: s.machine, machineLabel: s.machineLabel, repoUrl: options.repoUrl?.(s.repo) ?? null,
    siblings: context.siblings.filter((x) => x.id !== id).map((x) => ({ id: x.id, machineLabel: x.machineLabel })),
    run: Array.from(s.run), n: sameN ? s.n[0] : Array.from(s.n), median: rounded(s.median), lo: rounded(s.lo), hi: rounded(s.hi),
    samples: firstSample < 0 ? { from: count, values: [] } : { from: firstSample, values: s.values.slice(firstSample).map((v) => (v ?? []).map(round6)) },
    findings,
    scanned: context.decisions?.scannedAs ?? null,
    acks: ackAt.map(({ ack, index }) => ({ index, sha: ack.sha, reason: ack.reason ?? '' })),
    issues: issues.map((i) => ({ number: i.number, url: i.url, culprit: i.culprit ? { sha: i.culprit.sha, subject: i.culprit.subject ?? '', pr: i.culprit.pr ?? null } : null })),
  };
  return { page, row: overviewRow(page, s, runs) };
}

/** STATUS_ORDER ranks a series' findings: the first one present is its status (site-json.ts Status). */
const STATUS_ORDER: readonly Status[] = ['regression', 'awaiting', 'watch', 'improvement', 'refuted', 'ok'];

/** newest keeps a series' newest `nights` nights (max-items-in-chart). */
function newest(s: DashboardSeries, nights: number): DashboardSeries {
  const from = Math.max(0, s.run.length - nights);
  if (from === 0) return s;
  const cut = (a: ArrayLike<number>) => Array.prototype.slice.call(a, from) as number[];
  return { ...s, run: cut(s.run), n: cut(s.n), median: cut(s.median), lo: cut(s.lo), hi: cut(s.hi), values: s.values.slice(from) };
}

/** findingJson puts a scan finding on the series' nights and says in words what it waits for or rests on. */
function findingJson(status: FindingStatus, f: ScanFinding, s: DashboardSeries, runs: readonly RunRow[]): FindingJson {
  let index = -1;
  const t = Date.parse(f.firstBad.time);
  for (let i = s.run.length - 1; i >= 0 && index < 0; i--) if (runs[s.run[i]]?.sha === f.firstBad.sha && runs[s.run[i]]?.timeMs === t) index = i;
  for (let i = s.run.length - 1; i >= 0 && index < 0; i--) if (runs[s.run[i]]?.sha === f.firstBad.sha) index = i;
  return {
    status, direction: f.direction, kind: f.kind, index, ratio: round6(f.ratio), lastGood: f.lastGood.sha, firstBad: f.firstBad.sha, note: findingNote(status, f),
    ...(f.direction === 'regression' ? { profile: profileCommand({ base: f.lastGood.sha, head: f.firstBad.sha, benchmark: f.benchmark }) } : {}),
  };
}

/** findingNote says what a finding waits for (awaiting, watch) or what decided it (confirmed, refuted). */
export function findingNote(status: FindingStatus, f: ScanFinding): string {
  const pair = `${f.lastGood.sha.slice(0, 10)} against ${f.firstBad.sha.slice(0, 10)}`;
  const shift = `${percent(f.ratio)} (${f.direction === 'regression' ? 'worse' : 'better'})`;
  const ab = f.confirmation;
  switch (status) {
    case 'regression':
    case 'improvement':
      return `${shift}, confirmed by the interleaved A/B of ${pair}`;
    case 'awaiting':
      return ab
        ? `${shift} in the nightly history; waits for one more interleaved A/B session of ${pair} (${ab.sessions} so far, not yet decisive)`
        : `${shift} in the nightly history; waits for the interleaved A/B of ${pair}, which the nightly job measures`;
    case 'watch':
      return `one night ${shift} beyond the usual spread${f.zScore !== undefined ? ` (robust z ${f.zScore.toFixed(1)})` : ''}; waits for a second night`;
    case 'refuted':
      return `${f.history ? percent(f.history.ratio) : shift} in the nightly history, not confirmed: the interleaved A/B of ${pair} measured ${ab ? percent(ab.ratio) : 'no change beyond the threshold'}`;
  }
}

function percent(ratio: number): string {
  const pct = (ratio - 1) * 100;
  return `${pct >= 0 ? '+' : '−'}${Math.abs(pct).toFixed(Math.abs(pct) >= 10 ? 0 : 1)}%`;
}

function overviewRow(page: SeriesJson, s: DashboardSeries, runs: readonly RunRow[]): OverviewRow {
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
  const top = [...page.findings].sort((a, b) => STATUS_ORDER.indexOf(a.status) - STATUS_ORDER.indexOf(b.status))[0];
  const status: Status = top?.status ?? 'ok';
  const note = top?.note ?? (page.scanned !== null ? `the scan reads ${page.scanned} for this benchmark` : '');
  return [
    page.id, page.repo, page.branch, page.benchmark, page.metric, page.unit, page.better, page.machineLabel,
    latest === null ? null : round6(latest), change(7), change(30), status, s.run.length, last < 0 ? null : (runs[s.run[last]]?.timeMs ?? null),
    page.issues.length > 0 ? page.issues[page.issues.length - 1].number : null, spark, note,
  ];
}

/** ackIndex is the night an ack starts its baseline at: its commit's night, else the first night at or after its time. */
function ackIndex(ack: DashboardAck, s: DashboardSeries, runs: readonly RunRow[]): number {
  for (let i = 0; i < s.run.length; i++) if (runs[s.run[i]]?.sha === ack.sha) return i;
  if (ack.time === undefined) return -1;
  const t = Date.parse(ack.time);
  for (let i = 0; i < s.run.length; i++) if ((runs[s.run[i]]?.timeMs ?? -Infinity) >= t) return i;
  return -1;
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
 * buildOverview puts the rows in the overview's order (STATUS_ORDER):
 * confirmed regressions first, then awaiting, watched, improved and refuted
 * series (largest change over 30 nights first in each), then the rest by
 * name.
 */
export function buildOverview(rows: OverviewRow[], prs: DashboardPr[], meta: { title: string; generated: string; threshold?: number }): OverviewJson {
  const rank = (r: OverviewRow) => STATUS_ORDER.indexOf(r[11]);
  const size = (r: OverviewRow) => Math.abs(r[10] ?? r[9] ?? 0);
  rows.sort((a, b) => rank(a) - rank(b) || (a[11] !== 'ok' ? size(b) - size(a) : 0) || cmp(a[3], b[3]) || cmp(a[4], b[4]) || cmp(a[7], b[7]) || cmp(a[2], b[2]) || cmp(a[1] ?? '', b[1] ?? ''));
  return { version: SITE_VERSION, title: meta.title, generated: meta.generated, threshold: meta.threshold ?? SITE_DEFAULTS.threshold, columns: OVERVIEW_COLUMNS, rows, prs: [...prs].sort((a, b) => b.timeMs - a.timeMs) };
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** buildRuns is `data/runs.json` from the run table. */
export function buildRuns(runs: readonly RunRow[]): RunsJson {
  return { version: SITE_VERSION, runs: runs.map((r) => [r.sha, r.timeMs]) };
}
