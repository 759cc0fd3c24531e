import type { ComparisonReport } from '../compare/compare-runs.ts';

/**
 * JsonReport is benchbot's documented machine-readable report (docs/report-json.md).
 * Field names are snake_case because other tools (jq, the app, Python) read it.
 */
export interface JsonReport {
  version: 1;
  comparisons: {
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
  }[];
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
  alpha: number;
  warnings: string[];
}

/** toJsonReport maps a comparison report to the documented JSON shape. */
export function toJsonReport(report: ComparisonReport): JsonReport {
  const { geomeanRatio, ...counts } = report.summary;
  return {
    version: 1,
    comparisons: report.comparisons.map((c) => ({
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
    })),
    summary: { ...counts, geomean_ratio: geomeanRatio },
    threshold: report.threshold,
    alpha: report.alpha,
    warnings: report.warnings,
  };
}

/** renderJson renders the JSON report, pretty-printed. */
export function renderJson(report: ComparisonReport): string {
  return JSON.stringify(toJsonReport(report), null, 2);
}
