import type { Measurement } from '../model/measurement.ts';
import { conversionFactor } from '../model/units.ts';
import { DEFAULT_TEST, estimateChange, type ChangeTest } from './estimate-change.ts';

/**
 * pool-base: more evidence for the base side from the store. When the
 * store already holds rounds of the exact base SHA measured on the same
 * machine (another pull request against the same main, last night's
 * nightly), they can join today's base rounds, but only when they still
 * describe today's machine: a drift check compares them with today's
 * interleaved base rounds first, and rounds that fail it are left out. The
 * interleaved head-vs-base design is what protects a comparison from the
 * machine drifting; stored rounds give that up, which is why the check is
 * strict and the stored share is capped.
 */

/** DRIFT_P: stored rounds are pooled only when today's base rounds give no sign of a shift against them (two-sided p above 0.2). */
export const DRIFT_P = 0.2;
/** DRIFT_SHARE: ... and the estimated shift is within a quarter of the threshold. */
export const DRIFT_SHARE = 0.25;
/** POOL_CAP: at most this many stored rounds per round measured today, the most recent ones. */
export const POOL_CAP = 2;
/** MIN_STORED: fewer stored rounds than this are not worth the check. */
export const MIN_STORED = 5;

/** PoolOptions: the threshold of each benchmark and the test of the drift check. */
export interface PoolOptions {
  threshold: (benchmark: string) => number;
  test?: ChangeTest;
}

/** PoolOutcome: the base measurements to compare (today's, with stored rounds appended where they passed), and per benchmark x metric how many stored rounds joined or why none did. */
export interface PoolOutcome {
  measurements: Measurement[];
  pooled: Map<string, number>;
  refused: Map<string, string>;
}

const keyOf = (m: { benchmark: string; metric: string }) => `${m.benchmark}\u0000${m.metric}`;

/**
 * poolBase appends stored base rounds (oldest first in `stored`; the most
 * recent are kept under the cap) to today's base rounds, measurement by
 * measurement, where the drift check passes. Today's values always come first
 * and are never dropped, so pooling can only add evidence.
 */
export function poolBase(today: readonly Measurement[], stored: readonly Measurement[], options: PoolOptions): PoolOutcome {
  const byKey = new Map<string, Measurement>();
  for (const m of stored) {
    const existing = byKey.get(keyOf(m));
    const factor = existing ? conversionFactor(m.unit, existing.unit) : 1;
    // A loop, not push(...values): spreading 120 k+ arguments overflows the stack.
    if (existing && factor !== undefined) for (const v of m.values) existing.values.push(v * factor);
    else if (!existing) byKey.set(keyOf(m), { ...m, values: [...m.values] });
  }
  const pooled = new Map<string, number>();
  const refused = new Map<string, string>();
  const measurements = today.map((m) => {
    const old = byKey.get(keyOf(m));
    if (old === undefined) return m;
    const factor = conversionFactor(old.unit, m.unit);
    if (factor === undefined) {
      refused.set(keyOf(m), `stored rounds are in ${old.unit}, today's in ${m.unit}`);
      return m;
    }
    const candidates = old.values.map((v) => v * factor).slice(-POOL_CAP * m.values.length);
    if (candidates.length < MIN_STORED || m.values.length < 2) return m;
    const drift = estimateChange(candidates, m.values, 0.05, options.test ?? DEFAULT_TEST);
    const limit = options.threshold(m.benchmark) * DRIFT_SHARE;
    if (drift.p === null || drift.ratio === null || drift.p <= DRIFT_P || Math.abs(Math.log(drift.ratio)) > Math.log1p(limit)) {
      const shift = drift.ratio === null ? 'no ratio' : `${((drift.ratio - 1) * 100).toFixed(1)}%`;
      refused.set(keyOf(m), `drift check failed: today's base vs ${candidates.length} stored rounds ${shift}, p = ${drift.p === null ? 'n/a' : drift.p.toPrecision(2)}`);
      return m;
    }
    pooled.set(keyOf(m), candidates.length);
    return { ...m, values: [...m.values, ...candidates] };
  });
  return { measurements, pooled, refused };
}
