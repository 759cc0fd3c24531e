/**
 * regression-issue: the body of the issue benchbot files when a nightly
 * regression is confirmed (and bisected), the comment that closes it on
 * recovery, and the bisect log both share. Pure: the GitHub edge
 * (src/github/regression-issue.ts) decides whether to create, update,
 * reopen or close.
 */

import { INSTRUCTIONS_METRIC, isWorkMetric } from '../model/work-metrics.ts';
import type { BisectLog } from '../bisect/bisect-log.ts';
import type { Fingerprint } from '../model/fingerprint.ts';
import type { Recovery } from '../scan/recovery.ts';
import type { ScanFinding, TrendPoint } from '../scan/scan-finding.ts';
import { formatChange, formatP, formatQuantity, significant } from './format-numbers.ts';
import { codeFence, inertCode, inertMermaidLabel, inertText, inertTitle } from './inert-markdown.ts';
import { dashboardSeriesId, dashboardSeriesUrl } from '../model/series-id.ts';
import type { ProfileDiff } from '../model/profile-diff.ts';
import { profileCommand, renderProfileMarkdown } from './profile-report.ts';
import { shellWord } from './shell-word.ts';

/** REGRESSION_LABEL is the label every regression issue carries; the upsert searches only issues with it. */
export const REGRESSION_LABEL = 'benchbot';

/** Reproduce is what a developer needs to rerun the measurement locally. */
export interface Reproduce {
  bench: string;
  build?: string;
  format?: string;
}

/**
 * RegressionIssueInput: `finding` from the scan, `bisect` when a bisection
 * ran, `owner`/`repo` for links (`serverUrl` defaults to
 * https://github.com), the fingerprint of the machine that measured, and
 * the bench command for the reproduce section.
 */
export interface RegressionIssueInput {
  finding: ScanFinding;
  bisect?: BisectLog;
  owner: string;
  repo: string;
  serverUrl?: string;
  fingerprint?: Fingerprint;
  reproduce?: Reproduce;
  threshold?: number;
  /** dashboardUrl, when a dashboard is published there (model/series-id.ts), links the series' chart around the change. */
  dashboardUrl?: string;
  /** profile is the benchmark's differential profile across the change (culprit's parent against culprit, or last good against first bad): where it lives. */
  profile?: ProfileDiff;
}

/** RegressionIssue is what to file: the marker (also the body's first line), a title and a body. */
export interface RegressionIssue {
  marker: string;
  title: string;
  body: string;
}

/**
 * regressionMarker is the hidden first line that identifies one regression:
 * one series and one culprit (the culprit merge's SHA, or the nightly range
 * `lastGood..firstBad` before bisection). The series key is URI-encoded so
 * that no key can close the HTML comment (markerEncode).
 */
export function regressionMarker(series: string, culprit: string): string {
  return `<!-- benchbot:regression series=${markerEncode(series)} culprit=${markerEncode(culprit)} -->`;
}

/**
 * markerEncode is encodeURIComponent for any string: a lone surrogate (a
 * benchmark name from JSON may hold `"\ud800"`), which encodeURIComponent
 * refuses with URIError, becomes `%uD800`. encodeURIComponent writes `%`
 * as `%25`, so `%u` means only this and markerDecode inverts it exactly:
 * two names that differ in a lone surrogate keep two markers.
 */
function markerEncode(text: string): string {
  return text.split(LONE_SURROGATE).map((part, i) => (i % 2 === 1 ? `%u${part.charCodeAt(0).toString(16).toUpperCase()}` : encodeURIComponent(part))).join('');
}

/** markerDecode inverts markerEncode; URIError for what markerEncode never writes. */
function markerDecode(text: string): string {
  return text.split(/%u([0-9A-F]{4})/).map((part, i) => (i % 2 === 1 ? String.fromCharCode(parseInt(part, 16)) : decodeURIComponent(part))).join('');
}

// A high surrogate without a low one after it, or a low one without a high one before it; captured, so split keeps it.
const LONE_SURROGATE = /([\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF])/;

/** parseRegressionMarker reads a marker back from the first line of a body; null when there is none. */
export function parseRegressionMarker(body: string | null | undefined): { series: string; culprit: string } | null {
  const first = (body ?? '').replace(/\r\n/g, '\n').split('\n', 1)[0].trim();
  const m = /^<!-- benchbot:regression series=(\S+) culprit=(\S+) -->$/.exec(first);
  if (!m) return null;
  try {
    return { series: markerDecode(m[1]), culprit: markerDecode(m[2]) };
  } catch {
    return null;
  }
}

