import type { Fingerprint } from '../model/fingerprint.ts';
import type { Comparison } from '../model/comparison.ts';
import type { RunAbResult } from '../runner/run-ab.ts';
import { decidedForOthers } from '../compare/adaptive-stop.ts';
import { inertText } from './inert-markdown.ts';
import { renderReport, type ReportContext, type ReportFormat } from './report-renderers.ts';
import { whereMarkdown, whereText } from './profile-report.ts';

/** environmentOf is the one-line machine description the reports show. */
export function environmentOf(fingerprint: Fingerprint): string {
  return [fingerprint.cpuModel, fingerprint.cores && `${fingerprint.cores} cores`, fingerprint.kernel && `Linux ${fingerprint.kernel}`].filter(Boolean).join(', ');
}

/**
 * rejudgedNote names the verdicts decided on rounds measured for others:
 * comparisons stopped for futility and decided at a later look the run took
 * for other benchmarks (compare/adaptive-stop.ts). Empty when there are none.
 * Benchmark names are untrusted: markdown callers make the note inert.
 */
export function rejudgedNote(comparisons: readonly Comparison[]): string {
  const rows = comparisons.filter(decidedForOthers).map((c) => `${c.benchmark} (${c.metric}) ${c.verdict} at ${c.decidedAt}, futile at ${c.futileAt}`);
  return rows.length > 0 ? `decided on rounds measured for others, after their own futility stop: ${rows.join(', ')}` : '';
}

/**
 * samplingLine says how the rounds went: rounds per side, the looks, and
 * what stayed undecided and why (stopped for futility, or the budget spent).
 */
export function samplingLine(result: RunAbResult): string {
  const open = (kind: 'futility' | 'budget') => result.report.comparisons.filter((c) => c.verdict === 'inconclusive' && c.decision === kind).map((c) => `${c.benchmark} (${c.metric})`);
  const futile = open('futility');
  const budget = open('budget');
  const rejudged = rejudgedNote(result.report.comparisons);
  const pooled = Object.keys(result.pooled).length;
  return `${result.roundsPerSide} of at most ${result.maxRoundsPerSide} rounds per side (looks: ${result.looks.map((l) => l.roundsPerSide).join(', ')})` +
    (result.failures.length > 0 ? `, ${result.failures.length} failed round(s)` : '') +
    (futile.length > 0 ? `; stopped early, the budget could not decide them: ${futile.join(', ')}` : '') +
    (budget.length > 0 ? `; still inconclusive with the budget spent: ${budget.join(', ')}` : '') +
    (rejudged ? `; ${rejudged}` : '') +
    (pooled > 0 ? `; stored base rounds pooled for ${pooled} comparison(s)` : '') +
    (result.pinned !== undefined ? `; pinned to CPU ${result.pinned}` : '');
}

/**
 * memoryLine reports what the machine's noise memory says per benchmark
 * (primary metrics): the smallest slowdown detectable in the round budget,
 * and a per-benchmark threshold wherever the one in use cannot be met.
 * Empty when the run had no memory (no store).
 */
export function memoryLine(result: RunAbResult): string {
  const primary = result.report.comparisons.filter((c) => c.family !== 'secondary' && c.detectable !== undefined);
  if (primary.length === 0) return '';
  const pct = (x: number) => `${(x * 100).toFixed(x < 0.1 ? 1 : 0)}%`;
  const suggest = primary.filter((c) => c.suggestedThreshold !== undefined && c.suggestedThreshold > (c.threshold ?? result.report.threshold));
  return `noise memory of this machine, ${result.maxRoundsPerSide} rounds per side: smallest detectable slowdown ${primary.map((c) => `${c.benchmark} ${pct(c.detectable as number)}`).join(', ')}` +
    (suggest.length > 0 ? `; thresholds this machine can decide: ${suggest.map((c) => `--threshold-for '${c.benchmark}=${pct(c.suggestedThreshold as number)}'`).join(' ')}` : '');
}

/** runReportContext is what a run's report shows beside the comparisons: the commits, how the rounds went, the machine. */
export function runReportContext(result: RunAbResult): ReportContext {
  const sampling = samplingLine(result);
  const memory = memoryLine(result);
  const environment = environmentOf(result.base.fingerprint);
  const commits = `${result.base.sha.slice(0, 12)}, head ${result.head.sha.slice(0, 12)}`;
  return {
    environment,
    // The footer's one line says which commits and how many rounds; the rest of how the rounds went is with the statistics.
    footer: `Base ${commits}; ${result.roundsPerSide} of at most ${result.maxRoundsPerSide} rounds per side.`,
    // Markdown; `sampling` names undecided benchmarks, which are untrusted text.
    statistics: inertText(`Rounds: ${sampling}.${memory ? ` ${memory[0].toUpperCase()}${memory.slice(1)}.` : ''}`),
    textFooter: `base ${commits}; ${sampling}${memory ? `\n${memory}` : ''}${environment ? `\nmachine: ${environment}` : ''}${whereText(result.profiles ?? [], result.profileNotes ?? [])}`,
    json: {
      base_sha: result.base.sha, head_sha: result.head.sha, rounds_per_side: result.roundsPerSide, max_rounds_per_side: result.maxRoundsPerSide, looks: result.looks, failures: result.failures, undecided: result.undecided, pooled_base: result.pooled, pinned_cpus: result.pinned ?? null,
      ...(result.profiles === undefined ? {} : { profiles: result.profiles, profile_notes: result.profileNotes ?? [] }),
    },
    where: whereMarkdown(result.profiles ?? [], result.profileNotes ?? []),
  };
}

/** renderRunReport renders a run's report (the comparison plus how the rounds went) in one of the formats run offers. */
export function renderRunReport(result: RunAbResult, output: ReportFormat): string {
  return renderReport(output, result.report, runReportContext(result));
}
