import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countInstructions, type CountOutcome } from '../../src/runner/valgrind-count.ts';
import { LocalExecutor } from '../../src/runner/local-executor.ts';
import { parseCallgrind } from '../../src/formats/callgrind-profile.ts';
import { toolchainMissing } from '../support/counted-projects.ts';

// Go counts are exact: a recursive quicksort, whose every call is a point
// where sysmon's preemption (every 10 ms of wall time, so a different number
// of times in every run under valgrind) switches stacks. Counted with
// callgrind's --toggle-collect on the benchmark function, three repeats of
// this benchmark read 3.4% apart (callgrind lost the benchmark function at
// each stack switch); read from the whole-process profile they agree to a few
// parts per million (the function prologues a preemption runs twice).
// The per-iteration value is divided by 301 runs (b.N = 1, then 300).

const work = mkdtempSync(join(tmpdir(), 'benchbot-count-go-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

/**
 * EXACT is the largest spread between repeats this test accepts: 100 parts
 * per million, where the toggled count spread 3.4%. What is left is the
 * preempted function's prologue and its spilled arguments, run again once
 * per preemption (9 ppm measured here at load 8), and the number of
 * preemptions grows with the machine's load.
 */
const EXACT = 1e-4;

const SORT = `package sorted

func partition(v []uint32, lo, hi int) int {
\tpivot := v[(lo+hi)/2]
\ti, j := lo, hi
\tfor i <= j {
\t\tfor v[i] < pivot {
\t\t\ti++
\t\t}
\t\tfor v[j] > pivot {
\t\t\tj--
\t\t}
\t\tif i <= j {
\t\t\tv[i], v[j] = v[j], v[i]
\t\t\ti++
\t\t\tj--
\t\t}
\t}
\treturn i
}

// Sort is a recursive quicksort: every call checks the stack, so a preemption can land in any of them.
func Sort(v []uint32, lo, hi int) {
\tif lo >= hi {
\t\treturn
\t}
\tp := partition(v, lo, hi)
\tSort(v, lo, p-1)
\tSort(v, p, hi)
}
`;

const SORT_TEST = `package sorted

import "testing"

var input = func() []uint32 {
\tr := make([]uint32, 2048)
\tx := uint32(7)
\tfor i := range r {
\t\tx = x*1664525 + 1013904223
\t\tr[i] = x >> 8
\t}
\treturn r
}()

func BenchmarkSort(b *testing.B) {
\tv := make([]uint32, len(input))
\tfor i := 0; i < b.N; i++ {
\t\tcopy(v, input)
\t\tSort(v, 0, len(v)-1)
\t}
}
`;

test('a Go benchmark with a preemption point in every call counts the same in every repeat', { timeout: 120_000 }, async (t) => {
  const missing = toolchainMissing('go');
  if (missing) {
    t.skip(`${missing}: instruction counting cannot be tested here`);
    return;
  }
  const dir = join(work, 'sorted');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'go.mod'), 'module example.com/sorted\n\ngo 1.24\n');
  writeFileSync(join(dir, 'sorted.go'), SORT);
  writeFileSync(join(dir, 'sorted_test.go'), SORT_TEST);
  writeFileSync(join(dir, 'bench.sh'), '#!/bin/sh\nexec go test -run "^$" -bench . -benchtime 100x .\n');
  chmodSync(join(dir, 'bench.sh'), 0o755);
  const started = Date.now();
  const outcome: CountOutcome = await countInstructions({
    bench: './bench.sh', format: 'go', names: ['BenchmarkSort'], repeats: 3, parallel: 2, iterations: 300, timeoutMs: 110_000,
    keepDir: join(work, 'keep'), env: { GOPROXY: 'off', GOTOOLCHAIN: 'local' },
  }, new LocalExecutor(), dir, 'exact');
  assert.deepEqual(outcome.reasons, []);
  const values = outcome.measurements.find((m) => m.metric === 'instructions')?.values ?? [];
  const spread = Math.max(...values) / Math.min(...values) - 1;
  t.diagnostic(`3 repeats in ${((Date.now() - started) / 1000).toFixed(1)} s: ${values.map((v) => v.toFixed(3)).join(', ')} instructions per iteration, ${(spread * 1e6).toFixed(2)} ppm apart`);
  assert.equal(values.length, 3);
  // 2048 elements sorted: some 11 levels of partitions over them, tens of thousands of instructions.
  assert.ok(values[0] > 20_000, `a sort of 2048 elements is more than ${values[0]} instructions`);
  assert.ok(spread <= EXACT, `repeats within ${EXACT * 1e6} ppm: ${values.join(', ')}`);

  // The kept profile is the benchmark's work alone: its own functions and the runtime's copy, no scheduler.
  const kept = parseCallgrind(readFileSync(outcome.profiles[0].file, 'utf8'), outcome.profiles[0].file);
  const names = kept.functions.map((f) => f.name);
  assert.ok(names.includes('example.com/sorted.Sort') && names.includes('example.com/sorted.BenchmarkSort'), names.join(', '));
  assert.ok(names.includes('runtime.memmove'), `copy's memmove is counted as called from the benchmark: ${names.join(', ')}`);
  assert.ok(!names.some((n) => /^runtime\.(schedule|findRunnable|sysmon|newstack|morestack)/.test(n)), `no scheduler work: ${names.join(', ')}`);
  assert.equal(kept.totals[0] / outcome.profiles[0].iterations, values[0]);
});

