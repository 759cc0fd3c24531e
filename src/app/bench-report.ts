import type { CompareSide, ComparisonReport } from '../compare/compare-runs.ts';
import { readArtifactProfiles } from '../formats/profile-artifact.ts';
import { whereMarkdown } from '../report/profile-report.ts';
import type { Measurement } from '../model/measurement.ts';
import type { Comparison, SideSummary, Verdict } from '../model/comparison.ts';
import { GITHUB_COMMENT_LIMIT, REPORT_MARKER, renderMarkdown } from '../report/markdown-report.ts';
import { flatten, inertText } from '../report/inert-markdown.ts';
import { parseReportSettings, type ReportSettings } from '../jobs/report-settings.ts';
import { RESULTS_FILES } from '../jobs/results-artifact.ts';
import { actionSetting, SettingError } from '../jobs/setting-names.ts';
import { collectSide, replayLooks } from '../compare/replay-looks.ts';
import { readSource } from '../formats/detect.ts';
import { FormatError } from '../formats/format-error.ts';

/**
 * Renders what the app writes into the sticky PR comment over a `/bench`
 * lifecycle: "running" when dispatched, the report when the run completes,
 * or the failure with a link to the log. Pure: the handlers fetch, this
 * formats. The JSON report comes from an artifact that a workflow wrote
 * after running pull-request code, so it is validated field by field.
 */

/** REPORT_ARTIFACT is the artifact the action uploads with report.json (action.yml `artifact-name` default). */
export const REPORT_ARTIFACT = 'benchbot-report';

/** ReportShapeError says which field of report.json is wrong. */
export class ReportShapeError extends Error {
  override name = 'ReportShapeError';
}

/**
 * benchSettings derives the report settings of a dispatched `/bench` from the
 * inputs the app itself dispatched (`threshold`, `thresholds`, `runs`,
 * `filter`), mapped as the starter workflow (benchbot-bench-command.yml)
 * maps them (threshold default 2%, runs=N as min-runs and max-runs, else 10
 * to 40), and parsed by the parser the action's inputs go through
 * (jobs/report-settings.ts) with its defaults (alpha 0.05): the same
 * settings the report job was given. Nothing comes from the artifact.
 */
export function benchSettings(args: Readonly<Record<string, string>>): ReportSettings {
  try {
    return parseReportSettings({
      threshold: args.threshold || '2%',
      'threshold-for': args.thresholds,
      filter: args.filter,
      'min-runs': args.runs || '10',
      'max-runs': args.runs || '40',
    }, actionSetting);
  } catch (error) {
    if (error instanceof SettingError) throw new ReportShapeError(`the dispatched inputs do not parse: ${error.message}`);
    throw error;
  }
}

/**
 * MAX_RECOMPUTED_SERIES is how many series (benchmark x metric) of a `/bench`
 * artifact the app recomputes, 10,000: a real suite has a few hundred to a
 * few thousand, and the recompute costs about 0.45 ms per series on a shared
 * two-core machine (12,000 took 5.4 s), so the audit's 120,000 (which held
 * the app's thread 43-163 s) would take about a minute of a core. The rest are left out of the comment
 * and the check run, which say so (capNote); the artifact still has them
 * all. Artifacts are capped at 32 MiB per file already (read-zip.ts).
 */
export const MAX_RECOMPUTED_SERIES = 10_000;

/** RecomputeCap says how many series the recompute kept of how many the artifact had. */
export interface RecomputeCap {
  kept: number;
  total: number;
}

/** RecomputedReport is a recomputed report and, when MAX_RECOMPUTED_SERIES applied, what it left out. */
export interface RecomputedReport {
  report: ComparisonReport;
  cap: RecomputeCap | null;
}

/**
 * recomputeBenchReport is the app's view of a `/bench` run: the comparisons,
 * every count, the headline and the check conclusion recomputed from the raw
 * samples in the report artifact (base.json and head.json, benchbot JSON),
 * with the looks the measuring job took replayed at their alphas
 * (replayLooks, as the action's report role does). The artifact was
 * uploaded by a run that executed pull-request code, which can upload
 * artifacts under any name: its report.json (summary, verdicts, counts) is
 * never read. At most `maxSeries` series are compared: the first ones head
 * lists, then base's; the cap says so. Throws ReportShapeError naming the
 * file and what is wrong.
 */
