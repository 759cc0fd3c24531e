import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { benjaminiHochberg } from '../../src/stats/fdr.ts';

// Vectors from scripts/stats-vectors.py: scipy.stats.false_discovery_control(ps, method="bh").
const cases = (JSON.parse(readFileSync(new URL('vectors/fdr.json', import.meta.url), 'utf8')) as { cases: { p: number[]; q: number[] }[] }).cases;

test('q-values match scipy.stats.false_discovery_control(method="bh")', () => {
  for (const c of cases) {
    const q = benjaminiHochberg(c.p);
    assert.equal(q.length, c.q.length);
    q.forEach((v, i) => assert.ok(Math.abs(v - c.q[i]) <= 1e-9 * c.q[i] || Math.abs(v - c.q[i]) <= 1e-15, `m ${c.p.length} #${i}: ${v} vs ${c.q[i]}`));
  }
});

test('q-values are monotone in p, never below p, at most 1', () => {
  for (const c of cases) {
    const q = benjaminiHochberg(c.p);
    const order = c.p.map((_, i) => i).sort((a, b) => c.p[a] - c.p[b]);
    for (let k = 0; k < order.length; k++) {
      // p m / m can round one ulp below p, in scipy as here.
      assert.ok(q[order[k]] >= c.p[order[k]] * (1 - 1e-15) && q[order[k]] <= 1);
      if (k > 0) assert.ok(q[order[k]] >= q[order[k - 1]]);
    }
  }
  assert.deepEqual(benjaminiHochberg([]), []);
  assert.throws(() => benjaminiHochberg([0.5, NaN]), RangeError);
  assert.throws(() => benjaminiHochberg([1.5]), RangeError);
});
