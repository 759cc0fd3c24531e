// The perf record reader against perf itself, on real recordings
// (fixtures/capture/perf-record.sh: a C++ program unwound with DWARF, a Go
// benchmark with frame pointers): every function's self sample count equal
// to `perf report --no-children`'s, and its inclusive share equal to
// `perf report --children`'s (which counts a function once per sample
// however often a recursion puts it on the chain, as the reader does), at
// the two decimals perf prints. Then what a hostile file gets: an error
// naming the line, in time linear in its size.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { GO_BENCHMARK_CALLER } from '../../src/runner/perf-record.ts';
import { parsePerfScript, perfScriptWithin, UNKNOWN_SYMBOL, type SampledProfile } from '../../src/formats/perf-script-profile.ts';

const DIR = join(import.meta.dirname, '../../fixtures/perf-record');
const FIXTURES = ['cpp-base', 'cpp-head', 'go-base', 'go-head'];
const text = (name: string) => gunzipSync(readFileSync(join(DIR, `${name}.txt.gz`))).toString('utf8');

/**
 * reportRows reads `perf report --stdio -F <value>,dso,sym` (value: sample
 * or children): per object file name and symbol, the value. Code perf
 * cannot name is one row per address there (`0x...`) and one `[unknown]`
 * per object in perf script: summed.
 */
function reportRows(name: string, kind: 'self' | 'children'): Map<string, number> {
  const rows = new Map<string, number>();
  for (const line of readFileSync(join(DIR, `${name}.${kind}.txt`), 'utf8').split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const m = /^\s*([\d.]+)%?\s+(\S+)\s+\[[.kgu]\]\s+(.*?)\s*$/.exec(line);
    assert.ok(m, `${name}.${kind}.txt: ${line}`);
    const [, value, dso, sym] = m as RegExpExecArray;
    const object = dso.slice(dso.lastIndexOf('/') + 1);
    const fn = /^0x[0-9a-f]+$/.test(sym) ? UNKNOWN_SYMBOL : sym;
    const key = `${object}\u0000${fn}`;
    rows.set(key, kind === 'self' ? (rows.get(key) ?? 0) + Number(value) : Math.max(rows.get(key) ?? 0, Number(value)));
  }
  return rows;
}

function byKey(profile: SampledProfile, kind: 'self' | 'inclusive'): Map<string, number> {
  return new Map(profile.functions.filter((f) => f[kind][1] > 0).map((f) => [`${f.object}\u0000${f.name}`, f[kind][1]]));
}

describe('parsePerfScript on real perf record output', () => {
  for (const name of FIXTURES) {
    it(`${name}: self samples per function equal perf report --no-children's`, () => {
      const profile = parsePerfScript(text(name), `${name}.txt`);
      const expected = reportRows(name, 'self');
      assert.ok(expected.size > 3, `${expected.size} functions`);
      assert.deepEqual(new Map([...byKey(profile, 'self')].sort()), new Map([...expected].sort()));
      assert.equal(profile.totals[1], [...expected.values()].reduce((a, b) => a + b, 0));
      const period = name.startsWith('cpp') ? 250_000 : 100_000;
      assert.equal(profile.totals[0], profile.totals[1] * period, `every sample is one fixed period (-c ${period})`);
    });

    it(`${name}: inclusive shares equal perf report --children's, recursion counted once`, () => {
      const profile = parsePerfScript(text(name), `${name}.txt`);
      const expected = reportRows(name, 'children');
      const total = profile.totals[1];
      let compared = 0;
      for (const [key, samples] of byKey(profile, 'inclusive')) {
        // perf report does not list unknown addresses' callers it cannot name; named functions only.
        if (key.endsWith(UNKNOWN_SYMBOL)) continue;
        const percent = expected.get(key);
        assert.ok(percent !== undefined, `perf report --children lists ${key.replace('\u0000', ' ')}`);
        assert.equal((100 * samples / total).toFixed(2), percent.toFixed(2), key.replace('\u0000', ' '));
        compared++;
      }
      assert.ok(compared > 3, `${compared} functions compared`);
    });
  }

  it('counts a recursion once per sample: fib is never more than the samples it is on', () => {
    const profile = parsePerfScript(text('cpp-base'), 'cpp-base.txt');
    const fib = profile.functions.find((f) => f.name === 'fib');
    assert.ok(fib !== undefined && fib.inclusive[1] > fib.self[1], 'fib calls itself on the sampled chains');
    assert.ok(fib.inclusive[1] <= profile.totals[1]);
  });

  it('keeps the benchmark function\'s samples only, cut above it, and keeps them in a file that reads the same', () => {
    const within = (fn: string) => fn === 'one_iteration';
    const whole = parsePerfScript(text('cpp-base'), 'cpp-base.txt');
    const profile = parsePerfScript(text('cpp-base'), 'cpp-base.txt', { within });
    assert.ok(profile.sampling.outside > 0 && profile.sampling.samples > 0);
    assert.equal(profile.sampling.samples + profile.sampling.outside, whole.totals[1]);
    assert.equal(profile.functions.find((f) => within(f.name))?.inclusive[1], profile.totals[1], 'the benchmark function holds every kept sample');
    assert.ok(!profile.functions.some((f) => f.name === 'main'), 'main is above it');
    const kept = perfScriptWithin(text('cpp-base'), 'cpp-base.txt', within);
    assert.equal(kept.kept, profile.sampling.samples);
    const again = parsePerfScript(kept.text, 'kept.txt');
    const sorted = (p: SampledProfile) => [...p.functions].sort((a, b) => (a.object + a.name < b.object + b.name ? -1 : 1));
    assert.deepEqual(sorted(again), sorted(profile));
    assert.deepEqual(again.totals, profile.totals);
  });

  it('names Go functions by their package path, as the symbol table does', () => {
    const profile = parsePerfScript(text('go-base'), 'go-base.txt', { within: (fn) => /\.BenchmarkMix$/.test(fn) || fn === GO_BENCHMARK_CALLER });
    assert.ok(profile.functions.some((f) => /\.Mix$/.test(f.name) && f.self[1] > 0), profile.functions.map((f) => f.name).join(', '));
  });
});

