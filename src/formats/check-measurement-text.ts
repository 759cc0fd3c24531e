import { FormatError } from './format-error.ts';
import type { ReadResult } from './reader.ts';

/**
 * Units and metrics are vocabulary, not prose: `ns`, `ms/op`, `bytes/s`,
 * `allocs/op`, `real_time`, `gc.alloc.rate.norm`, `p0.99`. Anything else
 * in them (markup, line breaks, `@`, `#`, `<`) is refused when the output is
 * read, for every reader at once, so that no report has to show it.
 * Benchmark names are not checked: `BM_Sort<int>/8` is a real name; the
 * renderers escape names (src/report/inert-markdown.ts).
 */

/** UNIT_CHARACTERS is what a unit may contain, besides not starting or ending with a space. */
export const UNIT_CHARACTERS = 'letters, digits, spaces and / % _ . - ( ) * µ';
/** MAX_UNIT_LENGTH is the longest unit accepted, in characters. */
export const MAX_UNIT_LENGTH = 32;
const UNIT = /^[A-Za-z0-9µμ%/_.()*-](?:[A-Za-z0-9µμ%/_.()* -]*[A-Za-z0-9µμ%/_.()*-])?$/;

/** METRIC_CHARACTERS is what a metric may contain: the unit's characters plus `:` and `+` (JMH and perf event names). */
export const METRIC_CHARACTERS = 'letters, digits, spaces and / % _ . - ( ) * : + µ';
/** MAX_METRIC_LENGTH is the longest metric accepted, in characters. */
export const MAX_METRIC_LENGTH = 64;
const METRIC = /^[A-Za-z0-9µμ%/_.()*:+-](?:[A-Za-z0-9µμ%/_.()*:+ -]*[A-Za-z0-9µμ%/_.()*:+-])?$/;

/** unitProblem says what is wrong with a unit, or undefined when it is fine. */
export function unitProblem(unit: string): string | undefined {
  if (typeof unit !== 'string' || unit.length === 0) return 'is empty (use `count` for a plain number)';
  if (!UNIT.test(unit)) return `may only use ${UNIT_CHARACTERS}, and not start or end with a space`;
  if (unit.length > MAX_UNIT_LENGTH) return `is ${unit.length} characters long; the limit is ${MAX_UNIT_LENGTH}`;
  return undefined;
}

/** metricProblem says what is wrong with a metric name, or undefined when it is fine. */
export function metricProblem(metric: string): string | undefined {
  if (typeof metric !== 'string' || metric.length === 0) return 'is empty';
  if (!METRIC.test(metric)) return `may only use ${METRIC_CHARACTERS}, and not start or end with a space`;
  if (metric.length > MAX_METRIC_LENGTH) return `is ${metric.length} characters long; the limit is ${MAX_METRIC_LENGTH}`;
  return undefined;
}

/** quote shows a refused value in an error message: JSON-escaped (no line breaks or escapes reach a log) and short. */
function quote(text: string, max: number): string {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/**
 * checkMeasurementText throws FormatError naming the file, the benchmark and
 * what to fix when a measurement's unit or metric is outside the allowed
 * characters. Called once for every reader's result (readSource, and the
 * criterion directory reader), so that no reader has to remember it.
 */
export function checkMeasurementText(path: string, result: Pick<ReadResult, 'measurements'>): void {
  for (const m of result.measurements) {
    const metric = metricProblem(m.metric);
    if (metric !== undefined) {
      throw new FormatError(path, undefined, `benchmark ${quote(m.benchmark, 80)}: metric ${quote(String(m.metric), 40)} ${metric}; rename the counter or metric in the benchmark`);
    }
    const unit = unitProblem(m.unit);
    if (unit !== undefined) {
      throw new FormatError(path, undefined, `benchmark ${quote(m.benchmark, 80)}, metric ${quote(m.metric, 40)}: unit ${quote(String(m.unit), 40)} ${unit}; fix the unit the harness reports`);
    }
  }
}
