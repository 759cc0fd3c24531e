import type { ScanResult } from '../scan/scan-history.ts';
import type { ScanFinding, TrendPoint } from '../scan/scan-finding.ts';
import { formatChange, formatP, formatQuantity } from './format-numbers.ts';
import { inertCode, inertText } from './inert-markdown.ts';
import { shellWord } from './shell-word.ts';

/**
 * ScanReportOptions: `series` is how many series were scanned (for the
 * headline), `threshold` the fraction used, `repoUrl` (e.g.
 * `https://github.com/OWNER/NAME`) turns SHAs into commit links.
 */
export interface ScanReportOptions {
  series: number;
  threshold: number;
  branch: string;
  repoUrl?: string;
}

/** isConfirmed tells a finding that should alert (a confirmed change point or a two-night alert) from a one-night `watch`. */
export function isConfirmed(f: ScanFinding): boolean {
  return f.kind !== 'watch';
}

/** confirmedRegressions are the findings `benchbot scan` exits 1 for. */
export function confirmedRegressions(result: ScanResult): ScanFinding[] {
  return result.findings.filter((f) => isConfirmed(f) && f.direction === 'regression');
}

const BARS = '▁▂▃▄▅▆▇█';

/** sparkline draws medians as block characters, lowest to highest, for a table cell. */
export function sparkline(trend: readonly TrendPoint[]): string {
  if (trend.length === 0) return '';
  const values = trend.map((p) => p.median);
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  if (hi === lo) return BARS[0].repeat(values.length);
  return values.map((v) => BARS[Math.min(BARS.length - 1, Math.floor(((v - lo) / (hi - lo)) * BARS.length))]).join('');
}

function shortSha(sha: string): string {
  return /^[0-9a-f]{40,64}$/.test(sha) ? sha.slice(0, 7) : sha;
}

function commitLink(sha: string, repoUrl: string | undefined): string {
  if (!/^[0-9a-f]{7,64}$/.test(sha)) return inertCode(sha);
  return repoUrl ? `[${shortSha(sha)}](${repoUrl}/commit/${sha})` : `\`${shortSha(sha)}\``;
}

function ci(f: ScanFinding): string {
  return f.ratioCi ? `${formatChange(f.ratioCi[0])} … ${formatChange(f.ratioCi[1])}` : '–';
}

const KIND: Record<ScanFinding['kind'], string> = { 'change-point': 'change point', alert: 'two-night alert', 'ab-alert': 'interleaved A/B alert', watch: 'watch (one night)' };

/**
 * renderScanMarkdown renders a scan: a headline, then one table per kind of
 * finding (confirmed regressions, improvements, one-night watches) with the
 * size and CI, q, the commit range to bisect and the trend, then warnings.
 */