/** culpritOf is the culprit a finding's issue is keyed by: the bisected merge, else the nightly range. */
export function culpritOf(finding: ScanFinding, bisect?: BisectLog): string {
  return bisect?.culprit?.sha ?? `${finding.lastGood.sha}..${finding.firstBad.sha}`;
}

function short(sha: string): string {
  return /^[0-9a-f]{40,64}$/.test(sha) ? sha.slice(0, 7) : sha;
}

function percent(fraction: number): string {
  return `${Number((fraction * 100).toFixed(1))}%`;
}

/** quantity shows a value with its (untrusted) unit. */
function quantity(value: number, unit: string): string {
  return inertText(formatQuantity(value, unit));
}

interface Links {
  commit: (sha: string) => string;
  pr: (n: number) => string;
}

const isSha = (sha: unknown): sha is string => typeof sha === 'string' && /^[0-9a-f]{7,64}$/.test(sha);
// The bisect log and the scan come from an artifact: a "PR number" may be anything.
const isPr = (n: unknown): n is number => Number.isSafeInteger(n) && (n as number) > 0;

/** links makes commit and PR links only from a real SHA and a real number; anything else is shown as text. */
function links(input: { owner?: string; repo?: string; serverUrl?: string }): Links {
  if (!input.owner || !input.repo) {
    return { commit: (sha) => (isSha(sha) ? `\`${short(sha)}\`` : inertCode(String(sha))), pr: (n) => (isPr(n) ? `#${n}` : inertText(String(n))) };
  }
  const base = `${(input.serverUrl ?? 'https://github.com').replace(/\/+$/, '')}/${encodeURIComponent(input.owner)}/${encodeURIComponent(input.repo)}`;
  return {
    commit: (sha) => (isSha(sha) ? `[\`${short(sha)}\`](${base}/commit/${sha})` : inertCode(String(sha))),
    pr: (n) => (isPr(n) ? `[#${n}](${base}/pull/${n})` : inertText(String(n))),
  };
}

/**
 * followedLine says what a bisection that followed counted work measured:
 * a count under valgrind per commit, which the machine's load does not
 * change (null for wall time, the default the heading already names).
 */
export function followedLine(log: Pick<BisectLog, 'metric'>): string | null {
  if (log.metric === undefined || !isWorkMetric(log.metric)) return null;
  const what = log.metric === INSTRUCTIONS_METRIC ? 'instruction count' : 'estimated cycle count';
  return `Followed the benchmark's ${what} under valgrind with a fixed iteration schedule: one count per probe, which the machine's load does not change.`;
}

/**
 * renderBisectLog renders the probing as a markdown table, one row per
 * recorded session: the commit (with its PR and subject when known), the
 * oracle's verdict after pooling, the pooled n and the ratio against the
 * good reference with its CI.
 */
export function renderBisectLog(log: BisectLog, options: { owner?: string; repo?: string; serverUrl?: string } = {}): string {
  const l = links(options);
  const bySha = new Map((log.candidates ?? []).map((c) => [c.sha, c]));
  const lines = ['| # | Commit | PR | Subject | Verdict | n | Ratio vs good (CI) |', '| --- | --- | --- | --- | --- | --- | --- |'];
  log.steps.forEach((s, i) => {
    const c = bySha.get(s.sha);
    const ratio = s.ratio === null ? '–' : `${formatChange(s.ratio)}${s.ratio_ci ? ` (${formatChange(s.ratio_ci[0])} … ${formatChange(s.ratio_ci[1])})` : ''}`;
    const verdict = s.verdict === 'skip' ? `skip${s.reason ? `: ${s.reason}` : ''}` : `${s.verdict}${s.partial ? ' (partial)' : ''}`;
    lines.push(`| ${i + 1} | ${l.commit(s.sha)} | ${c?.pr ? l.pr(c.pr) : '–'} | ${inertText(c?.subject ?? '')} | ${inertText(verdict)} | ${inertText(String(s.n))} | ${ratio} |`);
  });
  const ref = log.reference;
  const refText = ref.ratio === null ? 'no reference ratio' : `bad/good ${formatChange(ref.ratio)}${ref.ratio_ci ? ` (CI ${formatChange(ref.ratio_ci[0])} … ${formatChange(ref.ratio_ci[1])})` : ''}, p ${formatP(ref.p)}`;
  lines.push('', `References: ${log.good ? l.commit(log.good) : 'good'} vs ${log.bad ? l.commit(log.bad) : 'bad'}, ${refText}. ${log.sessions} benchmark session${log.sessions === 1 ? '' : 's'}${log.probe_steps !== undefined ? ` in ${log.probe_steps} step${log.probe_steps === 1 ? '' : 's'}` : ''}${log.candidates ? ` over ${log.candidates.length} candidate merge${log.candidates.length === 1 ? '' : 's'}` : ''}.`);
  return lines.join('\n');
}