export function recomputeBenchReport(files: { base: string; head: string }, settings: ReportSettings, maxSeries = MAX_RECOMPUTED_SERIES): RecomputedReport {
  const side = (path: string, text: string) => {
    try {
      return collectSide([readSource({ path, text }, 'benchbot')], settings.filter);
    } catch (error) {
      if (error instanceof FormatError) throw new ReportShapeError(error.message);
      throw error;
    }
  };
  const base = side(RESULTS_FILES.base, files.base);
  const head = side(RESULTS_FILES.head, files.head);
  const cap = capSeries(base, head, maxSeries);
  return { report: replayLooks(base, head, settings), cap };
}

/**
 * capSeries keeps the first `max` series (benchmark x metric) of head, then
 * base, on both sides, with the warnings of their benchmarks (and those of
 * no benchmark, at most `max`), in place; null when nothing was left out.
 */
function capSeries(base: CompareSide, head: CompareSide, max: number): RecomputeCap | null {
  const key = (m: Measurement) => `${m.benchmark}\u0000${m.metric}`;
  const kept = new Set<string>();
  let total = 0;
  const all = new Set<string>();
  for (const m of [...head.measurements, ...base.measurements]) {
    const k = key(m);
    if (all.has(k)) continue;
    all.add(k);
    total++;
    if (kept.size < max) kept.add(k);
  }
  if (total <= max) return null;
  const benchmarks = new Set<string>();
  for (const sideOf of [head, base]) {
    sideOf.measurements = sideOf.measurements.filter((m) => kept.has(key(m)));
    for (const m of sideOf.measurements) benchmarks.add(m.benchmark);
  }
  for (const sideOf of [head, base]) sideOf.warnings = sideOf.warnings.filter((w) => (w.benchmark === undefined ? true : benchmarks.has(w.benchmark))).slice(0, max);
  return { kept: kept.size, total };
}

/** capNote is the paragraph a report recomputed under the cap carries. */
export function capNote(cap: RecomputeCap): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `> [!NOTE]\n> The artifact holds ${n(cap.total)} series; the app recomputes at most ${n(cap.kept)} (the first in head's order), so ${n(cap.total - cap.kept)} are not in this comment or the check run. The run's \`${REPORT_ARTIFACT}\` artifact has them all.`;
}

/** RecomputedBench is what the app posts for a completed `/bench`: the comment body, the counts (for the check), and the cap if one applied. */
export interface RecomputedBench {
  body: string;
  summary: ComparisonReport['summary'];
  cap: RecomputeCap | null;
}

/**
 * recomputeAndRender recomputes a `/bench` report from the artifact's
 * samples with the dispatched inputs (benchSettings, recomputeBenchReport)
 * and renders the sticky comment, with capNote when the cap applied. It is
 * what the app runs off its event loop (bench-recompute.ts).
 */
export function recomputeAndRender(
  files: { base: string; head: string; profiles?: { manifest: string | null; file: (name: string) => string | null } },
  args: Readonly<Record<string, string>>, meta: BenchMeta, maxSeries = MAX_RECOMPUTED_SERIES,
): RecomputedBench {
  const { report, cap } = recomputeBenchReport(files, benchSettings(args), maxSeries);
  const notes = cap === null ? meta.notes : [...(meta.notes ?? []), capNote(cap)];
  // Where the regressions live: the artifact's callgrind files diffed again, for what this recomputation finds regressed.
  const regressed = new Set(report.comparisons.filter((c) => c.verdict === 'regressed').map((c) => c.benchmark));
  const where = files.profiles ? readArtifactProfiles(files.profiles.manifest, files.profiles.file, regressed, { base: meta.base, head: meta.head }) : { profiles: [], notes: [] };
  return { body: renderBenchReport(report, { ...meta, notes }, whereMarkdown(where.profiles, where.notes)), summary: report.summary, cap };
}

/** BenchMeta is what the app knows about a `/bench` beyond the report. */
export interface BenchMeta {
  requestedBy: string;
  commentUrl: string;
  base: string;
  /** head is the approved SHA, the one measured. */
  head: string;
  /** currentHead is the pull request's head now; a different one means newer commits exist. */
  currentHead?: string | null;
  runUrl?: string | null;
  /** notes are extra Markdown paragraphs (config problems, replacements). */
  notes?: string[];
}

const VERDICTS: readonly Verdict[] = ['regressed', 'improved', 'unchanged', 'inconclusive', 'new', 'removed', 'error'];

/**
 * parseJsonReport validates the text of report.json (docs/report-json.md)
 * and returns it as the ComparisonReport the renderers take. Throws
 * ReportShapeError naming the JSON path of the first bad field.
 */
