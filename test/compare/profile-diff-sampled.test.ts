// The differential profile of sampled (perf record) profiles: its sampling
// error is derived from Poisson sample counts, so it is checked the way a
// derivation can fail: by simulation. Profiles are drawn with known rates;
// over many draws, the change of a function must lie within 1.96 of its
// standard errors of the true change about 95% of the time, its share
// likewise, and a function whose true change is zero must be marked as
// noise about 95% of the time. Then the real captured profiles
// (fixtures/capture/perf-record.sh): the C++ program whose head adds two
// rounds to mix_bits names mix_bits first.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { diffProfiles, ProfileEventError, SAMPLING_Z, whereItLives } from '../../src/compare/profile-diff.ts';
import { parseCallgrind } from '../../src/formats/callgrind-profile.ts';
import { parsePerfScript, SAMPLES_EVENT, type SampledProfile } from '../../src/formats/perf-script-profile.ts';
import { GO_BENCHMARK_CALLER } from '../../src/runner/perf-record.ts';

/** mulberry32 is a small seeded generator, so a failure repeats. */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** poisson draws a Poisson count (normal approximation above 50, Knuth's product below). */
function poisson(lambda: number, next: () => number): number {
  if (lambda > 50) {
    const z = Math.sqrt(-2 * Math.log(1 - next())) * Math.cos(2 * Math.PI * next());
    return Math.max(0, Math.round(lambda + Math.sqrt(lambda) * z));
  }
  const limit = Math.exp(-lambda);
  let k = 0;
  let p = next();
  while (p > limit) {
    k++;
    p *= next();
  }
  return k;
}

const PERIOD = 100_000;

/** sampled is a profile of leaf-only samples: counts per function, every sample one period. */
function sampled(counts: Record<string, number>): SampledProfile {
  const samples = Object.values(counts).reduce((a, b) => a + b, 0);
  return {
    events: ['cpu-clock', SAMPLES_EVENT],
    totals: [samples * PERIOD, samples],
    functions: Object.entries(counts).map(([name, n]) => ({ name, object: 'bench', self: [n * PERIOD, n], inclusive: [n * PERIOD, n] })),
    sampling: { event: 'cpu-clock', samples, unnamed: 0, outside: 0 },
  };
}

describe('diffProfiles of sampled profiles: the sampling error', () => {
  // Expected samples per side: `hot` grows by 30%, `flat` stays, `small` stays.
  const base = { hot: 2000, flat: 3000, small: 40 };
  const head = { hot: 2600, flat: 3000, small: 40 };
  const trueChange = (head.hot - base.hot) * PERIOD;

  it('covers the true change and share about 95% of the time, and marks an unchanged function as noise about 95% of the time', (t) => {
    const next = random(2311);
    const draws = 2000;
    let changeCovered = 0;
    let shareCovered = 0;
    let flatNoise = 0;
    for (let i = 0; i < draws; i++) {
      const draw = (rates: Record<string, number>) => Object.fromEntries(Object.entries(rates).map(([k, v]) => [k, poisson(v, next)]));
      const diff = diffProfiles('bench', { profile: sampled(draw(base)), iterations: 1 }, { profile: sampled(draw(head)), iterations: 1 }, { top: 10 });
      const hot = diff.self.find((f) => f.name === 'hot');
      assert.ok(hot?.error !== undefined && hot.shareError !== undefined && hot.shareError !== null, 'a sampled row has its errors');
      if (Math.abs(hot.change - trueChange) <= SAMPLING_Z * hot.error) changeCovered++;
      if (Math.abs((hot.share ?? NaN) - 1) <= SAMPLING_Z * hot.shareError) shareCovered++;
      const flat = diff.self.find((f) => f.name === 'flat');
      if (flat === undefined || flat.noise) flatNoise++;
    }
    for (const [what, covered] of [['change', changeCovered], ['share', shareCovered], ['unchanged marked noise', flatNoise]] as const) {
      const rate = covered / draws;
      // 2000 draws: a binomial 95% has a standard error of 0.5%; 0.93..0.97 is four of them.
      t.diagnostic(`${what}: ${rate}`);
      assert.ok(rate >= 0.93 && rate <= 0.97, `${what}: ${rate}`);
    }
  });

  it('says when the whole change is within sampling noise, and then names no function', () => {
    const diff = diffProfiles('bench', { profile: sampled({ hot: 2000, flat: 3000 }), iterations: 1 }, { profile: sampled({ hot: 2010, flat: 3000 }), iterations: 1 });
    assert.equal(diff.tool, 'perf');
    assert.equal(diff.sampling?.noise, true);
    assert.equal(whereItLives(diff), undefined);
    assert.equal(diff.base.samples, 5000);
    assert.equal(diff.head.samples, 5010);
  });

  it('refuses to diff a sampled side against a counted one', () => {
    const counted = parseCallgrind(readFileSync(join(import.meta.dirname, '../../fixtures/callgrind/base.out'), 'utf8'), 'base.out');
    assert.throws(() => diffProfiles('bench', { profile: counted, iterations: 20 }, { profile: sampled({ hot: 1 }), iterations: 1 }), ProfileEventError);
  });
});

describe('diffProfiles of real perf record profiles', () => {
  const DIR = join(import.meta.dirname, '../../fixtures/perf-record');
  const read = (name: string, within?: (fn: string) => boolean) => parsePerfScript(gunzipSync(readFileSync(join(DIR, `${name}.txt.gz`))).toString('utf8'), `${name}.txt`, { within });

  it('names mix_bits, where the C++ head added two rounds, first, beyond sampling noise, with most of the change', () => {
    const within = (fn: string) => fn === 'one_iteration';
    const diff = diffProfiles('one_iteration', { profile: read('cpp-base', within), iterations: 400_000 }, { profile: read('cpp-head', within), iterations: 400_000 });
    const top = whereItLives(diff);
    assert.equal(top?.name, 'mix_bits');
    assert.equal(top?.noise, false);
    assert.ok((top?.share ?? 0) >= 0.5, `share ${top?.share} ±${top?.shareError}`);
    assert.equal(diff.event, 'cpu-clock');
    // one_iteration holds every kept sample: a frame, not ranked inclusively.
    assert.ok(!diff.inclusive.some((f) => f.name === 'one_iteration'));
  });

  it('names Mix, where the Go head added two rounds, first', () => {
    const within = (fn: string) => /\.BenchmarkMix$/.test(fn) || fn === GO_BENCHMARK_CALLER;
    const diff = diffProfiles('BenchmarkMix', { profile: read('go-base', within), iterations: 300_000 }, { profile: read('go-head', within), iterations: 300_000 });
    const top = whereItLives(diff);
    assert.match(top?.name ?? '', /\.Mix$/);
    assert.equal(top?.noise, false);
  });
});