/**
 * trendChart is a mermaid `xychart-beta` block (GitHub renders it) of the
 * nightly medians: x the night's date (and short SHA when dates repeat), y
 * the median in the series' unit. Every label is untrusted (names, units,
 * and dates and SHAs from the artifact) and goes through inertMermaidLabel.
 */
export function trendChart(trend: readonly TrendPoint[], title: string, unit: string): string {
  if (trend.length === 0) return '';
  const dates = trend.map((p) => String(p.time).slice(5, 10));
  const repeated = new Set(dates).size !== dates.length;
  const labels = trend.map((p, i) => (repeated ? `${dates[i]} ${short(p.sha)}` : dates[i]));
  const values = trend.map((p) => Number(significant(p.median, 4)));
  const lo = Math.min(...values);
  const hi = Math.max(...values);
  const pad = (hi - lo) * 0.1 || Math.abs(hi) * 0.01 || 1;
  const quote = (s: string) => `"${inertMermaidLabel(s)}"`;
  return codeFence('mermaid', [
    'xychart-beta',
    `    title ${quote(title)}`,
    `    x-axis [${labels.map(quote).join(', ')}]`,
    `    y-axis ${quote(unit)} ${significant(lo - pad, 4)} --> ${significant(hi + pad, 4)}`,
    `    line [${values.join(', ')}]`,
  ]);
}

const FINGERPRINT_ROWS: [keyof Fingerprint, string][] = [
  ['cpuModel', 'CPU'], ['cores', 'Cores'], ['governor', 'Governor'], ['turbo', 'Turbo / boost'], ['smt', 'SMT'],
  ['isolatedCpus', 'Isolated CPUs'], ['kernel', 'Kernel'], ['memoryBytes', 'Memory'], ['virtualization', 'Virtualization'],
  ['hostName', 'Host'], ['runnerLabels', 'Runner labels'], ['buildType', 'Build type'],
];

function fingerprintTable(fp: Fingerprint): string {
  const rows: string[] = [];
  for (const [key, label] of FINGERPRINT_ROWS) {
    const v = fp[key];
    if (v === undefined) continue;
    const text = key === 'memoryBytes' ? `${significant((v as number) / 2 ** 30)} GiB` : Array.isArray(v) ? v.join(', ') : typeof v === 'boolean' ? (v ? 'on' : 'off') : String(v);
    rows.push(`| ${label} | ${inertText(text)} |`);
  }
  for (const [tool, version] of Object.entries(fp.toolVersions ?? {}).sort()) rows.push(`| ${inertText(tool)} | ${inertText(String(version))} |`);
  return rows.length === 0 ? '_not recorded_' : ['| | |', '| --- | --- |', ...rows].join('\n');
}

/**
 * evidenceLines say why the finding is believed: the interleaved A/B that
 * confirmed it (last good vs first bad in one session on the same machine),
 * the nights' test, and any machine change in the trend (a new segment
 * there, not a regression).
 */
function evidenceLines(f: ScanFinding, l: Links): string[] {
  const out: string[] = [];
  const c = f.confirmation;
  if (c) {
    const ci = c.ratioCi ? ` (95% CI ${formatChange(c.ratioCi[0])} … ${formatChange(c.ratioCi[1])})` : '';
    out.push('', `**Confirmed interleaved:** ${l.commit(c.baseSha)} vs ${l.commit(c.headSha)} measured in the same session${c.sessions > 1 ? `s (${c.sessions} sessions)` : ''} on the same machine, ABBA rounds: ${formatChange(c.ratio)}${ci}, p = ${formatP(c.p)}, n = ${c.nBase} + ${c.nHead}.`);
  }
  const h = f.history;
  if (h) out.push('', `Nights: ${formatChange(h.ratio)} (95% CI ${formatChange(h.ratioCi[0])} … ${formatChange(h.ratioCi[1])}), t test on nightly log medians with the night-to-night spread of the history (${percent(h.nightSd)}), p = ${formatP(h.p)}.`);
  for (const m of f.machineChanges ?? []) {
    out.push('', `**The machine changed** at nightly ${l.commit(m.night.sha)} (${inertText(m.night.time)}): ${m.changes.map((x) => `${inertText(x.field)} ${inertText(x.before ?? 'unset')} → ${inertText(x.after ?? 'unset')}`).join(', ')}; a new segment starts there (not a regression).`);
  }
  return out;
}

