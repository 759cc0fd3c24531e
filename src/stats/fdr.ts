/**
 * fdr: Benjamini-Hochberg false discovery rate control across a suite.
 *
 * Agrees with `scipy.stats.false_discovery_control(ps, method="bh")` to 1e-9
 * (scripts/stats-vectors.py): q_(i) = min over j >= i of p_(j) m / j, for
 * p-values sorted ascending, capped at 1. Declaring every benchmark with
 * q <= 0.05 significant keeps the expected share of false alarms among them
 * at 5 % (for independent or positively dependent tests).
 */

/**
 * benjaminiHochberg returns the BH q-values (adjusted p-values) in the order
 * of `ps`: monotone in p, never below p, at most 1. An empty input gives [].
 * Throws RangeError for a p-value outside [0, 1] or NaN.
 */
export function benjaminiHochberg(ps: readonly number[]): number[] {
  const m = ps.length;
  for (const p of ps) if (!(p >= 0 && p <= 1)) throw new RangeError(`benjaminiHochberg: p-values must be in [0, 1], got ${p}`);
  const order = Array.from({ length: m }, (_, i) => i).sort((a, b) => ps[a] - ps[b]);
  const qs = new Array<number>(m);
  let running = 1;
  for (let rank = m; rank >= 1; rank--) {
    const i = order[rank - 1];
    running = Math.min(running, (ps[i] * m) / rank);
    qs[i] = running;
  }
  return qs;
}