describe('parsePerfScript on bad input', () => {
  const bad: [string, string, RegExp][] = [
    ['a frame before any sample', '\t4011d6 main (/bin/x)\n', /:1: .*not a sample's first line/],
    ['a frame line that is not one', '100000 cpu-clock:u:\n\tnot a frame\n', /:2: .*not a call chain frame/],
    ['two events', '100000 cpu-clock:u:\n\t1 main (/bin/x)\n\n1000 cycles:u:\n\t1 main (/bin/x)\n', /:4: a cycles sample in a profile of cpu-clock/],
    ['a sample without frames', '100000 cpu-clock:u:\n\n', /:1: a sample without a frame/],
    ['nothing', '\n\n', /no samples/],
  ];
  for (const [what, input, message] of bad) {
    it(`${what}: FormatError naming the line`, () => {
      assert.throws(() => parsePerfScript(input, 'in.txt'), (error: unknown) => error instanceof FormatError && message.test(error.message));
    });
  }

  it('reads C++ names with parentheses, spaces and operators whole, and a JIT perf map as one object', () => {
    const profile = parsePerfScript('100000 cpu-clock:u:\n\t1 operator()(int) const (/a/b/bench)\n\t2 JS:*work /x/y.js:3:14 (/tmp/perf-4242.map)\n\n100000 cpu-clock:u:\n\t1 JS:~work /x/y.js:3:14 (/tmp/perf-777.map)\n', 'in.txt');
    // V8's tier mark (* optimized, ~ interpreted) and the source position are left out: one function at both commits.
    assert.deepEqual(profile.functions.map((f) => [f.name, f.object, f.self[1], f.inclusive[1]]).sort(), [['JS:work /x/y.js', '[perf map]', 1, 2], ['operator()(int) const', 'bench', 1, 1]]);
  });

  it('reads a hostile file in time linear in its size', () => {
    const long = `${'('.repeat(50_000)}x${')'.repeat(50_000)}`;
    const started = performance.now();
    // A C++-like name of 100,000 parentheses reads whole; without its object it is an error.
    assert.equal(parsePerfScript(`100000 cpu-clock:u:\n\t1 ${long} (/bin/x)\n`, 'in.txt').functions[0].name, long);
    assert.throws(() => parsePerfScript(`100000 cpu-clock:u:\n\t1 ${long}\n`.repeat(20), 'in.txt'), FormatError);
    const nested = `100000 cpu-clock:u:\n${'\t2 f (/bin/x)\n'.repeat(5000)}\n`.repeat(40);
    const profile = parsePerfScript(nested, 'in.txt');
    assert.equal(profile.functions[0].inclusive[1], 40);
    assert.ok(performance.now() - started < 2000, `${performance.now() - started} ms`);
  });
});
