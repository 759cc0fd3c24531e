/**
 * site-json: the shapes of the dashboard's data files, shared by the model
 * that writes them (site-model.ts) and the pages that read them (web/).
 * Types and constants only: the browser bundle imports this file.
 */

import type { Direction } from '../model/measurement.ts';

/** SITE_VERSION is the version of the data files; the pages refuse others. */
export const SITE_VERSION = 1;

/** DashboardPr is one PR check's stored A/B: its verdict counts recomputed from the samples. */
export interface DashboardPr {
  repo?: string;
  branch?: string;
  pr?: number;
  url?: string;
  baseSha: string;
  headSha: string;
  timeMs: number;
  machineLabel: string;
  regressed: number;
  improved: number;
  unchanged: number;
  inconclusive: number;
  /** worst: the benchmark that regressed most (name, metric, ratio), if any did. */
  worst?: { benchmark: string; metric: string; ratio: number };
}

/** ChangeJson is one change point: the night it starts at, what kind, after/before in the metric's unit. */
export interface ChangeJson {
  index: number;
  kind: 'regression' | 'improvement' | 'recovery';
  ratio: number;
}

/** SeriesJson is `data/series/<id>.json`. Numbers are rounded to 6 significant digits; null where unknown. */
export interface SeriesJson {
  version: number;
  id: string;
  key: string;
  repo: string | null;
  branch: string;
  benchmark: string;
  metric: string;
  unit: string;
  better: Direction;
  machine: string;
  machineLabel: string;
  repoUrl: string | null;
  siblings: { id: string; machineLabel: string }[];
  run: number[];
  n: number[] | number;
  median: (number | null)[];
  lo: (number | null)[];
  hi: (number | null)[];
  samples: { from: number; values: number[][] };
  changes: ChangeJson[];
  acks: { index: number; sha: string; reason: string }[];
  issues: { number: number; url: string; culprit: { sha: string; subject: string; pr: number | null } | null }[];
}

/** OVERVIEW_COLUMNS name the fields of each overview row, in order. */
export const OVERVIEW_COLUMNS = ['id', 'repo', 'branch', 'benchmark', 'metric', 'unit', 'better', 'machine', 'latest', 'change7', 'change30', 'status', 'nights', 'lastTime', 'issue', 'spark'] as const;

/** OverviewRow is one series in the overview; `spark` is the last 30 medians in per mille of the latest. */
export type OverviewRow = [
  id: string, repo: string | null, branch: string, benchmark: string, metric: string, unit: string, better: Direction, machine: string,
  latest: number | null, change7: number | null, change30: number | null, status: Status, nights: number, lastTime: number | null, issue: number | null, spark: number[],
];

/** Status orders the overview: an open regression first, then a recent improvement, then the rest. */
export type Status = 'regression' | 'improvement' | 'ok';

/** OverviewJson is `data/overview.json`. */
export interface OverviewJson {
  version: number;
  title: string;
  generated: string;
  threshold: number;
  columns: typeof OVERVIEW_COLUMNS;
  rows: OverviewRow[];
  prs: DashboardPr[];
}

/** RunsJson is `data/runs.json`: [sha, time ms] per run index. */
export interface RunsJson {
  version: number;
  runs: [string, number][];
}

