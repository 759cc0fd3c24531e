import { readPercent, type ThresholdRule } from '../compare/thresholds.ts';
import { DEFAULT_WORK_THRESHOLD, HARNESS_WORK_THRESHOLDS } from '../compare/compare-runs.ts';
import { UsageError } from './usage-error.ts';

/** ThresholdFlags are the verdict settings that `compare`, `run` and `scan` share. */
export interface ThresholdFlags {
  threshold: number;
  /**
   * workThreshold is the threshold of counted work (instructions),
   * `--work-threshold`; undefined when not given, so that it follows the
   * harness of the results judged (compare-runs.ts defaultWorkThreshold).
   */
  workThreshold?: number;
  rules: ThresholdRule[];
  alpha: number;
}

/**
 * percentFlag reads one threshold flag by the rule of compare/thresholds.ts
 * (`2%` or `2` is two percent, a bare number below 1 is refused as
 * ambiguous) and names the flag in its error. `positive` refuses 0.
 */
export function percentFlag(flag: string, text: string, positive = false): number {
  const value = readPercent(text);
  if (typeof value !== 'number') throw new UsageError(`${flag} ${text} is ${value.problem}`);
  if (positive && value <= 0) throw new UsageError(`${flag} ${text} is not above 0; give a percentage such as 2%`);
  return value;
}

/**
 * parseThresholdFlags validates `--threshold`, `--threshold-for GLOB=X`
 * (repeatable), `--work-threshold` and `--alpha`, with messages that name
 * the flag to change.
 */
export function parseThresholdFlags(values: { threshold?: string; 'threshold-for'?: string[]; 'work-threshold'?: string; alpha?: string }): ThresholdFlags {
  const threshold = values.threshold === undefined ? 0.02 : percentFlag('--threshold', values.threshold);
  const workThreshold = values['work-threshold'] === undefined ? undefined : percentFlag('--work-threshold', values['work-threshold'], true);
  const rules = (values['threshold-for'] ?? []).map((rule) => {
    const eq = rule.lastIndexOf('=');
    if (eq <= 0) throw new UsageError(`--threshold-for ${rule}: use GLOB=PERCENT, e.g. 'BM_Net*=10%'`);
    const value = readPercent(rule.slice(eq + 1));
    if (typeof value !== 'number') throw new UsageError(`--threshold-for ${rule}: ${rule.slice(eq + 1)} is ${value.problem}`);
    return { glob: rule.slice(0, eq), threshold: value };
  });
  const alpha = values.alpha === undefined ? 0.05 : Number(values.alpha);
  if (!(alpha > 0 && alpha < 0.5)) throw new UsageError(`--alpha ${values.alpha}: give a number between 0 and 0.5, e.g. 0.05`);
  return { threshold, workThreshold, rules, alpha };
}

/** workThresholdDefaults says the default of --work-threshold in a help text: `0.5%; 1% for pytest-benchmark`. */
export function workThresholdDefaults(): string {
  const pct = (x: number) => `${Number((x * 100).toPrecision(6))}%`;
  return [pct(DEFAULT_WORK_THRESHOLD), ...Object.entries(HARNESS_WORK_THRESHOLDS).map(([harness, x]) => `${pct(x)} for ${harness}`)].join('; ');
}
