// Smoke test of `npm run bench:instructions`: the quick run (the C++ suite,
// one A/A and one injected `benchbot run --instructions` counting two
// benchmarks, one `benchbot profile`) end to end, and the calibration it
// rests on. Needs g++, Google Benchmark and valgrind (scripts/prepare-tests.sh).
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { describe, it } from 'node:test';
import { functionCost } from '../../bench/callgrind-direct.ts';
import { benchInstructions } from '../../bench/instructions.ts';
import { SUITES } from '../../bench/instruction-suites.ts';

const missing = ['valgrind', 'g++'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);
const skip = missing.length > 0 ? `${missing.join(', ')} not installed (scripts/prepare-tests.sh installs them)` : false;

describe('functionCost (callgrind output, the calibration of the injected loops)', () => {
  // The shape callgrind 3.19 writes with --dump-instr=no: name compression, a recursive function, a call to another.
  const profile = [
    'events: Ir',
    'fl=(1) work.cpp',
    'fn=(1) work::quicksort(std::vector<unsigned int>&)',
    '10 5',
    'cfn=(2) work::quicksort_range(unsigned int*, long, long)',
    'calls=1 20',
    '11 100',
    'fn=(2)',
    '20 60',
    'cfn=(2)',
    'calls=3 20',
    '21 40',
    'cfn=(3) work::insertion_sort(unsigned int*, long, long)',
    'calls=4 30',
    '22 30',
    'fn=(4) BM_Sort(benchmark::State&)',
    '5 7',
    'cfn=(1)',
    'calls=2 10',
    '6 105',
  ].join('\n');
  it('adds a function\'s self cost and its calls to others, once, and counts the calls from outside it', () => {
    assert.deepEqual(functionCost(profile, /^work::quicksort\(/), { inclusive: 105, calls: 2 });
  });
  it('skips a recursive function\'s calls to itself, whose cost is already its self cost', () => {
    assert.deepEqual(functionCost(profile, /^work::quicksort_range\(/), { inclusive: 90, calls: 1 });
  });
  it('names every suite\'s work functions by patterns that tell them apart', () => {
    for (const spec of Object.values(SUITES)) {
      for (const fn of spec.functions) {
        const others = spec.functions.filter((f) => f !== fn);
        assert.ok(fn.pattern.test(fn.symbol), `${fn.symbol} matches its own pattern`);
        for (const o of others) assert.ok(!fn.pattern.test(o.symbol), `${fn.symbol}'s pattern does not match ${o.symbol}`);
      }
    }
    assert.ok(SUITES.cpp.functions[0].pattern.test('work::quicksort(std::vector<unsigned int, std::allocator<unsigned int> >&)'));
    assert.ok(SUITES.rust.functions[1].pattern.test('worksuite::fnv1a::h0123456789abcdef'));
    assert.ok(!SUITES.cpp.functions[0].pattern.test('work::quicksort_range(unsigned int*, long, long)'));
  });
});

describe('bench:instructions --quick', { skip }, () => {
  it('finds the injected +1% by counting, names the function, and prints the targets', { timeout: 600_000 }, async (t) => {
    const lines = await benchInstructions({ quick: true, harnesses: ['cpp'], real: false }, (line) => t.diagnostic(line));
    const text = lines.join('\n');
    t.diagnostic(text);
    assert.match(text, /## Targets/);
    // The injected commit's row: BM_Sort's counted change is +0.7..1.3% and the counted run calls it regressed.
    const row = lines.find((l) => l.startsWith('| inject-0 |'));
    assert.ok(row, 'the injection row is printed');
    const cells = row!.split('|').map((c) => c.trim());
    const change = Number(/([+-]\d+\.\d+)%/.exec(cells[4])?.[1]);
    assert.ok(change > 0.7 && change < 1.3, `counted change ${cells[4]} is about +1%`);
    assert.equal(cells[5], 'regressed');
    assert.equal(cells[6], 'none', 'no other counted row changed');
    assert.match(cells[7], /^`work::quicksort\(.*` \+\d+\.\d%$/, 'benchbot profile names the injected function first, with its share');
    assert.match(text, /\| C\+\+ Google Benchmark \| A\/A, 1 suites: no false finding on instruction metrics \| yes \|/);
    assert.match(text, /perf: /);
  });
});