/**
 * renderRegressionIssue renders the issue: title, then a body whose first
 * line is the marker, with what regressed and by how much (ratio, CI, q),
 * the culprit merge with its PR link and author (or the nightly range when
 * not bisected), the trend chart, the bisect log, the machine and the
 * commands to reproduce it.
 */
export function renderRegressionIssue(input: RegressionIssueInput): RegressionIssue {
  const f = input.finding;
  const l = links(input);
  const b = input.bisect;
  const marker = regressionMarker(f.series, culpritOf(f, b));
  const name = `${f.benchmark} (${f.metric})`;
  const culprit = b?.culprit ?? null;
  const candidate = culprit ? b?.candidates?.find((c) => c.sha === culprit.sha) : undefined;
  const where = culprit ? (isPr(culprit.pr) ? `#${culprit.pr}` : inertTitle(short(culprit.sha), 40)) : inertTitle(`${short(f.lastGood.sha)}..${short(f.firstBad.sha)}`, 40);
  // Titles are plain text that still link `#N`: the benchmark's words are broken, the culprit's PR stays a reference.
  const title = `Performance regression: ${inertTitle(`${f.benchmark} ${f.metric}`, 200)} ${formatChange(f.ratio)} ${culprit ? 'in' : 'between'} ${where}`;
  const worse = f.better === 'lower' ? 'slower' : 'lower';
  const ci = f.ratioCi ? ` (95% CI ${formatChange(f.ratioCi[0])} … ${formatChange(f.ratioCi[1])})` : '';
  const lines: string[] = [marker, `## ${inertText(name)} regressed by ${formatChange(f.ratio)}`, ''];
  lines.push(`Nightly benchmarks on ${inertCode(f.branch)} show **${inertText(f.benchmark)}** (${inertText(f.metric)}, ${f.better === 'higher' ? 'higher' : 'lower'} is better) ${worse}: ${formatChange(f.ratio)}${ci}, q = ${formatP(f.q)}. Median ${quantity(f.before.median, f.unit)} over ${f.before.nights} nights (${f.before.n} samples) before, ${quantity(f.after.median, f.unit)} over ${f.after.nights} nights (${f.after.n} samples) after.`);
  lines.push('', `Last good nightly: ${l.commit(f.lastGood.sha)} (${inertText(f.lastGood.time)}); first bad nightly: ${l.commit(f.firstBad.sha)} (${inertText(f.firstBad.time)}); ${f.nightsSince} night${f.nightsSince === 1 ? '' : 's'} since. Found as a ${f.kind === 'change-point' ? 'change point (E-divisive on nightly medians)' : f.kind === 'alert' ? 'fast alert (the newest nights against the segment before them)' : f.kind === 'ab-alert' ? 'interleaved A/B alert (the night\'s own A/B against the night before, confirmed by later sessions of the same pair)' : 'one-night watch'}.`);
  lines.push(...evidenceLines(f, l));

  lines.push('', '### Culprit', '');
  if (b === undefined) {
    lines.push(`Not bisected yet: the change is between nightlies ${l.commit(f.lastGood.sha)} and ${l.commit(f.firstBad.sha)}.`);
  } else if (b.status === 'not-reproducible') {
    const r = b.reference;
    lines.push(`Not reproducible on the bisect machine: ${l.commit(b.good ?? f.lastGood.sha)} vs ${l.commit(b.bad ?? f.firstBad.sha)} measured ${r.ratio === null ? 'no ratio' : formatChange(r.ratio)}${r.ratio_ci ? ` (CI ${formatChange(r.ratio_ci[0])} … ${formatChange(r.ratio_ci[1])})` : ''}, which is not a change beyond the threshold.`);
  } else if (culprit) {
    const pr = culprit.pr !== null ? `${l.pr(culprit.pr)}, merged as ` : '';
    const author = candidate?.author ? ` by ${inertText(candidate.author)}` : '';
    lines.push(`${pr}${l.commit(culprit.sha)}${author}: _${inertText(culprit.subject)}_`);
    if (b.culprits.length > 1) {
      lines.push('', 'The shift is spread over several merges:', '');
      for (const c of b.culprits) lines.push(`- ${c.pr !== null ? `${l.pr(c.pr)} ` : ''}${l.commit(c.sha)} ${inertText(c.subject)}: ${c.ratio === null ? '–' : formatChange(c.ratio)}${c.share === null ? '' : `, ${percent(c.share)} of the shift`}`);
    }
  } else if (b.range && b.range.length > 0) {
    lines.push(`Narrowed to ${b.range.length} merges (some could not be measured): ${b.range.map((c) => `${c.pr !== null ? `${l.pr(c.pr)} ` : ''}${l.commit(c.sha)}`).join(', ')}.`);
  } else {
    lines.push('The bisection did not finish.');
  }

  const followed = b === undefined ? null : followedLine(b);
  if (followed) lines.push('', followed);

  if (input.profile !== undefined) lines.push('', '### Where it changed', '', renderProfileMarkdown(input.profile));

  lines.push('', '### Trend', '', trendChart(f.trend, `${f.benchmark} ${f.metric}, nightly median`, f.unit));
  const chart = input.dashboardUrl === undefined ? undefined : dashboardSeriesUrl(input.dashboardUrl, dashboardSeriesId(`${input.owner}/${input.repo}`, f.series), trendRange(f));
  if (chart !== undefined) lines.push('', `[Every night of this series on the dashboard](<${chart}>), with the change marked and the raw samples of each night.`);
  if (b !== undefined && b.steps.length > 0) {
    lines.push('', '<details><summary>Bisect log</summary>', '', renderBisectLog(b, input), '', '</details>');
  }
  lines.push('', '### Environment', '', input.fingerprint ? fingerprintTable(input.fingerprint) : '_not recorded_');

  const rep = input.reproduce;
  const extra = rep ? `${rep.build ? ` --build ${shellWord(rep.build)}` : ''}${rep.format ? ` --format ${shellWord(rep.format)}` : ''}` : '';
  const bench = rep ? shellWord(rep.bench) : 'CMD';
  const select = `--benchmark ${shellWord(f.benchmark)} --metric ${shellWord(f.metric)}`;
  const commands: string[] = [];
  if (culprit) commands.push(`benchbot run --base ${shellWord(`${culprit.sha}^1`)} --head ${shellWord(culprit.sha)} --bench ${bench}${extra}`);
  commands.push(`benchbot bisect --good ${shellWord(f.lastGood.sha)} --bad ${shellWord(f.firstBad.sha)} --bench ${bench}${extra} ${select}`);
  // Where the change lives, function by function: the same benchmark under callgrind at both ends of the change.
  const [from, to] = culprit ? [`${culprit.sha}^1`, culprit.sha] : [f.lastGood.sha, f.firstBad.sha];
  commands.push(profileCommand({ base: from, head: to, benchmark: f.benchmark, bench: rep?.bench, build: rep?.build, format: rep?.format }));
  lines.push('', '### Reproduce locally', '', codeFence('sh', commands));
  const threshold = input.threshold ?? 0.02;
  lines.push('', `<sub>benchbot keeps this issue up to date: a later detection of the same regression updates it, and it is closed with the numbers when the nightly series is back within the ${percent(threshold)} threshold. An expected change? ${inertCode(`benchbot ack ${shellWord(f.series)} --at ${shellWord(culprit?.sha ?? f.firstBad.sha)} --reason "..."`)}</sub>`);
  return { marker, title, body: lines.join('\n') };
}

