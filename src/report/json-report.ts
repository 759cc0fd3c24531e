import type { ComparisonReport } from '../compare/compare-runs.ts';
import { layoutReport, workThresholdOf, type Disagreement } from './report-layout.ts';

/**
 * JsonReport is benchbot's documented machine-readable report (docs/report-json.md).
 * Field names are snake_case because other tools (jq, the app, Python) read it.
 * Fields added after version 1 are optional and only ever added, so readers
 * of older reports keep working.
 */
export interface JsonReport {
  version: 1;
  comparisons: JsonComparison[];
  summary: {
    regressed: number;
    improved: number;
    unchanged: number;
    inconclusive: number;
    new: number;
    removed: number;
    error: number;
    geomean_ratio: number | null;
  };
  threshold: number;
  /** work_threshold is the threshold of counted work (instructions, estimated_cycles), present when the report has work metrics. */
  work_threshold?: number;
  alpha: number;
  /** overall_alpha is the error rate asked for, which an adaptive run splits across its looks (absent: equal to alpha). */
  overall_alpha?: number;
  test?: string;
  /** families counts the tested comparisons in each FDR family (work metrics are not tested and join none). */
  families?: { primary: number; secondary: number };
  warnings: string[];
}

/** JsonComparison is one benchmark x metric; the fields after `warnings` are optional and present when the comparison has them. */
export interface JsonComparison {
  benchmark: string;
  metric: string;
  unit: string;
  better: 'lower' | 'higher';
  base: { n: number; median: number; ci: [number, number] } | null;
  head: { n: number; median: number; ci: [number, number] } | null;
  ratio: number | null;
  ratio_ci: [number, number] | null;
  p: number | null;
  q: number | null;
  verdict: string;
  warnings: string[];
  family?: string;
  decision?: string;
  ci_level?: number;
  threshold?: number;
  equivalence_ci?: [number, number];
  bound?: number;
  bound_side?: 'slower' | 'faster';
  decided_at?: number;
  futile_at?: number;
  detectable?: number;
  suggested_threshold?: number;
  pooled_base?: number;
  spread?: { base: number; head: number };
  set_aside?: { base?: number; head?: number };
  reason?: string;
  /** disagreement is set on a benchmark's counted work when its time tells another story (report-layout.ts Disagreement). */
  disagreement?: Disagreement;
}

// Optional Comparison fields and their JSON names, in output order.
const OPTIONAL_FIELDS = [
  ['family', 'family'], ['decision', 'decision'], ['ciLevel', 'ci_level'], ['threshold', 'threshold'],
  ['equivalenceCi', 'equivalence_ci'], ['bound', 'bound'], ['boundSide', 'bound_side'], ['decidedAt', 'decided_at'], ['futileAt', 'futile_at'],
  ['detectable', 'detectable'], ['suggestedThreshold', 'suggested_threshold'], ['pooledBase', 'pooled_base'],
  ['spread', 'spread'], ['setAside', 'set_aside'], ['reason', 'reason'],
] as const;

/** toJsonReport maps a comparison report to the documented JSON shape. */
export function toJsonReport(report: ComparisonReport): JsonReport {
  const { geomeanRatio, ...counts } = report.summary;
  const workThreshold = workThresholdOf(report);
  const disagreements = new Map(layoutReport(report).rows.flatMap((r) => (r.disagreement === undefined ? [] : [[r.comparison, r.disagreement] as const])));
  return {
    version: 1,
    comparisons: report.comparisons.map((c) => {
      const json: JsonComparison = {
        benchmark: c.benchmark,
        metric: c.metric,
        unit: c.unit,
        better: c.better,
        base: c.base,
        head: c.head,
        ratio: c.ratio,
        ratio_ci: c.ratioCi,
        p: c.p,
        q: c.q,
        verdict: c.verdict,
        warnings: c.warnings,
      };
      const fields = json as unknown as Record<string, unknown>;
      for (const [from, to] of OPTIONAL_FIELDS) if (c[from] !== undefined) fields[to] = c[from];
      const disagreement = disagreements.get(c);
      if (disagreement !== undefined) json.disagreement = disagreement;
      return json;
    }),
    summary: { ...counts, geomean_ratio: geomeanRatio },
    threshold: report.threshold,
    ...(workThreshold !== undefined ? { work_threshold: workThreshold } : {}),
    alpha: report.alpha,
    ...(report.overallAlpha !== undefined ? { overall_alpha: report.overallAlpha } : {}),
    ...(report.test !== undefined ? { test: report.test } : {}),
    ...(report.families !== undefined ? { families: report.families } : {}),
    warnings: report.warnings,
  };
}

/** renderJson renders the JSON report, pretty-printed. */
export function renderJson(report: ComparisonReport): string {
  return JSON.stringify(toJsonReport(report), null, 2);
}
