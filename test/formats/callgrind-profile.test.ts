// The callgrind reader held to callgrind_annotate on real profiles
// (fixtures/capture/callgrind.sh): self costs per function agree exactly,
// inclusive costs agree wherever callgrind_annotate counts each instruction
// once, and where it does not (a recursion: `fib'2` counted once per depth)
// the reader gives the cost of the outermost calls.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { parseCallgrind, type CallgrindProfile } from '../../src/formats/callgrind-profile.ts';

const DIR = join(import.meta.dirname, '../../fixtures/callgrind');
const read = (name: string) => readFileSync(join(DIR, name), 'utf8');
const profile = (name: string) => parseCallgrind(read(`${name}.out`), `${name}.out`);

/** annotate reads callgrind_annotate's listing: the program total and one [function, cost] per `file:function` line. */
function annotate(name: string): { total: number; rows: { fn: string; cost: number }[] } {
  const text = read(name);
  const total = Number(/^([\d,]+) \S+\s+PROGRAM TOTALS$/m.exec(text)?.[1].replace(/,/g, ''));
  // The listing runs from its heading to the first blank line; the auto-annotated sources follow.
  const from = text.indexOf('file:function');
  const listing = text.slice(from, text.indexOf('\n\n', from));
  const rows: { fn: string; cost: number }[] = [];
  for (const line of listing.split('\n')) {
    const m = /^\s*([\d,]+) \(\s*[\d.]+%\)\s+(.+?)(?: \[(?:\/[^\]]*|\?\?\?)\])?$/.exec(line);
    if (!m) continue;
    // `file:function`: no file callgrind names holds a colon, function names do (`std::`).
    rows.push({ fn: m[2].slice(m[2].indexOf(':') + 1), cost: Number(m[1].replace(/,/g, '')) });
  }
  return { total, rows };
}

