import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { defaultWorkThreshold, type ComparisonReport, type CompareSide } from '../compare/compare-runs.ts';
import type { NameFilter } from '../compare/name-filter.ts';
import { replayLooks } from '../compare/replay-looks.ts';
import type { ThresholdRule } from '../compare/thresholds.ts';
import { inertText } from '../report/inert-markdown.ts';
import type { ReportContext } from '../report/report-renderers.ts';
import { rejudgedNote } from '../report/run-report.ts';
import { readNightlyHistory, type NightlyHistory } from './nightly-history.ts';
import { findResultsParts, readProfiles, readResultsMeta, RESULTS_FILES, ResultsError } from './results-artifact.ts';
import type { ProfileDiff, ProfileSource } from '../model/profile-diff.ts';
import { whereMarkdown } from '../report/profile-report.ts';
import { scanBranch, type NightlyScanSettings, type ScanTexts } from './nightly.ts';
import { readArtifactSide } from './read-sides.ts';
import type { NameSetting } from './setting-names.ts';

/**
 * merge-shards: the report job's comparison, recomputed from the raw
 * samples of every results artifact the measuring jobs uploaded (one, or
 * one per shard), so that no count, verdict or conclusion is taken from an
 * artifact, which the code under test could have written.
 */

/** MergeShardsSettings say where the downloaded results are and how to compare them (the PR check's settings). */
export interface MergeShardsSettings {
  /** dir holds the results: itself, or one directory per downloaded artifact. */
  dir: string;
  /** trusted are the commits this run reports on, from what the workflow gave it, never from the artifact. */
  trusted: { head?: string; base?: string };
  threshold: number;
  /**
   * workThreshold: the threshold of counted work; undefined: the default
   * (compare-runs.ts defaultWorkThreshold) of `format`, else of the harness
   * the samples name.
   */
  workThreshold?: number;
  /** format is the bench command's format as the workflow gave it (undefined: detected by the measuring job). */
  format?: string;
  alpha: number;
  rules: ThresholdRule[];
  filter?: NameFilter;
  /** minRuns and maxRuns give the look schedule the measuring job's verdicts are replayed on. */
  minRuns: number;
  maxRuns: number;
  /** nightly: a nightly's one artifact, whose history.json is scanned again and decides recovery. */
  nightly?: Omit<NightlyScanSettings, 'threshold' | 'minRuns' | 'maxRuns'>;
  nameSetting: NameSetting;
}

/** MergedShards is the recomputed comparison and what the report says about where it came from. */
export interface MergedShards {
  report: ComparisonReport;
  base: CompareSide;
  head: CompareSide;
  /** parts is how many results artifacts were merged. */
  parts: number;
  baseSha?: string;
  headSha?: string;
  /** environment is the machine the artifacts name, when they all name the same one (inert text). */
  environment?: string;
  /** history and scan: a nightly's history.json, read and scanned again. */
  history?: NightlyHistory;
  scan?: ScanTexts;
  /** profiles are the differential profiles of the benchmarks this report finds regressed, diffed again from the artifacts' callgrind files. */
  profiles: ProfileDiff[];
  profileNotes: string[];
  /** profileSources are the callgrind files of `profiles`, passed on in the report job's artifact. */
  profileSources: ProfileSource[];
}

/**
 * mergeShards compares the pooled raw samples of every results artifact
 * under `dir` (the same path for all, so the false discovery rate covers the
 * whole suite). An artifact about other commits than `trusted` is refused.
 */