/** trendRange is the days the issue's trend covers (a permalink's time range), or undefined without dated nights. */
function trendRange(f: ScanFinding): { from: string; to: string } | undefined {
  const days = [...f.trend.map((t) => t.time), f.firstBad.time].map((t) => Date.parse(t)).filter(Number.isFinite);
  if (days.length === 0) return undefined;
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  return { from: day(Math.min(...days)), to: day(Math.max(...days)) };
}

/** renderRecoveryComment is the comment that closes a regression issue, with the numbers. */
export function renderRecoveryComment(input: { series: string; benchmark: string; metric: string; unit: string; recovery: Recovery; lastNight: { sha: string; time: string }; nights: number; threshold?: number; owner?: string; repo?: string; serverUrl?: string }): string {
  const r = input.recovery;
  const l = links(input);
  const ci = r.ratioCi ? ` (95% CI ${formatChange(r.ratioCi[0])} … ${formatChange(r.ratioCi[1])})` : '';
  return [
    `**Recovered.** ${inertText(input.benchmark)} (${inertText(input.metric)}) is back within the ${percent(input.threshold ?? 0.02)} threshold: median ${quantity(r.recent.median, input.unit)} over the last ${input.nights} night${input.nights === 1 ? '' : 's'} (${r.recent.n} samples, up to ${l.commit(input.lastNight.sha)} on ${inertText(input.lastNight.time)}) against ${quantity(r.baseline.median, input.unit)} before the regression (${r.baseline.n} samples): ${r.ratio === null ? 'no ratio' : formatChange(r.ratio)}${ci}, p = ${formatP(r.p)}.`,
    '',
    'Closing; benchbot reopens this issue if the same regression comes back.',
  ].join('\n');
}
