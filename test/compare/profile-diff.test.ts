// The differential profile of real callgrind profiles (fixtures/capture/callgrind.sh):
// the head build adds two rounds to mix_bits' loop and ran 30 iterations to
// the base's 20, so per iteration the whole change is mix_bits' and its callers'.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { parseCallgrind } from '../../src/formats/callgrind-profile.ts';
import { diffProfiles, ProfileEventError, whereItLives } from '../../src/compare/profile-diff.ts';

const DIR = join(import.meta.dirname, '../../fixtures/callgrind');
const profile = (name: string) => parseCallgrind(readFileSync(join(DIR, `${name}.out`), 'utf8'), `${name}.out`);
const base = { profile: profile('base'), iterations: 20, sha: 'a'.repeat(40) };
const head = { profile: profile('head'), iterations: 30, sha: 'b'.repeat(40) };

describe('diffProfiles', () => {
  const diff = diffProfiles('one_iteration', base, head);

  it('normalizes per iteration: the whole change is the totals over their iterations', () => {
    assert.equal(diff.base.total, base.profile.totals[0] / 20);
    assert.equal(diff.head.total, head.profile.totals[0] / 30);
    assert.equal(diff.change, diff.head.total - diff.base.total);
    assert.ok(diff.change > 0);
  });

  it('names the function the change was injected into first, by self cost, with most of the change', () => {
    const top = whereItLives(diff);
    assert.equal(top?.name, 'mix_bits(unsigned long)');
    assert.equal(top?.object, 'profiled');
    const mix = (p: typeof base) => (p.profile.functions.find((f) => f.name === 'mix_bits(unsigned long)')?.self[0] ?? 0) / p.iterations;
    assert.equal(top?.change, mix(head) - mix(base));
    assert.ok((top?.share ?? 0) >= 0.8, `share ${top?.share}`);
  });

  it('leaves out what did not change per iteration though the counts differ (fib: same work, 30 vs 20 iterations)', () => {
    assert.ok(!diff.self.some((f) => f.name === 'fib(unsigned int)'));
    assert.ok(!diff.inclusive.some((f) => f.name === 'fib(unsigned int)'));
  });

  it('ranks inclusive changes down the call path, without the frames that hold the whole profile', () => {
    const names = diff.inclusive.map((f) => f.name);
    // checksum calls mix_bits: it holds mix_bits' change as well.
    assert.deepEqual(names.slice(0, 2), ['checksum(std::vector<unsigned long, std::allocator<unsigned long> > const&)', 'mix_bits(unsigned long)']);
    // one_iteration is where collection started (--toggle-collect) and main is above it: both hold everything.
    for (const frame of ['one_iteration(unsigned int)', 'main']) assert.ok(!names.includes(frame), frame);
    // Every shown change is at least as large as every one left out, and shares are change over the whole change.
    for (const list of [diff.self, diff.inclusive]) {
      for (let i = 1; i < list.length; i++) assert.ok(Math.abs(list[i - 1].change) >= Math.abs(list[i].change));
      for (const f of list) assert.equal(f.share, f.change / diff.change);
    }
  });

  it('self shares add up to the whole change over all functions', () => {
    const all = diffProfiles('x', base, head, { top: 1_000 });
    assert.equal(all.omitted.self, 0);
    const sum = all.self.reduce((s, f) => s + (f.share ?? 0), 0);
    assert.ok(Math.abs(sum - 1) < 1e-9, `${sum}`);
  });

  it('keeps `top` functions per ranking and counts the rest', () => {
    const two = diffProfiles('x', base, head, { top: 2 });
    const all = diffProfiles('x', base, head, { top: 1_000 });
    assert.equal(two.self.length, 2);
    assert.equal(two.omitted.self, all.self.length - 2);
    assert.deepEqual(two.self, all.self.slice(0, 2));
  });

  it('an A/A diff changes nothing and has no shares to give', () => {
    const same = diffProfiles('x', base, { ...base });
    assert.equal(same.change, 0);
    assert.deepEqual([same.self, same.inclusive], [[], []]);
    assert.equal(whereItLives(same), undefined);
  });

  it('says which event a profile lacks', () => {
    assert.throws(() => diffProfiles('x', base, head, { event: 'Dr' }), (e: unknown) => e instanceof ProfileEventError && /counts Ir, not Dr/.test((e as Error).message));
    assert.throws(() => diffProfiles('x', { ...base, iterations: 0 }, head), RangeError);
  });
});

describe('diffProfiles of a Go benchmark (fixtures/capture/callgrind-go.sh)', () => {
  const meta = JSON.parse(readFileSync(join(DIR, 'go-profile.json'), 'utf8'));
  const go = diffProfiles(meta.benchmark, { profile: profile('go-base'), iterations: meta.base_iterations }, { profile: profile('go-head'), iterations: meta.head_iterations });

  it('names the function the head slowed, with the change', () => {
    assert.equal(go.self[0].name, 'example.com/mix.Mix');
    assert.ok((go.self[0].share ?? 0) >= 0.8, `${go.self[0].share}`);
    assert.ok(go.inclusive.some((f) => f.name === 'example.com/mix.Mix'));
  });

  it('ranks no frame callgrind kept from a goroutine switch: no inclusive cost of (nearly) the whole profile, none above it', () => {
    const runN = profile('go-base').functions.find((f) => f.name === 'testing.(*B).runN');
    // The reader gives what callgrind recorded: runN entered twice on a stale stack holds twice the profile.
    assert.ok((runN?.inclusive[0] ?? 0) > profile('go-base').totals[0]);
    for (const f of go.inclusive) {
      assert.ok(f.base < 0.99 * go.base.total && f.head < 0.99 * go.head.total, `${f.name} ${f.base} ${f.head}`);
    }
    for (const frame of ['runtime.gcStart', 'testing.(*B).runN', 'example.com/mix.BenchmarkMix']) assert.ok(!go.inclusive.some((f) => f.name === frame), frame);
  });
});
