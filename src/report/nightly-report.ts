/**
 * nightly-report: what `benchbot nightly` prints: the night's A/B (the
 * run report), the branch's scan, and what was done about its confirmed
 * regressions (bisections with their culprit, issues filed or closed, the
 * dashboard written), as text, markdown or JSON. Pure: the job
 * (jobs/run-nightly.ts) hands it the outcome.
 */

import type { BisectLog } from '../bisect/bisect-log.ts';
import type { RunAbResult } from '../runner/run-ab.ts';
import type { ScanFinding } from '../scan/scan-finding.ts';
import type { ScanResult } from '../scan/scan-history.ts';
import { renderBisectMarkdown } from './bisect-report.ts';
import { formatChange, formatQuantity } from './format-numbers.ts';
import { inertPlain, inertText } from './inert-markdown.ts';
import { renderRunReport, runReportContext } from './run-report.ts';
import { renderReport } from './report-renderers.ts';
import { awaitingReason, confirmedRegressions, isConfirmed, renderScanMarkdown, toScanJson, type ScanJson, type ScanReportOptions } from './scan-report.ts';

/** NightlyReportInput is a nightly's outcome as the report shows it. */
export interface NightlyReportInput {
  run?: RunAbResult;
  scan: ScanResult;
  series: number;
  confirmed: Array<{ base: string; head: string }>;
  unmeasurable: Array<{ base: string; head: string; reason: string }>;
  bisects: Array<{ finding: ScanFinding; log?: BisectLog; reused?: boolean; error?: string }>;
  issues: Array<{ series: string; action: string; number: number; url: string }>;
  closed: Array<{ number: number; benchmark: string; metric: string; action: string }>;
  dashboard?: { dir: string; series: number; files: number };
  warnings: string[];
}

/** NightlyReportFormat is what `benchbot nightly --output` offers. */
export type NightlyReportFormat = 'text' | 'markdown' | 'json';

/** NIGHTLY_REPORT_FORMATS lists them, the default first. */
export const NIGHTLY_REPORT_FORMATS: readonly NightlyReportFormat[] = ['text', 'markdown', 'json'];

/** renderNightlyReport renders a nightly's outcome in one format. */
export function renderNightlyReport(input: NightlyReportInput, format: NightlyReportFormat, options: ScanReportOptions): string {
  if (format === 'json') return JSON.stringify(nightlyJson(input, options), null, 2);
  return format === 'markdown' ? nightlyMarkdown(input, options) : nightlyText(input, options);
}

/** NightlyJson is `benchbot nightly --output json`: the night's run report, the scan (as `benchbot scan --output json`) and what was done. */
export interface NightlyJson {
  version: 1;
  branch: string;
  night: unknown;
  scan: ScanJson;
  confirmations: { measured: Array<{ base_sha: string; head_sha: string }>; unmeasurable: Array<{ base_sha: string; head_sha: string; reason: string }> };
  bisects: Array<{ series: string; benchmark: string; metric: string; good: string; bad: string; status: string | null; culprit: { sha: string; subject: string; pr: number | null } | null; reused: boolean; error: string | null }>;
  issues: Array<{ series: string; action: string; number: number; url: string }>;
  closed: Array<{ number: number; benchmark: string; metric: string; action: string }>;
  dashboard: { dir: string; series: number; files: number } | null;
  warnings: string[];
}

function nightlyJson(input: NightlyReportInput, options: ScanReportOptions): NightlyJson {
  const night = input.run ? JSON.parse(renderReport('json', input.run.report, runReportContext(input.run))) : null;
  return {
    version: 1,
    branch: options.branch,
    night,
    scan: toScanJson(input.scan, options),
    confirmations: {
      measured: input.confirmed.map((p) => ({ base_sha: p.base, head_sha: p.head })),
      unmeasurable: input.unmeasurable.map((p) => ({ base_sha: p.base, head_sha: p.head, reason: p.reason })),
    },
    bisects: input.bisects.map((b) => ({
      series: b.finding.series, benchmark: b.finding.benchmark, metric: b.finding.metric, good: b.finding.lastGood.sha, bad: b.finding.firstBad.sha,
      status: b.log?.status ?? null, culprit: b.log?.culprit ? { sha: b.log.culprit.sha, subject: b.log.culprit.subject, pr: b.log.culprit.pr } : null,
      reused: b.reused === true, error: b.error ?? null,
    })),
    issues: input.issues,
    closed: input.closed,
    dashboard: input.dashboard ?? null,
    warnings: input.warnings,
  };
}

