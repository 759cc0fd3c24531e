import { compareRuns, type CompareSide } from '../compare/compare-runs.ts';
import { DEFAULT_TEST, type ChangeTest } from '../compare/estimate-change.ts';
import type { ThresholdRule } from '../compare/thresholds.ts';
import { compileNameFilter, NameFilterError, type NameFilter } from '../compare/name-filter.ts';
import { parseThresholdFlags, workThresholdDefaults } from './threshold-flags.ts';
import { renderReport, REPORT_RENDERERS, reportFormats, type ReportFormat, type ReportRenderer } from '../report/report-renderers.ts';
import { readComparePySide, readSide } from '../jobs/read-sides.ts';
import { replayLooks } from '../compare/replay-looks.ts';
import { rejudgedNote } from '../report/run-report.ts';
import { inertText } from '../report/inert-markdown.ts';
import { readFileSync } from 'node:fs';
import { choose, InputError, parseFlags, UsageError } from './usage-error.ts';

/** TESTS are the two-sample tests compare offers: the same as run's. */
const TESTS: readonly ChangeTest[] = ['mann-whitney', 'yuen'];

/** OUTPUTS are the report formats compare prints: every one, since it has the files' rows. */
const OUTPUTS = reportFormats({ rows: true });

export const COMPARE_USAGE = `usage: benchbot compare BASE HEAD [options]

Compares benchmark results of a base and a head run and prints a report.
BASE and HEAD are each a file, a comma-separated list of files (their samples
pool) or a criterion directory (target/criterion).

options:
  --format F            input format (default: detected from content)
  --threshold X         smallest change that matters, a percentage: 2% or 2; 0.5%, never a bare 0.5 (default 2%)
  --threshold-for G=X   threshold for benchmarks matching glob G, e.g. 'BM_Net*=10%' (repeatable; last match wins)
  --work-threshold X    threshold of counted work (instructions, estimated_cycles under valgrind), decided by its
                        repeats, not tested (default ${workThresholdDefaults()}, by the harness of
                        the files or --format; docs/statistics.md, "Counted work")
  --alpha A             false discovery rate across the suite and 1 - CI level (default 0.05)
  --test T              mann-whitney (default) | yuen (20%-trimmed t), as benchbot run's --test
  --output O            ${OUTPUTS.join(' | ')} (default text)
  --filter REGEX        only compare benchmarks whose name matches REGEX (RE2 syntax: no backreferences or lookaround)
  --run-report FILE     reproduce a benchbot run's verdicts: take its overall alpha, threshold, test and look schedule
                        from its JSON report (run --output json, or the action's report.json) and replay its looks
                        on BASE and HEAD (its raw rounds, e.g. the action's base.json and head.json), each
                        comparison decided at the look and at the per-look alpha the run decided it

exit status: 0 no regression, 1 at least one regression, 2 usage or input error`;

/** CompareSettings is the parsed, validated command line of `benchbot compare`. */
export interface CompareSettings {
  base: string[];
  head: string[];
  format?: string;
  threshold: number;
  /** workThreshold: --work-threshold, else the --run-report's; undefined follows the harness of the files (compare-runs.ts defaultWorkThreshold). */
  workThreshold?: number;
  rules: ThresholdRule[];
  alpha: number;
  test: ChangeTest;
  output: ReportFormat;
  filter?: NameFilter;
  /** runReport: the look schedule and overall alpha of the run whose verdicts to reproduce (--run-report). */
  runReport?: { minRuns: number; maxRuns: number; alpha: number; threshold: number; workThreshold?: number; test?: ChangeTest };
}

/** parseCompareArgs validates the command line; every problem names the flag to change. */
export function parseCompareArgs(args: string[]): CompareSettings {
  const { values, positionals } = parseFlags(args, {
    format: { type: 'string' },
    threshold: { type: 'string' },
    'threshold-for': { type: 'string', multiple: true },
    'work-threshold': { type: 'string' },
    alpha: { type: 'string' },
    test: { type: 'string' },
    output: { type: 'string' },
    filter: { type: 'string' },
    'run-report': { type: 'string' },
  }, true);
  if (positionals.length !== 2) throw new UsageError(`compare needs exactly two inputs, BASE and HEAD (got ${positionals.length})`);
  const { threshold, workThreshold, rules, alpha } = parseThresholdFlags(values);
  const output = choose('--output', values.output ?? 'text', OUTPUTS);
  let filter: NameFilter | undefined;
  if (values.filter !== undefined) {
    try {
      filter = compileNameFilter(values.filter);
    } catch (error) {
      if (!(error instanceof NameFilterError)) throw error;
      throw new UsageError(`--filter ${values.filter}: ${error.message}`);
    }
  }
  const split = (list: string) => list.split(',').filter((p) => p !== '');
  const runReport = values['run-report'] === undefined ? undefined : readRunReport(values['run-report']);
  return {
    base: split(positionals[0]), head: split(positionals[1]), format: values.format,
    // The run's own settings win over the defaults, not over flags given here.
    threshold: runReport && values.threshold === undefined ? runReport.threshold : threshold, rules,
    workThreshold: workThreshold ?? runReport?.workThreshold,
    alpha: runReport && values.alpha === undefined ? runReport.alpha : alpha, output, filter, runReport,
    test: values.test !== undefined ? choose('--test', values.test, TESTS) : runReport?.test ?? DEFAULT_TEST,
  };
}