export function mergeShards(settings: MergeShardsSettings): MergedShards {
  const merge = settings.nameSetting('merge');
  const { dir, trusted } = settings;
  const parts = findResultsParts(dir);
  if (parts.length === 0) throw new ResultsError(`${merge}: no ${RESULTS_FILES.base} and ${RESULTS_FILES.head} under ${dir}; download the measuring job's results artifact there (actions/download-artifact with pattern: benchbot-results*)`);
  if (settings.nightly && parts.length > 1) throw new ResultsError(`${merge}: ${parts.length} results under ${dir}; a nightly reports on one (download only the nightly's results artifact)`);
  const metas = parts.map((p) => ({ part: p, ...readResultsMeta(p) }));
  for (const m of metas) {
    if (trusted.head && m.headSha && m.headSha !== trusted.head) throw new ResultsError(`${merge}: ${m.part} holds results of head ${m.headSha}, but this run reports on ${trusted.head}; the artifact is not this run's`);
    if (trusted.base && m.baseSha && m.baseSha !== trusted.base) throw new ResultsError(`${merge}: ${m.part} holds results of base ${m.baseSha}, but this run reports on ${trusted.base}; the artifact is not this run's`);
  }
  const base = readArtifactSide(parts.map((p) => join(p, RESULTS_FILES.base)), settings.filter);
  const head = readArtifactSide(parts.map((p) => join(p, RESULTS_FILES.head)), settings.filter);
  // The measuring job decided each benchmark at the look that settled it, at that look's alpha; the same replay on the
  // same rounds gives the same verdicts, with the schedule from this job's own settings, never from the artifact.
  // Counted work's default threshold follows the harness: the format the workflow gave, else the one the samples name
  // (compareRuns reads it from them). Forged, that name moves the default between 0.5% and 1%, less than forged counts could.
  const workThreshold = settings.workThreshold ?? (settings.format !== undefined ? defaultWorkThreshold(settings.format) : undefined);
  const look = { threshold: settings.threshold, ...(workThreshold !== undefined ? { workThreshold } : {}), alpha: settings.alpha, rules: settings.rules, minRuns: settings.minRuns, maxRuns: settings.maxRuns, futility: settings.nightly === undefined };
  const report = replayLooks(base, head, look);
  const environments = new Set(metas.map((m) => m.environment).filter((e): e is string => e !== undefined && e !== ''));
  const merged: MergedShards = {
    report,
    base,
    head,
    parts: parts.length,
    baseSha: trusted.base ?? (metas.length === 1 ? metas[0].baseSha : undefined),
    headSha: trusted.head,
    environment: environments.size === 1 ? [...environments][0] : undefined,
    profiles: [],
    profileNotes: [],
    profileSources: [],
  };
  // Profiles only of what this job's own comparison finds regressed, from the raw callgrind files, with the trusted commits.
  const regressed = new Set(report.comparisons.filter((c) => c.verdict === 'regressed').map((c) => c.benchmark));
  for (const part of parts) {
    const read = readProfiles(part, regressed, { base: merged.baseSha, head: merged.headSha });
    read.profiles.forEach((p, i) => {
      if (merged.profiles.some((q) => q.benchmark === p.benchmark)) return;
      merged.profiles.push(p);
      merged.profileSources.push(read.sources[i]);
    });
    merged.profileNotes.push(...read.notes);
  }
  const historyPath = join(parts[0], RESULTS_FILES.history);
  if (settings.nightly && existsSync(historyPath)) {
    const history = readNightlyHistory(historyPath, settings.nightly.branch);
    merged.history = history;
    merged.scan = scanBranch(history.series, history.acks, { ...settings.nightly, ...look });
  }
  return merged;
}

/** mergedReportContext is what the merged report shows beside the comparisons: how many artifacts, and which commits. */
export function mergedReportContext(merged: MergedShards): ReportContext {
  const commits = [merged.baseSha && `base ${merged.baseSha.slice(0, 12)}`, merged.headSha && `head ${merged.headSha.slice(0, 12)}`].filter(Boolean).join(', ');
  const rejudged = rejudgedNote(merged.report.comparisons);
  const footer = `${merged.parts > 1 ? `Merged from ${merged.parts} shards` : 'Recomputed from the raw samples'}${commits ? `; ${commits}` : ''}${rejudged ? `; ${rejudged}` : ''}.`;
  return {
    environment: merged.environment,
    footer: inertText(footer),
    json: {
      base_sha: merged.baseSha ?? null, head_sha: merged.headSha ?? null, shards: merged.parts,
      ...(merged.profiles.length + merged.profileNotes.length > 0 ? { profiles: merged.profiles, profile_notes: merged.profileNotes } : {}),
    },
    where: whereMarkdown(merged.profiles, merged.profileNotes),
  };
}