const TABLE_TEST = `package sorted

import "testing"

var sinkInt int
var sinkSlots []uint64
var sinkValues []uint32

// BenchmarkTable builds a fresh open-addressing table per iteration: two slices (6 KB) that escape to the heap, so with GOGC=off every other allocation takes a new span.
func BenchmarkTable(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\tslots := make([]uint64, 512)
\t\tvalues := make([]uint32, 512)
\t\tfor j := range input[:256] {
\t\t\tk := uint64(input[j]) | 1
\t\t\ts := (k * 0x9E3779B97F4A7C15) >> 40 & 511
\t\t\tfor slots[s] != 0 && slots[s] != k {
\t\t\t\ts = (s + 1) & 511
\t\t\t}
\t\t\tslots[s] = k
\t\t\tvalues[s] = uint32(j)
\t\t}
\t\tsinkInt += int(values[1])
\t\tsinkSlots, sinkValues = slots, values
\t}
}
`;

/**
 * ALLOCATING_EXACT is the largest spread between repeats this test accepts
 * for a benchmark that takes a new span every other allocation: 0.1%, a
 * fifth of the 0.5% a verdict of `unchanged` needs between every pair of
 * repeats. Counted with the allocator's span and page work inside its calls
 * (linked by Go alone), such a benchmark read 3.7% apart in four repeats;
 * linked with cgo, 0.40%; with those slow paths left out (GO_HEAP_GROWTH),
 * 0.01%.
 */
const ALLOCATING_EXACT = 1e-3;

test('a Go benchmark that allocates a span per iteration counts alike in every repeat', { timeout: 150_000 }, async (t) => {
  const missing = toolchainMissing('go');
  if (missing) {
    t.skip(`${missing}: instruction counting cannot be tested here`);
    return;
  }
  const dir = join(work, 'sorted');
  if (!existsSync(join(dir, 'sorted.go'))) {
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'go.mod'), 'module example.com/sorted\n\ngo 1.24\n');
    writeFileSync(join(dir, 'sorted.go'), SORT);
    writeFileSync(join(dir, 'sorted_test.go'), SORT_TEST);
    writeFileSync(join(dir, 'bench.sh'), '#!/bin/sh\nexec go test -run "^$" -bench . -benchtime 100x .\n');
    chmodSync(join(dir, 'bench.sh'), 0o755);
  }
  writeFileSync(join(dir, 'table_test.go'), TABLE_TEST);
  const outcome = await countInstructions({
    bench: './bench.sh', format: 'go', names: ['BenchmarkTable'], repeats: 4, parallel: 2, iterations: 300, timeoutMs: 140_000,
    keepDir: join(work, 'keep-table'), env: { GOPROXY: 'off', GOTOOLCHAIN: 'local' },
  }, new LocalExecutor(), dir, 'table');
  assert.deepEqual(outcome.reasons, []);
  const values = outcome.measurements.find((m) => m.metric === 'instructions')?.values ?? [];
  const spread = Math.max(...values) / Math.min(...values) - 1;
  t.diagnostic(`counted: ${values.map((v) => v.toFixed(2)).join(', ')}, ${(spread * 100).toFixed(4)}% apart`);
  assert.equal(values.length, 4);
  assert.ok(spread <= ALLOCATING_EXACT, `repeats within ${ALLOCATING_EXACT * 100}%: ${values.join(', ')}`);
  // The allocations' fast path stays counted: the kept profile has make's call into the runtime.
  const kept = parseCallgrind(readFileSync(outcome.profiles[0].file, 'utf8'), outcome.profiles[0].file);
  const costs = kept.functions.map((f) => `${f.name} ${f.self[0]}`);
  assert.ok(kept.functions.some((f) => f.name === 'runtime.makeslice' && f.self[0] > 0), `make is counted: ${costs.join(', ')}`);
  // A call callgrind invented after a stack switch may name the page allocator as called by the benchmark; its cost stays out.
  assert.ok(kept.functions.every((f) => !/refill|allocSpan/.test(f.name) || f.self[0] === 0), `no span allocation counted: ${costs.join(', ')}`);
});
