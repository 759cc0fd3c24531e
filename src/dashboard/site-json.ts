/**
 * site-json: the shapes of the dashboard's data files, shared by the model
 * that writes them (site-model.ts) and the pages that read them (web/).
 * Types and constants only: the browser bundle imports this file.
 */

import type { Direction } from '../model/measurement.ts';

/** SITE_VERSION is the version of the data files; the pages refuse others. */
export const SITE_VERSION = 2;

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

/**
 * FindingJson is one thing the nightly scan (`benchbot scan`) decided about
 * a series, as the scan decided it: `status` is `regression` or
 * `improvement` only when the scan confirmed it; `awaiting` (a history
 * candidate whose interleaved A/B is still to be measured, or one more
 * session of it), `watch` (one night beyond the usual spread) and `refuted`
 * (the A/B did not confirm the history) are not. `index` is the first bad
 * night in this series' nights (-1 when it is not among the nights shown),
 * `ratio` after/before in the metric's unit, `lastGood`/`firstBad` the
 * commit range, `note` what it waits for (awaiting, watch) or what
 * decided it, in words.
 */
export interface FindingJson {
  status: FindingStatus;
  direction: 'regression' | 'improvement';
  kind: 'change-point' | 'alert' | 'ab-alert' | 'watch';
  index: number;
  ratio: number;
  lastGood: string;
  firstBad: string;
  note: string;
  /**
   * profile, for a regression, is the `benchbot profile` command that shows
   * where it lives: the functions whose cost changed most between lastGood
   * and firstBad (CMD stands for the bench command). The store keeps no
   * profile: callgrind's counts are exact, so the command gives the same
   * profile whenever it runs, and the regression issue shows one.
   */
  profile?: string;
}

/** FindingStatus is what the scan made of a finding; see {@link FindingJson}. */
export type FindingStatus = 'regression' | 'improvement' | 'awaiting' | 'watch' | 'refuted';

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
  /** findings: what the nightly scan decided about this series, newest first night last; `scanned` names the metric the scan read instead of this one, if any. */
  findings: FindingJson[];
  scanned: string | null;
  acks: { index: number; sha: string; reason: string }[];
  issues: { number: number; url: string; culprit: { sha: string; subject: string; pr: number | null } | null }[];
}

/** OVERVIEW_COLUMNS name the fields of each overview row, in order. */
export const OVERVIEW_COLUMNS = ['id', 'repo', 'branch', 'benchmark', 'metric', 'unit', 'better', 'machine', 'latest', 'change7', 'change30', 'status', 'nights', 'lastTime', 'issue', 'spark', 'note'] as const;

/** OverviewRow is one series in the overview; `spark` is the last 30 medians in per mille of the latest; `note` says what its status waits for or rests on ('' when steady). */
export type OverviewRow = [
  id: string, repo: string | null, branch: string, benchmark: string, metric: string, unit: string, better: Direction, machine: string,
  latest: number | null, change7: number | null, change30: number | null, status: Status, nights: number, lastTime: number | null, issue: number | null, spark: number[], note: string,
];

/**
 * Status is a series' most pressing finding of the nightly scan, in the
 * overview's order: a confirmed regression, then a finding awaiting its
 * confirmation, a one-night watch, a confirmed improvement, a refuted
 * candidate, and `ok` for none.
 */
export type Status = FindingStatus | 'ok';

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