export function parseJsonReport(text: string): ComparisonReport {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (error) {
    throw new ReportShapeError(`report.json is not JSON: ${(error as Error).message}`);
  }
  const root = object(raw, '$');
  if (root.version !== 1) throw new ReportShapeError(`$.version: expected 1, got ${JSON.stringify(root.version)}`);
  const list = root.comparisons;
  if (!Array.isArray(list)) throw new ReportShapeError('$.comparisons: expected an array');
  if (list.length > 100_000) throw new ReportShapeError(`$.comparisons: ${list.length} entries; the limit is 100000`);
  const comparisons: Comparison[] = list.map((item, i) => {
    const path = `$.comparisons[${i}]`;
    const c = object(item, path);
    const verdict = c.verdict;
    if (typeof verdict !== 'string' || !(VERDICTS as readonly string[]).includes(verdict)) throw new ReportShapeError(`${path}.verdict: expected one of ${VERDICTS.join(', ')}`);
    const better = c.better;
    if (better !== 'lower' && better !== 'higher') throw new ReportShapeError(`${path}.better: expected "lower" or "higher"`);
    return {
      benchmark: text256(c.benchmark, `${path}.benchmark`),
      metric: text256(c.metric, `${path}.metric`),
      unit: text256(c.unit, `${path}.unit`),
      better,
      base: side(c.base, `${path}.base`),
      head: side(c.head, `${path}.head`),
      ratio: numberOrNull(c.ratio, `${path}.ratio`),
      ratioCi: pairOrNull(c.ratio_ci, `${path}.ratio_ci`),
      p: numberOrNull(c.p, `${path}.p`),
      q: numberOrNull(c.q, `${path}.q`),
      verdict: verdict as Verdict,
      warnings: strings(c.warnings, `${path}.warnings`),
      ...decisionFields(c, path),
    };
  });
  const s = object(root.summary, '$.summary');
  const count = (key: string) => {
    const v = s[key];
    if (!Number.isInteger(v) || (v as number) < 0) throw new ReportShapeError(`$.summary.${key}: expected a count`);
    return v as number;
  };
  return {
    comparisons,
    summary: {
      regressed: count('regressed'),
      improved: count('improved'),
      unchanged: count('unchanged'),
      inconclusive: count('inconclusive'),
      new: count('new'),
      removed: count('removed'),
      error: count('error'),
      geomeanRatio: numberOrNull(s.geomean_ratio, '$.summary.geomean_ratio'),
    },
    warnings: strings(root.warnings, '$.warnings'),
    threshold: finite(root.threshold, '$.threshold'),
    ...(root.work_threshold !== undefined ? { workThreshold: finite(root.work_threshold, '$.work_threshold') } : {}),
    alpha: finite(root.alpha, '$.alpha'),
    ...(root.overall_alpha !== undefined ? { overallAlpha: finite(root.overall_alpha, '$.overall_alpha') } : {}),
    ...(root.test === 'yuen' || root.test === 'mann-whitney' ? { test: root.test } : {}),
  };
}

/** renderBenchReport renders a completed `/bench` for the sticky comment (marker first). */
export function renderBenchReport(report: ComparisonReport, meta: BenchMeta, where?: string): string {
  const lines = preamble(meta);
  const budget = GITHUB_COMMENT_LIMIT - lines.join('\n').length - 1000;
  const body = renderMarkdown(report, { title: 'benchbot /bench', marker: REPORT_MARKER, limit: budget, footer: meta.runUrl ? `[Workflow run](${meta.runUrl}).` : undefined, where: where || undefined });
  const [marker, title, ...rest] = body.split('\n');
  return [marker, title, '', ...lines, ...rest].join('\n');
}

/** renderBenchRunning is the sticky comment while a dispatched run is under way. */
export function renderBenchRunning(meta: BenchMeta): string {
  return [REPORT_MARKER, '### benchbot /bench: running', '', ...preamble(meta), meta.runUrl ? `Follow the [workflow run](${meta.runUrl}); this comment will show the results.` : 'The workflow reports here when it is done.'].join('\n');
}

/** FailedStep names a job and step that failed, for renderBenchFailure. */
export interface FailedStep {
  job: string;
  step: string | null;
  url: string | null;
}

/**
 * renderBenchFailure is the sticky comment for a run that produced no report:
 * its conclusion, the failed jobs and steps, and a link to the log.
 */
