import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { trimmedSummary, yuenInterval, yuenWelch } from '../../src/stats/yuen.ts';
import { studentTQuantile, studentTSf } from '../../src/stats/student-t.ts';

// Vectors from scripts/yuen-vectors.py: scipy.stats.ttest_ind(y, x, equal_var=False, trim=...) and scipy.stats.t.
interface Case { kind: string; trim: number; x: number[]; y: number[]; estimate: number; t: number; p: number; df: number; cis: { level: number; low: number; high: number }[] }
interface TCase { df: number; p?: number; ppf?: number; t?: number; sf?: number }
const vectors = JSON.parse(readFileSync(new URL('vectors/yuen.json', import.meta.url), 'utf8')) as { cases: Case[]; t: TCase[] };

const close = (actual: number, expected: number, rel: number, what: string) =>
  assert.ok(Math.abs(actual - expected) <= rel * Math.max(Math.abs(expected), 1e-300) || Math.abs(actual - expected) <= 1e-15, `${what}: ${actual} vs scipy ${expected}`);

test('Yuen statistic, p-value, df and estimate match scipy.stats.ttest_ind(trim=...)', () => {
  assert.ok(vectors.cases.length > 100);
  for (const [i, c] of vectors.cases.entries()) {
    const r = yuenWelch(c.x, c.y, c.trim);
    const what = `case ${i} (${c.kind}, n ${c.x.length}/${c.y.length}, trim ${c.trim})`;
    close(r.t, c.t, 1e-9, `${what} t`);
    close(r.df, c.df, 1e-9, `${what} df`);
    close(r.p, c.p, 1e-8, `${what} p`);
    close(r.estimate, c.estimate, 1e-9, `${what} estimate`);
  }
});

test('Yuen confidence intervals match scipy at 90%, 95%, 99% and a per-look 98.28%', () => {
  for (const [i, c] of vectors.cases.entries()) {
    const r = yuenWelch(c.x, c.y, c.trim);
    for (const ci of c.cis) {
      const [low, high] = yuenInterval(r, 1 - ci.level);
      close(low, ci.low, 1e-9, `case ${i} level ${ci.level} low`);
      close(high, ci.high, 1e-9, `case ${i} level ${ci.level} high`);
    }
  }
});

test('the 1 - alpha interval excludes 0 exactly when p <= alpha', () => {
  for (const c of vectors.cases) {
    const r = yuenWelch(c.x, c.y, c.trim);
    for (const alpha of [0.01, 0.05, 0.1]) {
      const [low, high] = yuenInterval(r, alpha);
      if (Math.abs(r.p - alpha) < 1e-9) continue;
      assert.equal(low > 0 || high < 0, r.p <= alpha, `p ${r.p} alpha ${alpha} CI [${low}, ${high}]`);
    }
  }
});

test('Student t quantile and survival function match scipy.stats.t at real df', () => {
  for (const c of vectors.t) {
    // Near the median the quantile is tiny, so its error is judged in absolute terms (1e-11).
    if (c.p !== undefined) {
      const q = studentTQuantile(c.p, c.df);
      assert.ok(Math.abs(q - (c.ppf as number)) <= 1e-10 * Math.max(1, Math.abs(c.ppf as number)), `t.ppf(${c.p}, ${c.df}): ${q} vs scipy ${c.ppf}`);
    }
    if (c.t !== undefined) close(studentTSf(c.t as number, c.df), c.sf as number, 1e-10, `t.sf(${c.t}, ${c.df})`);
  }
});

test('a preempted round barely moves the trimmed estimate; the mean would move by 5%', () => {
  const base = [100, 101, 99, 100.5, 99.5, 100.2, 99.8, 100.1, 99.9, 100.3];
  const head = [...base.slice(0, 9), 150];
  const r = yuenWelch(base, head);
  assert.ok(Math.abs(r.estimate) < 0.2, `estimate ${r.estimate}`);
  assert.ok(r.p > 0.5);
});

test('degenerate and invalid inputs: equal constants give p = 1, too few values and NaN throw', () => {
  assert.equal(yuenWelch([5, 5, 5], [5, 5, 5]).p, 1);
  assert.equal(yuenWelch([5, 5, 5], [6, 6, 6]).p, 0);
  assert.deepEqual(yuenInterval(yuenWelch([5, 5, 5], [6, 6, 6]), 0.05), [1, 1]);
  assert.throws(() => trimmedSummary([1]), RangeError);
  assert.throws(() => trimmedSummary([1, NaN]), RangeError);
  assert.throws(() => trimmedSummary([1, 2], 0.5), RangeError);
  assert.throws(() => studentTQuantile(1, 3), RangeError);
});