const baseName = (fn: string) => fn.replace(/'\d+$/, '');

function byName(p: CallgrindProfile, kind: 'self' | 'inclusive'): Map<string, number[]> {
  const out = new Map<string, number[]>();
  for (const f of p.functions) out.set(f.name, [...(out.get(f.name) ?? []), f[kind][0]]);
  return out;
}

describe('parseCallgrind against callgrind_annotate', () => {
  for (const name of ['whole-base', 'base', 'head', 'base-recs1']) {
    it(`${name}.out: the totals, and every function's self cost (recursion levels summed)`, () => {
      const p = profile(name);
      const self = annotate(`${name}.self.txt`);
      assert.deepEqual(p.events, ['Ir']);
      assert.equal(p.totals[0], self.total);
      assert.equal(p.functions.reduce((s, f) => s + f.self[0], 0), self.total, 'self costs add up to the total');
      const expected = new Map<string, number>();
      for (const r of self.rows) expected.set(baseName(r.fn), (expected.get(baseName(r.fn)) ?? 0) + r.cost);
      const mine = new Map([...byName(p, 'self')].map(([n, costs]) => [n, costs.reduce((a, b) => a + b, 0)]));
      // callgrind_annotate leaves out functions whose cost is zero.
      for (const [n, cost] of mine) if (cost === 0) mine.delete(n);
      assert.deepEqual(mine, expected);
      assert.ok(expected.size >= 20, `${expected.size} functions compared`);
    });
  }

  for (const name of ['whole-base', 'base', 'head']) {
    it(`${name}.out: inclusive costs equal callgrind_annotate --inclusive=yes where it names a function once`, (t) => {
      const p = profile(name);
      const rows = annotate(`${name}.inclusive.txt`).rows;
      const count = new Map<string, number>();
      for (const r of rows) count.set(r.fn, (count.get(r.fn) ?? 0) + 1);
      const mine = byName(p, 'inclusive');
      let compared = 0;
      for (const r of rows) {
        // Names split over inlined source files (fi=) appear once per file; deeper recursion levels are double counts.
        if (count.get(r.fn) !== 1 || /'\d+$/.test(r.fn) || mine.get(r.fn)?.length !== 1) continue;
        assert.equal(mine.get(r.fn)?.[0], r.cost, r.fn);
        compared++;
      }
      t.diagnostic(`${compared} of ${mine.size} functions compared`);
      assert.ok(compared >= (name === 'whole-base' ? 60 : 15), `${compared} compared`);
      for (const fn of ['main', 'one_iteration(unsigned int)', 'mix_bits(unsigned long)', 'fib(unsigned int)', 'is_even(unsigned int)', 'is_odd(unsigned int)']) {
        assert.equal(mine.get(fn)?.length, 1, fn);
      }
    });
  }

  it('counts a recursion once: fib and is_even/is_odd are their outermost calls, not the sum over depths', () => {
    const p = profile('base');
    const inclusive = byName(p, 'inclusive');
    const self = byName(p, 'self');
    const rows = annotate('base.inclusive.txt').rows;
    const deeper = rows.find((r) => r.fn === "fib(unsigned int)'2")?.cost ?? 0;
    // callgrind_annotate's fib'2 alone is more than the whole profile: every depth counts the depths below it.
    assert.ok(deeper > p.totals[0], `fib'2 ${deeper} > total ${p.totals[0]}`);
    // fib calls nothing else, so its inclusive cost is its self cost over all depths.
    assert.equal(inclusive.get('fib(unsigned int)')?.[0], self.get('fib(unsigned int)')?.[0]);
    // is_even is entered from one_iteration and runs all of is_odd inside it.
    const even = (self.get('is_even(unsigned int)')?.[0] ?? 0) + (self.get('is_odd(unsigned int)')?.[0] ?? 0);
    assert.equal(inclusive.get('is_even(unsigned int)')?.[0], even);
  });

  it('reads a direct recursion without level names (--separate-recs=1) as the same cost', () => {
    const levels = byName(profile('base'), 'inclusive').get('fib(unsigned int)');
    const flat = byName(profile('base-recs1'), 'inclusive').get('fib(unsigned int)');
    const annotated = annotate('base-recs1.inclusive.txt').rows.find((r) => r.fn === 'fib(unsigned int)')?.cost;
    assert.deepEqual(flat, levels);
    assert.ok((annotated ?? 0) > (flat?.[0] ?? 0), 'callgrind_annotate adds the call to itself');
  });

  it('keys functions by object file name, so one binary in two worktrees matches', () => {
    const objects = new Set(profile('base').functions.map((f) => f.object));
    assert.ok(objects.has('profiled') && objects.has('libc.so.6'), [...objects].join(', '));
    assert.ok([...objects].every((o) => !o.includes('/')));
  });
});

describe('parseCallgrind on bad input', () => {
  const bad = (text: string, pattern: RegExp) => assert.throws(() => parseCallgrind(text, 'p.out'), (e: unknown) => e instanceof FormatError && pattern.test(e.message));
  it('names the file and line of what it cannot read', () => {
    bad('events: Ir\nfn=(1)\n1 2\n', /^p\.out:2: fn id \(1\) is used before/);
    bad('events: Ir\nfn=a\ncfn=b\ncalls=1 2\nfn=c\n', /^p\.out:5: a calls= line must be followed/);
    bad('events: Ir\nfn=a\ncfn=b\ncalls=1 2\n', /the file ends after a calls= line/);
    bad('events: Ir\nfn=a\n1 2 3\n', /^p\.out:3: 2 counts for 1 event/);
    bad('events: Ir\nfn=a\nx1 2\n', /^p\.out:3: "x1 2" is neither/);
    bad('events: Ir\nfn=a\n1 2x\n', /^p\.out:3: "2x" is not a count/);
    bad('fn=a\n1 2\n', /^p\.out:2: a cost line comes before the events/);
    bad('events: Ir\n1 2\n', /before any fn= line/);
    bad('version: 2\nevents: Ir\n', /version 2/);
    bad('# nothing\n', /no events: line/);
    bad('events: Ir\nfn=a\ncalls=1 2\n3 4\n', /calls= before any cfn=/);
  });

  it('reads a handwritten profile in the manual\'s extended example (calls, cfi=, name compression) as the manual sums it', () => {
    // handwritten: the Callgrind Format Specification's section 3.1.5 example.
    const text = 'events: Instructions\nfl=(1) file1.c\nfn=(1) main\n16 20\ncfn=(2) func1\ncalls=1 50\n16 400\ncfi=(2) file2.c\ncfn=(3) func2\ncalls=3 20\n16 400\nfn=(2)\n51 100\ncfi=(2)\ncfn=(3)\ncalls=2 20\n51 300\nfl=(2)\nfn=(3)\n20 700\n';
    const p = parseCallgrind(text, 'manual.out');
    const get = (n: string) => p.functions.find((f) => f.name === n);
    // "Inclusive cost of main is 820, which is the sum of self cost 20 and costs spent in the calls".
    assert.deepEqual(get('main'), { name: 'main', object: '', self: [20], inclusive: [820] });
    assert.deepEqual(get('func1'), { name: 'func1', object: '', self: [100], inclusive: [400] });
    assert.deepEqual(get('func2'), { name: 'func2', object: '', self: [700], inclusive: [700] });
    assert.deepEqual(p.totals, [820]);
  });
});
