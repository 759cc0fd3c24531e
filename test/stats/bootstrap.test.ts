import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { bootstrapCi, bootstrapCiFromResamples, xoshiro128, xoshiro128FromState, xoshiro128Uint32 } from '../../src/stats/bootstrap.ts';
import type { BootstrapMethod, Statistic } from '../../src/stats/bootstrap.ts';
import { seededRandom } from '../support/random.ts';

// Vectors from scripts/stats-vectors.py: scipy.stats.bootstrap with numpy's generator,
// and the exact resample indices that generator drew, so the two see the same resamples.
interface Result { statistic: 'median' | 'mean'; method: BootstrapMethod; alpha: number; lower: number; upper: number }
const cases = (JSON.parse(readFileSync(new URL('vectors/bootstrap.json', import.meta.url), 'utf8')) as { cases: { x: number[]; indices: number[][]; results: Result[] }[] }).cases;

const mean: Statistic = (s) => s.reduce((a, b) => a + b, 0) / s.length;
const close = (a: number, b: number) => Math.abs(a - b) <= 1e-9 * Math.abs(b) || Math.abs(a - b) <= 1e-12;

test('percentile and BCa CIs match scipy.stats.bootstrap given the same resamples', () => {
  let checked = 0;
  for (const c of cases) {
    for (const r of c.results) {
      const got = bootstrapCiFromResamples(c.x, c.indices, { alpha: r.alpha, method: r.method, statistic: r.statistic === 'mean' ? mean : undefined });
      const what = `n ${c.x.length} ${r.statistic} ${r.method} alpha ${r.alpha}`;
      assert.ok(got);
      assert.equal(got.method, r.method, what);
      assert.ok(close(got.lower, r.lower), `${what} lower ${got.lower} vs ${r.lower}`);
      assert.ok(close(got.upper, r.upper), `${what} upper ${got.upper} vs ${r.upper}`);
      checked++;
    }
  }
  assert.ok(checked > 100);
});

test('xoshiro128** matches the Python reference, from a raw state and from a seed', () => {
  const [ref] = (JSON.parse(readFileSync(new URL('vectors/xoshiro128.json', import.meta.url), 'utf8')) as { cases: { state: number[]; fromState: number[]; seed: number; fromSeed: number[] }[] }).cases;
  const [s0, s1, s2, s3] = ref.state;
  assert.deepEqual(Array.from({ length: ref.fromState.length }, xoshiro128FromState(s0, s1, s2, s3)), ref.fromState);
  assert.deepEqual(Array.from({ length: ref.fromSeed.length }, xoshiro128Uint32(ref.seed)), ref.fromSeed);
  const a = xoshiro128Uint32(42);
  const b = xoshiro128Uint32(42);
  const seq = Array.from({ length: 1000 }, () => a());
  assert.deepEqual(seq, Array.from({ length: 1000 }, () => b()));
  assert.ok(seq.every((v) => Number.isInteger(v) && v >= 0 && v < 2 ** 32));
  assert.notDeepEqual(seq.slice(0, 10), Array.from({ length: 10 }, xoshiro128Uint32(43)));
  const u = xoshiro128(7);
  let sum = 0;
  for (let i = 0; i < 100000; i++) sum += u();
  assert.ok(Math.abs(sum / 100000 - 0.5) < 0.005);
});

test('the seeded path is deterministic and covers the true median of normal data', () => {
  const random = seededRandom(1);
  const normal = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  const x = Array.from({ length: 30 }, () => 10 + normal());
  assert.deepEqual(bootstrapCi(x, { seed: 5 }), bootstrapCi(x, { seed: 5 }));
  assert.notDeepEqual(bootstrapCi(x, { seed: 5 }), bootstrapCi(x, { seed: 6 }));
  for (const method of ['percentile', 'bca'] as const) {
    let covered = 0;
    const trials = 300;
    for (let t = 0; t < trials; t++) {
      const sample = Array.from({ length: 30 }, () => 10 + normal());
      const ci = bootstrapCi(sample, { seed: t, resamples: 500, method });
      if (ci && ci.lower <= 10 && 10 <= ci.upper) covered++;
    }
    // Nominal 95 %; the median's bootstrap is known to be a little off at n = 30.
    assert.ok(covered / trials > 0.88 && covered / trials <= 1, `${method} covered ${covered / trials}`);
  }
});

test('degenerate inputs stay defined where scipy gives NaN', () => {
  // All values equal: the jackknife is constant (scipy: a = NaN), theta is every resample.
  const flat = bootstrapCi([3, 3, 3, 3, 3], { seed: 1 });
  assert.deepEqual(flat, { estimate: 3, lower: 3, upper: 3, method: 'bca' });
  // theta below every resample (z0 = -inf in scipy): falls back to the percentile interval.
  const min: Statistic = (s) => Math.min(...s);
  const fallback = bootstrapCiFromResamples([1, 2, 3, 4], [[1, 2, 3, 3], [2, 2, 3, 1]], { statistic: min });
  assert.equal(fallback?.method, 'percentile');
  assert.equal(bootstrapCi([]), null);
  assert.deepEqual(bootstrapCi([8]), { estimate: 8, lower: 8, upper: 8, method: 'bca' });
});
