import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { EXACT_MAX_N, exactCdf, mannWhitneyU } from '../../src/stats/mann-whitney.ts';
import type { MannWhitneyMethod } from '../../src/stats/mann-whitney.ts';

// Vectors from scripts/stats-vectors.py (scipy.stats.mannwhitneyu); "inf" encodes infinities.
const decode = (v: number | string): number => (v === 'inf' ? Infinity : v === '-inf' ? -Infinity : (v as number));
interface Case {
  name: string;
  x: (number | string)[];
  y: (number | string)[];
  u: number;
  scipy: { p: number; method: string };
  auto: { p: number; method: string };
  asymptotic: number;
  exact: number;
}
const cases = (JSON.parse(readFileSync(new URL('vectors/mann-whitney.json', import.meta.url), 'utf8')) as { cases: Case[] }).cases;

function close(actual: number, expected: number, what: string): void {
  const ok = actual === expected || Math.abs(actual - expected) <= 1e-9 * Math.abs(expected) || Math.abs(actual - expected) <= 1e-15;
  assert.ok(ok, `${what}: got ${actual}, scipy ${expected}`);
}

test('matches scipy.stats.mannwhitneyu on every vector, all four methods', () => {
  assert.ok(cases.length > 300);
  for (const c of cases) {
    const x = c.x.map(decode);
    const y = c.y.map(decode);
    const expect: [MannWhitneyMethod, number, string | undefined][] = [
      ['scipy', c.scipy.p, c.scipy.method],
      ['auto', c.auto.p, c.auto.method],
      ['asymptotic', c.asymptotic, 'asymptotic'],
      ['exact', c.exact, 'exact'],
    ];
    for (const [method, p, used] of expect) {
      const r = mannWhitneyU(x, y, { method });
      assert.equal(r.u, c.u, `${c.name} U`);
      close(r.p, p, `${c.name} ${method} p`);
      assert.equal(r.method, used, `${c.name} ${method} method`);
    }
  }
});

test('edge cases are defined: n = 1 per side, identical values, equal samples', () => {
  assert.deepEqual(mannWhitneyU([1], [2]), { u: 0, p: 1, method: 'exact' });
  assert.deepEqual(mannWhitneyU([3], [3]), { u: 0.5, p: 1, method: 'asymptotic' });
  assert.equal(mannWhitneyU([5, 5, 5], [5, 5, 5, 5]).p, 1);
  assert.equal(mannWhitneyU([1, 2, 3], [1, 2, 3]).p, 1);
  assert.throws(() => mannWhitneyU([], [1]), RangeError);
  assert.throws(() => mannWhitneyU([NaN], [1]), RangeError);
});

test('the exact null distribution is a proper, symmetric CDF', () => {
  for (const [m, n] of [[1, 1], [3, 7], [10, 10], [EXACT_MAX_N, EXACT_MAX_N]]) {
    const cdf = exactCdf(m, n);
    assert.equal(cdf.length, m * n + 1);
    assert.ok(Math.abs(cdf[m * n] - 1) < 1e-15);
    for (let u = 0; u < m * n; u++) {
      assert.ok(cdf[u] <= cdf[u + 1]);
      // P(U <= u) = P(U >= mn - u) = 1 - P(U <= mn - u - 1)
      assert.ok(Math.abs(cdf[u] - (1 - cdf[m * n - u - 1])) < 1e-12);
    }
  }
  assert.equal(exactCdf(7, 3), exactCdf(3, 7), 'cached by unordered sizes');
});