/**
 * readRunReport takes from a run's JSON report what its verdicts depend on
 * beyond the samples: the overall alpha (`overall_alpha`, else `alpha`),
 * the threshold, and the look schedule (the first look's rounds per side
 * and `max_rounds_per_side`, from which every look's alpha follows).
 */
function readRunReport(file: string): NonNullable<CompareSettings['runReport']> {
  let json: Record<string, unknown>;
  try {
    json = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  } catch (error) {
    throw new UsageError(`--run-report ${file}: cannot read it as JSON (${(error as Error).message})`);
  }
  const looks = json.looks as { roundsPerSide?: unknown }[] | undefined;
  const minRuns = Array.isArray(looks) ? Number(looks[0]?.roundsPerSide) : NaN;
  const maxRuns = Number(json.max_rounds_per_side);
  const alpha = Number(json.overall_alpha ?? json.alpha);
  const threshold = Number(json.threshold);
  if (![minRuns, maxRuns, alpha, threshold].every((x) => Number.isFinite(x) && x > 0)) {
    throw new UsageError(`--run-report ${file}: not a run's JSON report (it needs looks, max_rounds_per_side, alpha and threshold: benchbot run --output json writes them)`);
  }
  // Reports written before the test was a choice have no `test`: they used the Mann-Whitney U test.
  const test = json.test === 'yuen' || json.test === 'mann-whitney' ? json.test : undefined;
  const workThreshold = json.work_threshold === undefined ? undefined : Number(json.work_threshold);
  if (workThreshold !== undefined && !(workThreshold > 0 && workThreshold < 1)) throw new UsageError(`--run-report ${file}: work_threshold ${JSON.stringify(json.work_threshold)} is not a fraction between 0 and 1`);
  return { minRuns, maxRuns, alpha, threshold, ...(workThreshold !== undefined ? { workThreshold } : {}), ...(test !== undefined ? { test } : {}) };
}

/** runCompare implements `benchbot compare`; returns the exit code. */
export function runCompare(args: string[], out: (text: string) => void): number {
  const settings = parseCompareArgs(args);
  const base = readSide(settings.base, settings.format, settings.filter);
  const head = readSide(settings.head, settings.format, settings.filter);
  if (base.measurements.length === 0 && head.measurements.length === 0) {
    throw new UsageError(settings.filter ? `--filter ${settings.filter.pattern} matches no benchmark` : 'neither side has any measurement');
  }
  requireSharedBenchmark(settings, base, head);
  const report = settings.runReport
    ? replayLooks(base, head, { threshold: settings.threshold, workThreshold: settings.workThreshold, alpha: settings.alpha, rules: settings.rules, minRuns: settings.runReport.minRuns, maxRuns: settings.runReport.maxRuns, test: settings.test })
    : compareRuns(base, head, { threshold: settings.threshold, workThreshold: settings.workThreshold, alpha: settings.alpha, rules: settings.rules, test: settings.test });
  out(render(settings, report));
  return report.summary.regressed > 0 ? 1 : 0;
}

/**
 * requireSharedBenchmark refuses two sides without a benchmark in common:
 * that is two different suites (Go output against a hyperfine export) or a
 * side that ran nothing, and a report of "2 new, 13 removed" with exit 0
 * would hide it. A few names of each side say which is which.
 */
function requireSharedBenchmark(settings: CompareSettings, base: CompareSide, head: CompareSide): void {
  const names = (side: CompareSide) => [...new Set(side.measurements.map((m) => m.benchmark))];
  const baseNames = names(base);
  const headNames = new Set(names(head));
  if (baseNames.some((name) => headNames.has(name))) return;
  const describe = (label: string, files: string[], list: string[]) => {
    const where = `${label} (${files.join(', ')})`;
    if (list.length === 0) return `${where} holds no benchmark${settings.filter ? ` matching --filter ${settings.filter.pattern}` : ''}`;
    const shown = list.slice(0, 3).map((name) => JSON.stringify(name)).join(', ');
    return `${where} has ${shown}${list.length > 3 ? ` and ${list.length - 3} more` : ''}`;
  };
  throw new InputError(`BASE and HEAD share no benchmark, so there is nothing to compare: ${describe('BASE', settings.base, baseNames)}; ${describe('HEAD', settings.head, [...headNames])}. Give two results of the same suite.`);
}

function render(settings: CompareSettings, report: ReturnType<typeof compareRuns>): string {
  // compare.py pairs the files' rows (aggregates too), not benchbot's series: read them as it does.
  const rows = (REPORT_RENDERERS[settings.output] as ReportRenderer).rows
    ? { comparePy: { base: readComparePySide(settings.base.join(','), settings.base, settings.format, settings.filter), head: readComparePySide(settings.head.join(','), settings.head, settings.format, settings.filter) } }
    : {};
  // A replayed run names the verdicts its looks reached on rounds measured for other benchmarks.
  const note = settings.runReport ? rejudgedNote(report.comparisons) : '';
  const context = note ? { footer: inertText(`${note[0].toUpperCase()}${note.slice(1)}.`), textFooter: note } : {};
  return renderReport(settings.output, report, { ...rows, ...context });
}
