import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { randomEffects, sessionShift, varianceComponents } from '../../src/stats/sessions.ts';

// Vectors from scripts/sessions-vectors.py: scipy.stats.ttest_ind, scipy.stats.t and DerSimonian-Laird / ANOVA in numpy.
const vectors = JSON.parse(readFileSync(new URL('vectors/sessions.json', import.meta.url), 'utf8')) as {
  shift: Array<{ before: number[]; after: number[]; history?: number[]; alpha: number; t: number; p: number; df: number; lower: number; upper: number }>;
  meta: Array<{ y: number[]; v: number[]; alpha: number; mean: number; se: number; tau2: number; p: number; lower: number; upper: number }>;
  anova: Array<{ groups: number[][]; within: number; between: number; mean: number }>;
};

const close = (actual: number, expected: number, rel: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= rel * Math.max(Math.abs(expected), 1e-12), `${what}: ${actual} vs ${expected}`);

test('sessionShift matches scipy: ttest_ind (pooled) without a history, the history spread with its df otherwise', () => {
  assert.ok(vectors.shift.length >= 50);
  for (const [i, c] of vectors.shift.entries()) {
    const r = sessionShift(c.before, c.after, { alpha: c.alpha, ...(c.history ? { history: c.history } : {}) });
    assert.ok(r !== null, `case ${i}`);
    close(r.t, c.t, 1e-9, `case ${i} t`);
    close(r.df, c.df, 1e-12, `case ${i} df`);
    close(r.p, c.p, 1e-7, `case ${i} p`);
    close(r.lower, c.lower, 1e-7, `case ${i} lower`);
    close(r.upper, c.upper, 1e-7, `case ${i} upper`);
  }
  assert.equal(sessionShift([], [1]), null);
  assert.equal(sessionShift([1], [2]), null, 'no spread to estimate');
});

test('randomEffects is DerSimonian-Laird: tau^2 from the spread of the sessions, normal p and CI', () => {
  for (const [i, c] of vectors.meta.entries()) {
    const r = randomEffects(c.y, c.v, { alpha: c.alpha });
    assert.ok(r !== null);
    close(r.mean, c.mean, 1e-10, `case ${i} mean`);
    close(r.se, c.se, 1e-10, `case ${i} se`);
    assert.ok(Math.abs(r.tau2 - c.tau2) <= 1e-12 + 1e-9 * c.tau2, `case ${i} tau2 ${r.tau2} vs ${c.tau2}`);
    close(r.p, c.p, 1e-8, `case ${i} p`);
    close(r.lower, c.lower, 1e-9, `case ${i} lower`);
  }
  assert.equal(randomEffects([], []), null);
  // Sessions that disagree widen the interval beyond what their own variances say.
  const agree = randomEffects([0.1, 0.1, 0.1], [0.001, 0.001, 0.001]);
  const disagree = randomEffects([-0.1, 0.1, 0.3], [0.001, 0.001, 0.001]);
  assert.ok(agree && disagree && disagree.tau2 > 0 && disagree.se > 3 * agree.se);
});

test('varianceComponents is the one-way random-effects ANOVA (method of moments)', () => {
  for (const [i, c] of vectors.anova.entries()) {
    const r = varianceComponents(c.groups);
    assert.ok(r !== null);
    close(r.within, c.within, 1e-9, `case ${i} within`);
    assert.ok(Math.abs(r.between - c.between) <= 1e-12 + 1e-9 * c.between, `case ${i} between ${r.between} vs ${c.between}`);
    close(r.mean, c.mean, 1e-12, `case ${i} mean`);
  }
  assert.equal(varianceComponents([[1, 2, 3]]), null);
});