export function renderScanMarkdown(result: ScanResult, options: ScanReportOptions): string {
  const confirmed = result.findings.filter(isConfirmed);
  const regressions = confirmed.filter((f) => f.direction === 'regression');
  const improvements = confirmed.filter((f) => f.direction === 'improvement');
  const watches = result.findings.filter((f) => !isConfirmed(f));
  const lines: string[] = [];
  const headline = regressions.length > 0
    ? `${regressions.length} suspected regression${regressions.length === 1 ? '' : 's'}`
    : 'no regressions';
  lines.push(`### benchbot scan of ${inertCode(options.branch)}: ${headline}`, '');
  lines.push(`${options.series} series scanned, ${result.tested} candidate change${result.tested === 1 ? '' : 's'} tested; ${improvements.length} improvement${improvements.length === 1 ? '' : 's'}, ${watches.length} on watch.`, '');
  const table = (title: string, findings: ScanFinding[]) => {
    if (findings.length === 0) return;
    lines.push(`#### ${title}`, '');
    lines.push('| Series | Kind | Change (CI) | q | Before → after (median) | Last good → first bad | Nights since | Trend |');
    lines.push('| --- | --- | --- | --- | --- | --- | --- | --- |');
    for (const f of findings) {
      lines.push(`| ${inertText(`${f.benchmark} (${f.metric})`)} | ${KIND[f.kind]} | ${formatChange(f.ratio)} (${ci(f)}) | ${formatP(f.q)} | ${inertText(formatQuantity(f.before.median, f.unit))} → ${inertText(formatQuantity(f.after.median, f.unit))} | ${commitLink(f.lastGood.sha, options.repoUrl)} → ${commitLink(f.firstBad.sha, options.repoUrl)} | ${f.nightsSince} | ${sparkline(f.trend)} |`);
    }
    lines.push('');
  };
  table('Regressions', regressions);
  for (const f of confirmed) {
    const c = f.confirmation;
    if (c) lines.push(`- ${inertText(`${f.benchmark} (${f.metric})`)}: confirmed interleaved, ${commitLink(c.baseSha, options.repoUrl)} vs ${commitLink(c.headSha, options.repoUrl)} in ${c.sessions === 1 ? 'one session' : `${c.sessions} sessions`}: ${formatChange(c.ratio)}${c.ratioCi ? ` (${formatChange(c.ratioCi[0])} … ${formatChange(c.ratioCi[1])})` : ''}, p ${formatP(c.p)}`);
  }
  if (confirmed.some((f) => f.confirmation)) lines.push('');
  table('Improvements', improvements);
  table('Awaiting an interleaved A/B (last good vs first bad on this machine; not filed until it confirms)', result.awaiting ?? []);
  for (const f of result.awaiting ?? []) lines.push(`- ${inertText(`${f.benchmark} (${f.metric})`)} ${commitLink(f.lastGood.sha, options.repoUrl)} → ${commitLink(f.firstBad.sha, options.repoUrl)}: ${inertText(awaitingReason(f))}`);
  if ((result.awaiting ?? []).length > 0) lines.push('');
  table('On watch (one night beyond the robust z; not confirmed yet)', watches);
  if ((result.machineChanges ?? []).length > 0) {
    lines.push('#### Machine changes (a new segment starts; never a regression)', '');
    for (const m of result.machineChanges) lines.push(`- ${inertText(`${m.benchmark} (${m.metric})`)} at ${commitLink(m.night.sha, options.repoUrl)}: ${m.changes.map((x) => `${inertText(x.field)} ${inertText(x.before ?? 'unset')} → ${inertText(x.after ?? 'unset')}`).join(', ')}`);
    lines.push('');
  }
  if (regressions.length > 0) {
    const f = regressions[0];
    lines.push(`Bisect the first one: ${inertCode(`benchbot bisect --good ${shellWord(f.lastGood.sha)} --bad ${shellWord(f.firstBad.sha)} --benchmark ${shellWord(f.benchmark)} --metric ${shellWord(f.metric)} --bench CMD`)}`, '');
    lines.push(`Acknowledge an expected change: ${inertCode(`benchbot ack ${shellWord(f.series)} --at ${shellWord(f.firstBad.sha)} --reason "..."`)}`, '');
  }
  for (const w of result.warnings.slice(0, 20)) lines.push(`> ⚠️ ${inertText(w)}`);
  if (result.warnings.length > 20) lines.push(`> ⚠️ and ${result.warnings.length - 20} more warnings`);
  if (result.warnings.length > 0) lines.push('');
  lines.push(`<sub>Threshold ${(options.threshold * 100).toFixed(1).replace(/\.0$/, '')}%; windowed E-divisive means and a fast alert on nightly medians (t test with the history's night-to-night spread), each confirmed by the interleaved A/B of its last good and first bad commit (Mann-Whitney U, Hodges-Lehmann, Benjamini-Hochberg across series).</sub>`);
  return lines.join('\n');
}

/** AWAITING_REASON is what an awaiting finding waits for when the job that scanned it knew no more (no checkout to look in). */
export const AWAITING_REASON = 'waits for the interleaved A/B of last good vs first bad on the benchmark machine: benchbot nightly (or the nightly action) measures it after its night, benchbot nightly --confirm-only without one, in a checkout that has both commits';