function nightlyMarkdown(input: NightlyReportInput, options: ScanReportOptions): string {
  const parts: string[] = [];
  if (input.run) parts.push(renderRunReport(input.run, 'markdown'));
  parts.push(renderScanMarkdown(input.scan, options));
  for (const b of input.bisects) {
    if (b.log) parts.push(renderBisectMarkdown(b.log) + (b.reused ? '\n\n<sub>Bisected on an earlier night; the range has not changed.</sub>' : ''));
  }
  const done = doneLines(input).map((l) => `- ${inertText(l)}`);
  if (done.length > 0) parts.push(['#### What the nightly did', '', ...done].join('\n'));
  return parts.join('\n\n');
}

function nightlyText(input: NightlyReportInput, options: ScanReportOptions): string {
  const parts: string[] = [];
  if (input.run) parts.push(`the night: ${input.run.head.sha.slice(0, 12)} against ${input.run.base.sha.slice(0, 12)}\n\n${renderRunReport(input.run, 'text')}`);
  parts.push(scanText(input.scan, options));
  const done = doneLines(input).map(inertPlain);
  if (done.length > 0) parts.push(done.join('\n'));
  return parts.join('\n\n');
}

/** scanText is the scan in a few plain lines: the headline, then a line per finding (what awaits, with why it cannot be measured). */
function scanText(result: ScanResult, options: ScanReportOptions): string {
  const regressions = confirmedRegressions(result);
  const lines = [`scan of ${inertPlain(options.branch)}: ${regressions.length === 0 ? 'no regressions' : `${regressions.length} regression${regressions.length === 1 ? '' : 's'}`} (${options.series} series, ${result.tested} candidate change${result.tested === 1 ? '' : 's'} tested)`];
  const line = (label: string, f: ScanFinding) => `  ${label} ${inertPlain(f.benchmark)} (${inertPlain(f.metric)}): ${formatChange(f.ratio)}, ${inertPlain(formatQuantity(f.before.median, f.unit))} -> ${inertPlain(formatQuantity(f.after.median, f.unit))}; last good ${f.lastGood.sha.slice(0, 12)}, first bad ${f.firstBad.sha.slice(0, 12)}`;
  for (const f of result.findings.filter(isConfirmed)) lines.push(line(f.direction === 'regression' ? 'REGRESSION' : 'improvement', f));
  for (const f of result.awaiting ?? []) lines.push(`${line('awaiting an interleaved A/B:', f)}\n    ${inertPlain(awaitingReason(f))}`);
  for (const f of result.findings.filter((x) => !isConfirmed(x))) lines.push(line('on watch:', f));
  for (const w of result.warnings.slice(0, 20)) lines.push(`warning: ${inertPlain(w)}`);
  return lines.join('\n');
}

/** doneLines say what the nightly did beyond the scan: confirmations, bisections, issues, the dashboard, and what failed. */
function doneLines(input: NightlyReportInput): string[] {
  const short = (sha: string) => sha.slice(0, 12);
  const lines: string[] = [];
  for (const p of input.confirmed) lines.push(`confirmation A/B measured: ${short(p.base)} vs ${short(p.head)}`);
  for (const p of input.unmeasurable) lines.push(`confirmation A/B not measurable here: ${short(p.base)} vs ${short(p.head)}: ${p.reason}`);
  for (const b of input.bisects) {
    const what = `${b.finding.benchmark} (${b.finding.metric})`;
    if (b.error) lines.push(`bisect of ${what} failed: ${b.error}`);
    else if (b.log?.culprit) lines.push(`culprit of ${what}: ${b.log.culprit.pr !== null ? `#${b.log.culprit.pr} ` : ''}${short(b.log.culprit.sha)} ${b.log.culprit.subject}${b.reused ? ' (bisected on an earlier night)' : ''}`);
    else if (b.log) lines.push(`bisect of ${what}: ${b.log.status}`);
  }
  for (const i of input.issues) lines.push(`regression issue #${i.number} ${i.action}: ${i.url}`);
  for (const c of input.closed) lines.push(`regression issue #${c.number} ${c.action}: ${c.benchmark} (${c.metric}) recovered`);
  if (input.dashboard) lines.push(`dashboard of ${input.dashboard.series} series written to ${input.dashboard.dir} (${input.dashboard.files} files)`);
  for (const w of input.warnings) lines.push(`warning: ${w}`);
  return lines;
}
