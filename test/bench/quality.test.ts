import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  benchbotCalls,
  benchQuality,
  drawSides,
  goBenchName,
  goBenchText,
  loadCorpus,
  makePool,
  parseBenchstatCsv,
  quietened,
  thresholdCall,
  uTestCall,
} from '../../bench/quality.ts';
import { compareRuns } from '../../src/compare/compare-runs.ts';
import { xoshiro128 } from '../../src/stats/bootstrap.ts';
import { mannWhitneyU } from '../../src/stats/mann-whitney.ts';
import { median } from '../../src/stats/order-statistics.ts';
import { robustCv } from '../../src/stats/robust-cv.ts';

/** noisy gives n values around `center` with a small deterministic spread (about 1%). */
function noisy(n: number, center: number, seed: number): number[] {
  const rng = xoshiro128(seed);
  return Array.from({ length: n }, () => center * (1 + (rng() - 0.5) * 0.02));
}

describe('thresholdCall (the common bot rule)', () => {
  const base = noisy(10, 100, 1);
  it('flags a median ratio beyond +5% as regressed and beyond -5% as improved', () => {
    assert.equal(thresholdCall(base, base.map((v) => v * 1.06)), 'regressed');
    assert.equal(thresholdCall(base, base.map((v) => v * 0.94)), 'improved');
  });
  it('stays silent inside the 5% band, whatever the noise', () => {
    assert.equal(thresholdCall(base, base.map((v) => v * 1.049)), 'none');
    assert.equal(thresholdCall(base, base.map((v) => v * 0.951)), 'none');
  });
  it('uses medians, so one wild sample does not move it', () => {
    const head = [...base];
    head[0] = 1e6;
    assert.equal(thresholdCall(base, head), 'none');
  });
});

describe('uTestCall (compare.py U test)', () => {
  it('is scipy-method U p < 0.05 with no correction, signed by the medians', () => {
    const rng = xoshiro128(7);
    for (let trial = 0; trial < 200; trial++) {
      const n = 3 + Math.floor(rng() * 10);
      const base = noisy(n, 100, trial);
      const head = noisy(n, 100 * (1 + (rng() - 0.5) * 0.03), trial + 1000);
      const p = mannWhitneyU(base, head, { method: 'scipy' }).p;
      const expected = p >= 0.05 ? 'none' : median(head) >= median(base) ? 'regressed' : 'improved';
      assert.equal(uTestCall(base, head), expected);
    }
  });
  it('flags complete separation and nothing for identical samples', () => {
    assert.equal(uTestCall([1, 2, 3, 4, 5], [6, 7, 8, 9, 10]), 'regressed');
    assert.equal(uTestCall([6, 7, 8, 9, 10], [1, 2, 3, 4, 5]), 'improved');
    assert.equal(uTestCall([1, 2, 3, 4, 5], [1, 2, 3, 4, 5]), 'none');
  });
});

describe('drawSides', () => {
  const pool = Array.from({ length: 50 }, (_, i) => 1000 + i);
  it('never reuses a value: base and head are disjoint draws from the pool', () => {
    const rng = xoshiro128(3);
    for (let trial = 0; trial < 100; trial++) {
      const draw = drawSides(pool, trial % 2 === 0 ? 10 : 25, rng);
      assert.equal(draw.withReplacement, false);
      const all = [...draw.base, ...draw.head];
      assert.equal(new Set(all).size, all.length);
      for (const v of all) assert.ok(pool.includes(v));
    }
  });
  it('falls back to sampling with replacement and says so when the pool has fewer than 2n values', () => {
    const draw = drawSides(pool.slice(0, 15), 10, xoshiro128(4));
    assert.equal(draw.withReplacement, true);
    assert.equal(draw.base.length, 10);
    assert.equal(draw.head.length, 10);
    for (const v of [...draw.base, ...draw.head]) assert.ok(pool.includes(v));
  });
  it('is reproducible from the seed', () => {
    assert.deepEqual(drawSides(pool, 10, xoshiro128(5)), drawSides(pool, 10, xoshiro128(5)));
  });
});

