import { compileNameFilter, NameFilterError, type NameFilter } from '../compare/name-filter.ts';
import type { ReplaySettings } from '../compare/replay-looks.ts';
import { readPercent, type ThresholdRule } from '../compare/thresholds.ts';
import { defaultMaxRuns, PR_CHECK_DEFAULTS } from './pr-check.ts';
import { SettingError, type NameSetting } from './setting-names.ts';

/**
 * report-settings: what a PR check's report is decided with, parsed from the
 * text a workflow gives it. The action's inputs go through this parser, and
 * so does the app when it recomputes a `/bench` report from the inputs it
 * dispatched: one text, the same settings, wherever the report is computed.
 */

/**
 * ReportSettings are the replay's settings (threshold, overall alpha, the
 * round budget whose looks are replayed; defaults PR_CHECK_DEFAULTS) with
 * the per-benchmark thresholds and the name filter.
 */
export interface ReportSettings extends ReplaySettings {
  /**
   * workThreshold is the threshold of counted work; undefined when not
   * given: the comparison takes the default of the harness whose results
   * it judges (compare-runs.ts defaultWorkThreshold), known only there.
   */
  workThreshold?: number;
  /** rules are the per-benchmark thresholds, GLOB=PERCENT one a line. */
  rules: ThresholdRule[];
  /** filter keeps only the benchmarks whose names match (RE2 syntax); undefined keeps all. */
  filter?: NameFilter;
}

/** ReportSettingsText is each setting as written, by its canonical name (the CLI's flag); empty or missing takes the default. */
export type ReportSettingsText = Partial<Record<'min-runs' | 'max-runs' | 'threshold' | 'threshold-for' | 'work-threshold' | 'filter' | 'alpha', string>>;

/**
 * parseReportSettings validates the report's settings in the order the
 * action's inputs are checked; a bad one is a SettingError that names it
 * as `name` spells it.
 */
export function parseReportSettings(text: ReportSettingsText, name: NameSetting): ReportSettings {
  const given = (setting: keyof ReportSettingsText) => {
    const value = text[setting]?.trim();
    return value === undefined || value === '' ? undefined : value;
  };
  const wholeNumber = (setting: keyof ReportSettingsText, fallback: number, min: number) => {
    const value = given(setting);
    if (value === undefined) return fallback;
    const n = Number(value);
    if (!Number.isInteger(n) || n < min) throw new SettingError(`${name(setting)}: "${value}" is not a whole number of at least ${min}`);
    return n;
  };
  const minRuns = wholeNumber('min-runs', PR_CHECK_DEFAULTS.minRuns, 2);
  const maxRuns = wholeNumber('max-runs', defaultMaxRuns(minRuns), 2);
  if (maxRuns < minRuns) throw new SettingError(`${name('max-runs')}: ${maxRuns} is below ${name('min-runs')} ${minRuns}`);
  const thresholdText = given('threshold');
  const threshold = thresholdText === undefined ? PR_CHECK_DEFAULTS.threshold : readPercent(thresholdText);
  if (typeof threshold !== 'number') throw new SettingError(`${name('threshold')}: "${thresholdText}" is ${threshold.problem}`);
  const workText = given('work-threshold');
  const workThreshold = workText === undefined ? undefined : readPercent(workText);
  if (typeof workThreshold === 'object') throw new SettingError(`${name('work-threshold')}: "${workText}" is ${workThreshold.problem}`);
  if (workThreshold !== undefined && workThreshold <= 0) throw new SettingError(`${name('work-threshold')}: "${workText}" is not above 0; give a percentage such as 0.5%`);
  const rules = (given('threshold-for') ?? '').split('\n').map((line) => line.trim()).filter((line) => line !== '').map((line) => {
    const eq = line.lastIndexOf('=');
    if (eq <= 0) throw new SettingError(`${name('threshold-for')}: "${line}" is not GLOB=PERCENT, e.g. BM_Net*=10%`);
    const value = readPercent(line.slice(eq + 1));
    if (typeof value !== 'number') throw new SettingError(`${name('threshold-for')}: "${line}" is not GLOB=PERCENT: ${line.slice(eq + 1)} is ${value.problem}`);
    return { glob: line.slice(0, eq), threshold: value };
  });
  const filterText = given('filter');
  let filter: NameFilter | undefined;
  if (filterText !== undefined) {
    // RE2 (linear in the name), as the app's /bench does: names come from the code under test.
    try {
      filter = compileNameFilter(filterText);
    } catch (error) {
      if (!(error instanceof NameFilterError)) throw error;
      throw new SettingError(`${name('filter')}: "${filterText}" is not a regular expression benchbot accepts (${error.message})`);
    }
  }
  const alphaText = given('alpha');
  const alpha = alphaText === undefined ? PR_CHECK_DEFAULTS.alpha : Number(alphaText);
  if (!(alpha > 0 && alpha < 0.5)) throw new SettingError(`${name('alpha')}: "${alphaText}" is not a number between 0 and 0.5, e.g. 0.05`);
  return { threshold, ...(workThreshold !== undefined ? { workThreshold } : {}), alpha, rules, minRuns, maxRuns, filter };
}
