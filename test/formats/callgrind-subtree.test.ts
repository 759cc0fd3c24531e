import { test } from 'node:test';
import assert from 'node:assert/strict';
import { callgrindSubtree, type SubtreeSettings } from '../../src/formats/callgrind-subtree.ts';

// A whole-process profile in the shape callgrind writes with
// --separate-callers=N (every function named with its callers, nearest
// first: `fn'caller1'caller2`): the benchmark's make takes a span (refill,
// the page allocator under it), the allocator clears reused memory, the
// benchmark clears a slice itself, callgrind lost a return in the allocator
// (the program's code after it looks called from mallocgc, and mallocgc's
// call looks open: its inclusive cost holds that code too), a preemption
// runs the scheduler, and the scheduler takes a span of its own.
const PROFILE = `# callgrind format
version: 1
positions: line
events: Ir
ob=(1) /bench.test
fn=(1) pkg.BenchmarkX'testing.(*B).runN
0 100
cfn=(2) runtime.makeslice'pkg.BenchmarkX
calls=2 0
0 1500
cfn=(7) runtime.memclrNoHeapPointers'pkg.BenchmarkX
calls=1 0
0 70
cfn=(12) runtime.morestack'pkg.BenchmarkX
calls=1 0
0 5000
fn=(2)
0 30
cfn=(8) runtime.mallocgc'runtime.makeslice'pkg.BenchmarkX
calls=2 0
0 1470
fn=(8)
0 40
cfn=(9) runtime.memclrNoHeapPointers'runtime.mallocgc'runtime.makeslice'pkg.BenchmarkX
calls=1 0
0 20
cfn=(3) runtime.(*mcache).refill'runtime.mallocgc'runtime.makeslice'pkg.BenchmarkX
calls=1 0
0 400
cfn=(11) pkg.BenchmarkX'runtime.mallocgc'runtime.makeslice'pkg.BenchmarkX
calls=1 0
0 1000
fn=(9)
0 20
fn=(3)
0 150
cfn=(6) runtime.(*mheap).allocSpan'runtime.(*mcache).refill'runtime.mallocgc'runtime.makeslice'pkg.BenchmarkX
calls=1 0
0 250
fn=(6)
0 250
fn=(7)
0 70
fn=(11)
0 1000
fn=(12)
0 10
fn=(13) runtime.schedule'runtime.morestack'pkg.BenchmarkX
0 4990
fn=(4) runtime.schedule
0 1000
cfn=(5) runtime.(*mcache).refill'runtime.schedule
calls=1 0
0 300
fn=(5)
0 300
`;

const SETTINGS: SubtreeSettings = {
  isRoot: (fn) => fn === 'pkg.BenchmarkX',
  isOutside: (fn) => fn.startsWith('runtime.'),
  isIgnoredCall: (fn) => fn === 'runtime.morestack',
  byContext: true,
  isUncounted: (fn, callers) => fn === 'runtime.(*mcache).refill' || fn === 'runtime.(*mheap).allocSpan' || (fn === 'runtime.memclrNoHeapPointers' && callers[0] === 'runtime.mallocgc'),
};

test('byContext counts the runtime by instruction address under the program\'s calls: once, without the uncounted contexts, the ignored calls or the runtime\'s own work', () => {
  const s = callgrindSubtree(PROFILE, 'p', SETTINGS);
  assert.ok(s !== undefined);
  // The benchmark's own code, in both its contexts (after the lost return too): 100 + 1000.
  assert.equal(s.own.Ir, 1100);
  // Plus make (30), mallocgc (40) and the program's own clear (70); not the span (150 + 250 under it), not the allocator's clearing (20), not the preemption (10 + 4990), not the scheduler's span (300).
  assert.equal(s.totals.Ir, 1100 + 30 + 40 + 70);
  assert.equal(s.uncounted.Ir, 150 + 250 + 20);
  assert.deepEqual(s.functions, ['pkg.BenchmarkX']);
  assert.deepEqual(s.outside, ['runtime.makeslice', 'runtime.memclrNoHeapPointers']);
  assert.match(s.profile, /^totals: 1240$/m);
});

test('without byContext the program\'s calls count inclusive, the lost return\'s code twice', () => {
  const s = callgrindSubtree(PROFILE, 'p', { ...SETTINGS, byContext: undefined });
  assert.equal(s?.totals.Ir, 1100 + 1500 + 70);
  assert.equal(s?.uncounted.Ir, 0);
});