describe('benchbotCalls', () => {
  it('returns compareRuns verdicts over the whole suite, regressed/improved or none', () => {
    const suite = Array.from({ length: 20 }, (_, i) => {
      const base = noisy(10, 100 + i, i);
      const head = noisy(10, (100 + i) * (i === 3 ? 1.2 : i === 4 ? 0.8 : 1), i + 500);
      return { base, head, withReplacement: false };
    });
    const calls = benchbotCalls(suite);
    const side = (pick: 'base' | 'head') => ({
      measurements: suite.map((d, i) => ({ benchmark: `b${i}`, metric: 'time', unit: 'ns', better: 'lower' as const, values: d[pick] })),
      warnings: [],
      hints: {},
    });
    const verdicts = compareRuns(side('base'), side('head')).comparisons.map((c) => c.verdict);
    assert.deepEqual(calls, verdicts.map((v) => (v === 'regressed' || v === 'improved' ? v : 'none')));
    assert.equal(calls[3], 'regressed');
    assert.equal(calls[4], 'improved');
  });
});

describe('benchstat glue', () => {
  it('writes one Go benchmark line per sample', () => {
    const text = goBenchText([{ name: goBenchName(0, 1), values: [1.5, 2] }]);
    assert.deepEqual(text.trim().split('\n').slice(-2), ['BenchmarkS0x1 1 1.5 ns/op', 'BenchmarkS0x1 1 2 ns/op']);
  });
  it('reads ~ as no change and signed deltas as alarms, skipping headers and geomean', () => {
    // The shape of `benchstat -format csv` output (golang.org/x/perf, 2025).
    const csv = [
      'goos: linux',
      ',base.txt,,head.txt,,,',
      ',sec/op,CI,sec/op,CI,vs base,P',
      'S0x0,1.001328e-07,1%,9.99833e-08,1%,~,p=1.000 n=10',
      'S0x1,1.0021720000000001e-07,1%,1.0520040000000001e-07,1%,+4.97%,p=0.000 n=10',
      'S0x2,1.0068510000000001e-07,1%,9.974995000000001e-08,1%,-0.93%,p=0.001 n=10',
      'geomean,1.0034473960294247e-07,,1.0161375837422897e-07,,+1.26%,',
    ].join('\n');
    assert.deepEqual([...parseBenchstatCsv(csv)], [['S0x0', 'none'], ['S0x1', 'regressed'], ['S0x2', 'improved']]);
  });
});

describe('corpus', () => {
  it('loads the captured pools with at least 60 values each', () => {
    const pools = loadCorpus();
    assert.ok(pools.length >= 5);
    for (const p of pools) assert.ok(p.values.length >= 60, `${p.name} has ${p.values.length} values`);
  });
  it('quietened keeps the median (odd pool) and reaches the requested robust CV', () => {
    const pool = makePool('p', 'ns', [...noisy(39, 100, 9).map((v) => 100 + (v - 100) * 8), 300, 310]);
    const quiet = quietened(pool, 0.02);
    assert.ok(Math.abs(median(quiet.values) - median(pool.values)) < 1e-9 * median(pool.values));
    assert.ok(Math.abs((robustCv(quiet.values) as number) - 0.02) < 1e-9);
  });
});

describe('benchQuality', () => {
  it('prints the table for every rule it ran and the target line on a tiny corpus', async () => {
    const pools = [makePool('a', 'ns', noisy(60, 100, 11)), makePool('b', 'ns', noisy(60, 500, 12))];
    const lines = await benchQuality({ suites: 2, seed: 1, pools, benchstat: false });
    const rows = lines.filter((l) => /^\| (benchbot|compare\.py U test|5% threshold) \| (10|30) \|/.test(l));
    assert.equal(rows.length, 6);
    assert.ok(lines.some((l) => l.startsWith('benchstat skipped')));
    assert.ok(/^Target .*: (MET|MISSED)/.test(lines[lines.length - 1]));
  });
});
