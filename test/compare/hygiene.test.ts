import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns, type CompareSide } from '../../src/compare/compare-runs.ts';
import { suiteWarnings, warningKind } from '../../src/compare/hygiene.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { mannKendall } from '../../src/stats/mann-kendall.ts';
import { lognormalSamples } from '../support/samples.ts';

const side = (measurements: Measurement[], extra: Partial<CompareSide> = {}): CompareSide => ({ measurements, warnings: [], hints: {}, ...extra });
const time = (benchmark: string, values: number[], metric = 'time', unit = 'ns/op'): Measurement => ({ benchmark, metric, unit, better: 'lower', values });
const kinds = (warnings: readonly string[]) => warnings.map((w) => warningKind(w)?.kind).filter((k) => k === 'trend' || k === 'bimodal');

test('null suite of 10,000 x 30 (the `npm run bench` suite): no trend or bimodal warning', () => {
  // bench/compare-speed.ts's generator: independent lognormal noise, 1% CV, no trend, one mode; 2% of benchmarks shift 10%.
  const names = Array.from({ length: 10_000 }, (_, i) => `BenchmarkGenerated/case=${i}`);
  const base = names.map((_, i) => lognormalSamples(30, 1000 + i, 0.01, i));
  const head = names.map((_, i) => lognormalSamples(30, (1000 + i) * (i % 50 === 0 ? 1.1 : 1), 0.01, 1e6 + i));
  // What the per-side rule (Mann-Kendall p < 0.01) used to flag on the same data.
  const perSide = [...base, ...head].filter((v) => mannKendall(v).p < 0.01).length;
  assert.ok(perSide > 100, `the uncontrolled rule flags ${perSide} sides`);

  const report = compareRuns(side(names.map((n, i) => time(n, base[i]))), side(names.map((n, i) => time(n, head[i]))));
  const flagged = report.comparisons.flatMap((c) => kinds(c.warnings).map((k) => `${c.benchmark}: ${k}`));
  // Guarantee: with no trend and one mode anywhere, P(any such warning in the suite) <= 0.05 (HYGIENE_FDR).
  assert.deepEqual(flagged, []);
});

test('a real warm-up trend and a real second mode are still flagged in a suite of 1,000', () => {
  const names = Array.from({ length: 1000 }, (_, i) => `BM_Null/${i}`);
  const base = names.map((n, i) => time(n, lognormalSamples(30, 100, 0.01, i)));
  const head = names.map((n, i) => time(n, lognormalSamples(30, 100, 0.01, 5000 + i)));
  // Warm-up: the first rounds run slow, 0.3% less each round.
  const warm = lognormalSamples(30, 100, 0.005, 77).map((v, r) => v * (1 + 0.003 * Math.max(0, 20 - r)));
  // Two code layouts: rounds land 10% apart, half and half.
  const layouts = [...lognormalSamples(15, 100, 0.01, 78), ...lognormalSamples(15, 110, 0.01, 79)];
  const modes = layouts.map((_, r) => layouts[(r * 7) % 30]);
  base.push(time('BM_WarmUp', warm), time('BM_Layout', lognormalSamples(30, 100, 0.01, 80)));
  head.push(time('BM_WarmUp', lognormalSamples(30, 100, 0.005, 81)), time('BM_Layout', modes));
  const report = compareRuns(side(base), side(head));
  const flagged = report.comparisons.filter((c) => kinds(c.warnings).length > 0).map((c) => `${c.benchmark}: ${c.warnings.filter((w) => warningKind(w)).join('; ')}`);
  assert.equal(flagged.length, 2, flagged.join('\n'));
  assert.match(flagged.find((f) => f.startsWith('BM_WarmUp')) ?? '', /trend across rounds on base \(Mann-Kendall p = .*, q = .*\): values fall/);
  assert.match(flagged.find((f) => f.startsWith('BM_Layout')) ?? '', /bimodal on head \(dip test p = .*, q = .*\): two clusters/);
});

test('metrics constant on both sides are unchanged and stay out of the FDR family', () => {
  const regressed = time('BM_Slow', lognormalSamples(10, 100, 0.02, 1));
  const slower = time('BM_Slow', lognormalSamples(10, 104, 0.02, 2));
  const others = (seed: number) => Array.from({ length: 20 }, (_, i) => time(`BM_Other/${i}`, lognormalSamples(10, 100, 0.02, seed + i)));
  const zeros = (n: number) => Array.from({ length: n }, (_, i) => time(`BM_Other/${i}`, Array(10).fill(0), 'B/op', 'B/op'));
  const without = compareRuns(side([regressed, ...others(100)]), side([slower, ...others(200)]));
  const withConstants = compareRuns(side([regressed, ...others(100), ...zeros(20)]), side([slower, ...others(200), ...zeros(20)]));
  const q = (r: typeof without) => r.comparisons.find((c) => c.benchmark === 'BM_Slow' && c.metric === 'time')?.q;
  assert.equal(q(withConstants), q(without), 'twenty 0 B/op rows must not dilute the family');
  const constant = withConstants.comparisons.filter((c) => c.metric === 'B/op');
  assert.equal(constant.length, 20);
  for (const c of constant) {
    assert.equal(c.verdict, 'unchanged');
    assert.equal(c.q, null);
    assert.deepEqual(c.ratioCi, [1, 1]);
  }
});

test('a warning each round repeats under its own name is shown once, with a count', () => {
  const rounds = (role: string) => Array.from({ length: 40 }, (_, r) => ({
    kind: 'summary-only',
    message: `${role} round ${r + 1} output: console output has one estimate per benchmark (criterion's point estimate, libtest's median), not its samples; read target/criterion for per-sample values`,
  }));
  const warnings = suiteWarnings({ hints: {}, warnings: rounds('base') }, { hints: {}, warnings: rounds('head') });
  assert.deepEqual(warnings, [
    "base and head: console output has one estimate per benchmark (criterion's point estimate, libtest's median), not its samples; read target/criterion for per-sample values (in 40 inputs)",
  ]);
  // Errors name their benchmark and are never merged across benchmarks.
  const errors = suiteWarnings({ hints: {}, warnings: [{ kind: 'error', benchmark: 'A', message: 'A failed: boom' }, { kind: 'error', benchmark: 'B', message: 'B failed: boom' }] }, { hints: {}, warnings: [] });
  assert.deepEqual(errors, ['base: A failed: boom', 'base: B failed: boom']);
});

test('a debug build is reported once for both sides, with the fix', () => {
  const gbench = suiteWarnings({ hints: { library_build_type: 'debug' }, warnings: [] }, { hints: { library_build_type: 'debug' }, warnings: [] });
  assert.equal(gbench.length, 1);
  // The signal is the library's own build (Debian's package reports it), not the code under test's: the fix says so.
  assert.match(gbench[0], /^base and head: Google Benchmark reports library_build_type: debug, which is how the benchmark library itself was compiled \(without NDEBUG\), not your code/);
  assert.match(gbench[0], /Debian's and Ubuntu's libbenchmark-dev/);
  assert.match(gbench[0], /link a Google Benchmark built in Release/);
  const dotnet = suiteWarnings({ hints: { debug_build: true }, warnings: [] }, { hints: { debug_build: false }, warnings: [] });
  assert.deepEqual(dotnet, ['base: BenchmarkDotNet ran a Debug build, which distorts timings: run the benchmarks with -c Release']);
});
