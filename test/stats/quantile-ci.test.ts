import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { medianCi, quantileCi } from '../../src/stats/quantile-ci.ts';
import { seededRandom } from '../support/random.ts';

// Vectors from scripts/stats-vectors.py: ranks from scipy.stats.binom.ppf, coverage from binom.cdf, estimate np.quantile.
interface Result { q: number; alpha: number; estimate: number; lowerRank: number; upperRank: number; lower: number; upper: number; coverage: number }
const cases = (JSON.parse(readFileSync(new URL('vectors/quantile-ci.json', import.meta.url), 'utf8')) as { cases: { x: number[]; results: Result[] }[] }).cases;

const close = (a: number, b: number) => a === b || Math.abs(a - b) <= 1e-9 * Math.abs(b) || Math.abs(a - b) <= 1e-14;

test('ranks, bounds, estimate and coverage match the scipy.stats.binom construction', () => {
  let checked = 0;
  for (const c of cases) {
    for (const r of c.results) {
      const got = quantileCi(c.x, { q: r.q, alpha: r.alpha });
      const what = `n ${c.x.length} q ${r.q} alpha ${r.alpha}`;
      assert.ok(got);
      assert.deepEqual([got.lowerRank, got.upperRank], [r.lowerRank, r.upperRank], `${what} ranks`);
      assert.deepEqual([got.lower, got.upper], [r.lower, r.upper], `${what} bounds`);
      assert.ok(close(got.estimate, r.estimate), `${what} estimate ${got.estimate} vs ${r.estimate}`);
      assert.ok(close(got.coverage, r.coverage), `${what} coverage ${got.coverage} vs ${r.coverage}`);
      checked++;
    }
  }
  assert.ok(checked > 700);
});

test('coverage is at least 1 - alpha once n allows it, and is honest below', () => {
  for (let n = 1; n <= 60; n++) {
    const ci = medianCi(Array.from({ length: n }, (_, i) => i), 0.05);
    assert.ok(ci);
    if (n >= 6) assert.ok(ci.coverage >= 0.95, `n ${n}: ${ci.coverage}`);
    else assert.ok(ci.coverage < 0.95 && ci.lowerRank === 1 && ci.upperRank === n, `n ${n}`);
  }
  // Simulated coverage of the median of a skewed distribution.
  const random = seededRandom(9);
  let covered = 0;
  const trials = 4000;
  const trueMedian = Math.log(2);
  for (let t = 0; t < trials; t++) {
    const ci = medianCi(Array.from({ length: 25 }, () => -Math.log(1 - random())));
    if (ci && ci.lower <= trueMedian && trueMedian <= ci.upper) covered++;
  }
  assert.ok(covered / trials >= 0.94, `covered ${covered / trials}`);
});

test('edge cases: empty is null, one value is a point with coverage 0, bad parameters throw', () => {
  assert.equal(medianCi([]), null);
  assert.deepEqual(medianCi([4]), { estimate: 4, lower: 4, upper: 4, lowerRank: 1, upperRank: 1, coverage: 0 });
  assert.throws(() => quantileCi([1, 2], { q: 1 }), RangeError);
  assert.throws(() => quantileCi([1, 2], { alpha: 1.5 }), RangeError);
  assert.throws(() => medianCi([1, NaN]), RangeError);
});
