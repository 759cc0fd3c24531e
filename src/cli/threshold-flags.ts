import { parsePercent, type ThresholdRule } from '../compare/thresholds.ts';
import { UsageError } from './usage-error.ts';

/** ThresholdFlags are the verdict settings that `compare`, `run` and `scan` share. */
export interface ThresholdFlags {
  threshold: number;
  rules: ThresholdRule[];
  alpha: number;
}

/**
 * parseThresholdFlags validates `--threshold`, `--threshold-for GLOB=X`
 * (repeatable) and `--alpha`, with messages that name the flag to change.
 */
export function parseThresholdFlags(values: { threshold?: string; 'threshold-for'?: string[]; alpha?: string }): ThresholdFlags {
  const threshold = values.threshold === undefined ? 0.02 : parsePercent(values.threshold);
  if (threshold === undefined) throw new UsageError(`--threshold ${values.threshold}: give a percentage such as 2% or 0.5%`);
  const rules = (values['threshold-for'] ?? []).map((rule) => {
    const eq = rule.lastIndexOf('=');
    const value = eq > 0 ? parsePercent(rule.slice(eq + 1)) : undefined;
    if (value === undefined) throw new UsageError(`--threshold-for ${rule}: use GLOB=PERCENT, e.g. 'BM_Net*=10%'`);
    return { glob: rule.slice(0, eq), threshold: value };
  });
  const alpha = values.alpha === undefined ? 0.05 : Number(values.alpha);
  if (!(alpha > 0 && alpha < 0.5)) throw new UsageError(`--alpha ${values.alpha}: give a number between 0 and 0.5, e.g. 0.05`);
  return { threshold, rules, alpha };
}