export function renderBenchFailure(meta: BenchMeta & { conclusion: string; failed: FailedStep[]; detail?: string | null }): string {
  const what = meta.conclusion === 'cancelled' ? 'was cancelled' : `ended with \`${safe(meta.conclusion)}\``;
  const lines = [REPORT_MARKER, `### benchbot /bench: the run ${what}`, '', ...preamble(meta)];
  if (meta.failed.length > 0) {
    lines.push('**What failed**', '');
    for (const f of meta.failed.slice(0, 10)) lines.push(`- job \`${safe(f.job)}\`${f.step ? `, step \`${safe(f.step)}\`` : ''}${f.url ? ` ([log](${f.url}))` : ''}`);
    lines.push('');
  }
  // The detail quotes the artifact (a parse error, a field): text, never markdown.
  if (meta.detail) lines.push(`No report was produced: ${inertText(meta.detail.slice(0, 500))}`, '');
  lines.push(`${meta.runUrl ? `[Open the workflow run's log](${meta.runUrl}). ` : ''}Comment \`/bench\` to try again.`);
  return lines.join('\n');
}

function preamble(meta: BenchMeta): string[] {
  const lines = [`Measured head \`${short(meta.head)}\` against base \`${short(meta.base)}\`, as [approved](${meta.commentUrl}) by @${safe(meta.requestedBy)}.`, ''];
  if (meta.currentHead && meta.currentHead !== meta.head) {
    lines.push(`> [!NOTE]`, `> The pull request has newer commits (head is now \`${short(meta.currentHead)}\`); these results are for the approved \`${short(meta.head)}\`. Comment \`/bench\` to measure the new head.`, '');
  }
  for (const note of meta.notes ?? []) if (note) lines.push(note, '');
  return lines;
}

function short(sha: string): string {
  return /^[0-9a-f]{7,64}$/i.test(sha) ? sha.slice(0, 12) : safe(sha).slice(0, 40);
}

/** safe is for text inside a code span: one line (no controls, no bidi overrides) and no backtick to end the span. */
function safe(text: string): string {
  return flatten(text).replace(/[`<>]/g, ' ').slice(0, 200);
}

function object(value: unknown, path: string): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) throw new ReportShapeError(`${path}: expected an object`);
  return value as Record<string, unknown>;
}

function text256(value: unknown, path: string): string {
  if (typeof value !== 'string' || value.length > 1000) throw new ReportShapeError(`${path}: expected a string of at most 1000 characters`);
  return value;
}

function finite(value: unknown, path: string): number {
  if (typeof value !== 'number' || !Number.isFinite(value)) throw new ReportShapeError(`${path}: expected a finite number`);
  return value;
}

function numberOrNull(value: unknown, path: string): number | null {
  return value === null ? null : finite(value, path);
}

function pairOrNull(value: unknown, path: string): [number, number] | null {
  if (value === null) return null;
  if (!Array.isArray(value) || value.length !== 2) throw new ReportShapeError(`${path}: expected [low, high] or null`);
  return [finite(value[0], `${path}[0]`), finite(value[1], `${path}[1]`)];
}

function side(value: unknown, path: string): SideSummary | null {
  if (value === null) return null;
  const s = object(value, path);
  if (!Number.isInteger(s.n) || (s.n as number) < 0) throw new ReportShapeError(`${path}.n: expected a count`);
  const ci = pairOrNull(s.ci, `${path}.ci`);
  if (ci === null) throw new ReportShapeError(`${path}.ci: expected [low, high]`);
  return { n: s.n as number, median: finite(s.median, `${path}.median`), ci };
}

function strings(value: unknown, path: string): string[] {
  if (!Array.isArray(value)) throw new ReportShapeError(`${path}: expected an array of strings`);
  return value.map((w, i) => text256(w, `${path}[${i}]`));
}

// The optional decision fields of report.json (docs/report-json.md), each
// checked for its type; the report renders what is present and valid.
function decisionFields(c: Record<string, unknown>, path: string): Partial<Comparison> {
  const out: Partial<Comparison> = {};
  if (c.family === 'primary' || c.family === 'secondary' || c.family === 'work') out.family = c.family;
  if (c.reason !== undefined) out.reason = text256(c.reason, `${path}.reason`);
  if (c.spread !== undefined) {
    const spread = object(c.spread, `${path}.spread`);
    out.spread = { base: finite(spread.base, `${path}.spread.base`), head: finite(spread.head, `${path}.spread.head`) };
  }
  if (c.bound !== undefined) out.bound = finite(c.bound, `${path}.bound`);
  if (c.bound_side === 'slower' || c.bound_side === 'faster') out.boundSide = c.bound_side;
  if (c.equivalence_ci !== undefined) out.equivalenceCi = pairOrNull(c.equivalence_ci, `${path}.equivalence_ci`) ?? undefined;
  if (c.ci_level !== undefined) out.ciLevel = finite(c.ci_level, `${path}.ci_level`);
  return out;
}
