import { hodgesLehmann, ratioWithCi } from '../stats/hodges-lehmann.ts';
import { median } from '../stats/order-statistics.ts';

/** ChangeEstimate is head vs base for one measurement: ratio head/base with its CI, and the U test's p. */
export interface ChangeEstimate {
  ratio: number | null;
  ratioCi: [number, number] | null;
  p: number | null;
  notes: string[];
}

/**
 * estimateChange estimates head/base. With positive values on both sides
 * (times, rates) it is exp of the Hodges-Lehmann shift of the logs, with the
 * CI from the Mann-Whitney distribution, so the CI excludes 1 exactly when
 * the U test rejects at alpha. Counters can be 0: then the shift is taken on
 * the raw values and expressed relative to the base median; with a zero base
 * median there is no ratio, only the test.
 */
export function estimateChange(base: readonly number[], head: readonly number[], alpha: number): ChangeEstimate {
  if (base.length < 2 || head.length < 2) {
    const mb = median(base);
    return {
      ratio: mb > 0 ? median(head) / mb : null,
      ratioCi: null,
      p: null,
      notes: [`cannot test with ${base.length} base and ${head.length} head sample(s): at least 2 per side needed`],
    };
  }
  const logRatio = ratioWithCi(base, head, alpha);
  if (logRatio !== null) return { ratio: logRatio.ratio, ratioCi: [logRatio.lower, logRatio.upper], p: logRatio.p, notes: [] };

  const mb = median(base);
  const hl = hodgesLehmann(base, head, { alpha });
  if (mb > 0) {
    return { ratio: (mb + hl.estimate) / mb, ratioCi: [(mb + hl.lower) / mb, (mb + hl.upper) / mb], p: hl.p, notes: [] };
  }
  if (base.every((v) => v === 0) && head.every((v) => v === 0)) return { ratio: 1, ratioCi: [1, 1], p: hl.p, notes: [] };
  return {
    ratio: null,
    ratioCi: null,
    p: hl.p,
    notes: [`base median is ${mb}: the change is a difference of ${hl.estimate} (CI ${hl.lower} to ${hl.upper}), not a ratio`],
  };
}