/** awaitingReason is what an awaiting finding waits for (ScanFinding.waitingFor, else AWAITING_REASON). */
export function awaitingReason(f: ScanFinding): string {
  return f.waitingFor ?? AWAITING_REASON;
}

/** ScanJson is the documented JSON of `benchbot scan --output json` (snake_case, like the comparison report). */
export interface ScanJson {
  version: 1;
  branch: string;
  series: number;
  tested: number;
  threshold: number;
  regressions: number;
  findings: {
    series: string;
    benchmark: string;
    metric: string;
    unit: string;
    better: 'lower' | 'higher';
    fingerprint: string;
    kind: ScanFinding['kind'];
    direction: ScanFinding['direction'];
    ratio: number;
    ratio_ci: [number, number] | null;
    p: number;
    q: number | null;
    z: number | null;
    last_good: { sha: string; time: string };
    first_bad: { sha: string; time: string };
    nights_since: number;
    before: { nights: number; n: number; median: number };
    after: { nights: number; n: number; median: number };
    trend: { sha: string; time: string; median: number }[];
    confirmation: { base_sha: string; head_sha: string; ratio: number; ratio_ci: [number, number] | null; p: number; n_base: number; n_head: number; sessions: number } | null;
    history: { ratio: number; ratio_ci: [number, number]; p: number; night_sd: number } | null;
    machine_changes: { sha: string; time: string; changes: { field: string; before: string | null; after: string | null }[] }[];
  }[];
  /** awaiting are the findings without their interleaved A/B yet, each with what it waits for (`reason`). */
  awaiting: { series: string; benchmark: string; metric: string; direction: ScanFinding['direction']; last_good: { sha: string; time: string }; first_bad: { sha: string; time: string }; reason: string }[];
  machine_changes: { series: string; benchmark: string; metric: string; night: { sha: string; time: string }; changes: { field: string; before: string | null; after: string | null }[] }[];
  warnings: string[];
}

/** toScanJson maps a scan to its JSON; `regressions` counts the confirmed ones (what the exit code follows). */
export function toScanJson(result: ScanResult, options: ScanReportOptions): ScanJson {
  return {
    version: 1,
    branch: options.branch,
    series: options.series,
    tested: result.tested,
    threshold: options.threshold,
    regressions: confirmedRegressions(result).length,
    findings: result.findings.map((f) => ({
      series: f.series, benchmark: f.benchmark, metric: f.metric, unit: f.unit, better: f.better, fingerprint: f.machineKey,
      kind: f.kind, direction: f.direction, ratio: f.ratio, ratio_ci: f.ratioCi, p: f.p, q: f.q, z: f.zScore ?? null,
      last_good: f.lastGood, first_bad: f.firstBad, nights_since: f.nightsSince, before: f.before, after: f.after, trend: f.trend,
      confirmation: f.confirmation ? { base_sha: f.confirmation.baseSha, head_sha: f.confirmation.headSha, ratio: f.confirmation.ratio, ratio_ci: f.confirmation.ratioCi, p: f.confirmation.p, n_base: f.confirmation.nBase, n_head: f.confirmation.nHead, sessions: f.confirmation.sessions } : null,
      history: f.history ? { ratio: f.history.ratio, ratio_ci: f.history.ratioCi, p: f.history.p, night_sd: f.history.nightSd } : null,
      machine_changes: (f.machineChanges ?? []).map((m) => ({ sha: m.night.sha, time: m.night.time, changes: m.changes })),
    })),
    awaiting: (result.awaiting ?? []).map((f) => ({ series: f.series, benchmark: f.benchmark, metric: f.metric, direction: f.direction, last_good: f.lastGood, first_bad: f.firstBad, reason: awaitingReason(f) })),
    machine_changes: (result.machineChanges ?? []).map((m) => ({ series: m.series, benchmark: m.benchmark, metric: m.metric, night: m.night, changes: m.changes })),
    warnings: result.warnings,
  };
}
