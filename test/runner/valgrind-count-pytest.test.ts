import { test } from 'node:test';
import { execFileSync } from 'node:child_process';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countInstructions, type CountOutcome, type CountSettings } from '../../src/runner/valgrind-count.ts';
import { LocalExecutor } from '../../src/runner/local-executor.ts';
import { parseCallgrindTotals } from '../../src/formats/callgrind-totals.ts';
import { defaultWorkThreshold } from '../../src/compare/compare-runs.ts';
import { commitProject, PYTEST_NAMES, pytestMissing, writePytestProject } from '../support/pytest-project.ts';

// pytest-benchmark counted with the real tools: a real pytest project run
// by its own bench script under valgrind, benchbot's plugin loaded through
// -p in PYTEST_ADDOPTS (nothing in the project changes). Two repeats per
// side; the head has one more step in checksum's 100-step loop. CPython
// under callgrind repeats to the instruction in one memory layout, and the
// second repeat runs in another (valgrind-count.ts layoutPad): where its
// objects land decides how id()-keyed dicts probe (json's
// circular-reference check), how pymalloc's pools are walked. The two
// layouts of these benchmarks lie within 0.5% of each other here.

const REPEAT_LIMIT = 0.005;

const work = mkdtempSync(join(tmpdir(), 'benchbot-count-pytest-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

async function count(dir: string, tag: string, extra: Partial<CountSettings> = {}): Promise<CountOutcome> {
  const settings: CountSettings = { bench: './bench.sh', format: 'pytest-benchmark', names: PYTEST_NAMES, repeats: 2, parallel: 2, timeoutMs: 60_000, keepDir: join(work, `keep-${tag}`), ...extra };
  return countInstructions(settings, new LocalExecutor(), dir, tag);
}

const values = (o: CountOutcome, benchmark: string, metric = 'instructions') => o.measurements.find((m) => m.benchmark === benchmark && m.metric === metric)?.values;
const mean = (xs: readonly number[] | undefined) => (xs ?? []).reduce((s, x) => s + x, 0) / (xs?.length ?? 1);

test('pytest-benchmark: counts repeat (within the 0.5% work threshold), and one more step in a 100-step loop shows in its benchmark only', { timeout: 120_000 }, async (t) => {
  const missing = pytestMissing();
  if (missing) {
    t.skip(`${missing}: pytest-benchmark counting cannot be tested here`);
    return;
  }
  const base = join(work, 'base');
  const head = join(work, 'head');
  writePytestProject(base);
  writePytestProject(head, { extra: true });
  commitProject(base);
  commitProject(head);
  const started = Date.now();
  const [before, after] = await Promise.all([count(base, 'base'), count(head, 'head', { parallel: 1 })]);
  t.diagnostic(`counted ${PYTEST_NAMES.length} benchmarks x 2 repeats x 2 sides in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.deepEqual(before.reasons, []);
  assert.deepEqual(after.reasons, []);
  for (const outcome of [before, after]) {
    for (const benchmark of PYTEST_NAMES) {
      const [a, b] = values(outcome, benchmark) ?? [];
      assert.ok(a > 0, `${benchmark} was counted: ${a}`);
      // The base counted its benchmarks in two pytest processes, the head in one: the counts do not depend on it either.
      assert.ok(Math.abs(a / b - 1) <= REPEAT_LIMIT, `${benchmark} repeats: ${a} vs ${b}`);
      const cycles = values(outcome, benchmark, 'estimated_cycles') ?? [];
      assert.ok(cycles[0] >= a, `estimated cycles (${cycles[0]}) are at least the instructions (${a})`);
    }
  }
  const checksum = mean(values(after, 'test_bench.py::test_checksum')) / mean(values(before, 'test_bench.py::test_checksum'));
  t.diagnostic(`test_checksum: x${checksum.toFixed(4)}`);
  assert.ok(checksum > 1.005 && checksum < 1.02, `one more step of 100 raised test_checksum's count by about 1%: x${checksum.toFixed(4)}`);
  for (const benchmark of PYTEST_NAMES.filter((n) => !n.endsWith('test_checksum'))) {
    const ratio = mean(values(after, benchmark)) / mean(values(before, benchmark));
    assert.ok(Math.abs(ratio - 1) <= REPEAT_LIMIT, `${benchmark} did not change: x${ratio.toFixed(5)}`);
  }
  // Every kept profile is a callgrind file whose totals, divided by its iterations, are the value recorded.
  assert.equal(before.profiles.length, PYTEST_NAMES.length * 2);
  for (const p of before.profiles) {
    assert.ok(existsSync(p.file), p.file);
    assert.equal(p.iterations, 10);
    const totals = parseCallgrindTotals(readFileSync(p.file, 'utf8'), p.file);
    assert.equal(totals.Ir / p.iterations, values(before, p.benchmark)?.[p.repeat - 1]);
  }
});

test('pytest-benchmark: a name pytest does not have, and a bench command that runs no pytest, get reasons', { timeout: 120_000 }, async (t) => {
  const missing = pytestMissing();
  if (missing) {
    t.skip(`${missing}: pytest-benchmark counting cannot be tested here`);
    return;
  }
  const dir = join(work, 'reasons');
  writePytestProject(dir);
  const gone = await count(dir, 'gone', { names: ['test_bench.py::test_checksum', 'test_bench.py::test_removed'], repeats: 1, parallel: 1 });
  assert.equal(values(gone, 'test_bench.py::test_checksum')?.length, 1);
  assert.deepEqual(gone.reasons.map((r) => r.benchmark), ['test_bench.py::test_removed']);
  assert.match(gone.reasons[0].message, /pytest ran no benchmark of this name/);
  const none = await count(dir, 'none', { bench: 'true', repeats: 1 });
  assert.equal(none.measurements.length, 0);
  assert.equal(none.reasons.length, 2, 'one line per batch, not per benchmark');
  assert.match(none.reasons[0].message, /did not load benchbot's plugin .*must run pytest/);
});

// A benchmark whose work depends on where its objects are: a set of plain
// objects (hashed by id(), so the probes depend on their addresses), a dict
// keyed by them, and lists of more than 512 bytes (glibc's malloc, not
// pymalloc). Its counts are not exact: where its objects land depends on
// what pytest's start allocated, which differs with timing
// (docs/instructions.md). Measured in 3 processes: 830,005, 830,109,
// 830,109 instructions per call; under `setarch -R` with a stand-in hg
// 830,001, 831,234, 831,234, and with the bytecode caches written first
// 830,139, 830,139, 830,255. So the test holds them to the work threshold
// and reports the spread.
const OBJECTS_TESTS = `class Point:
    def __init__(self, i):
        self.i = i


def work(points):
    seen = set(points)
    index = {p: p.i for p in points}
    chunks = [list(range(p.i % 7 + 100)) for p in points[:50]]
    return sum(index[p] for p in seen if p in index) + len(chunks)


def test_objects(benchmark):
    points = [Point(i) for i in range(300)]
    assert benchmark(work, points) > 0
`;

test('pytest-benchmark: a benchmark over a set of plain objects repeats exactly in one layout, and within the work threshold in 5', { timeout: 180_000 }, async (t) => {
  const missing = pytestMissing();
  if (missing) {
    t.skip(`${missing}: pytest-benchmark counting cannot be tested here`);
    return;
  }
  const dir = join(work, 'objects');
  writePytestProject(dir);
  writeFileSync(join(dir, 'test_objects.py'), OBJECTS_TESTS);
  writeFileSync(join(dir, 'bench.sh'), readFileSync(join(dir, 'bench.sh'), 'utf8').replace('test_bench.py', 'test_objects.py'));
  commitProject(dir);
  // As in `run`, the wall-time rounds come first: Python's bytecode caches (pytest's rewritten test modules among them) are written then, not in the first count.
  execFileSync(join(dir, 'bench.sh'), { cwd: dir });
  const name = 'test_objects.py::test_objects';
  // One layout: three processes, each counted as a first repeat (no pad), read the same to the instruction.
  const counts: number[] = [];
  for (let i = 0; i < 3; i++) {
    const outcome = await count(dir, `objects-${i}`, { names: [name], repeats: 1, parallel: 1 });
    assert.deepEqual(outcome.reasons.filter((r) => !/ADDR_NO_RANDOMIZE/.test(r.message)), []);
    counts.push(...(values(outcome, name) ?? []));
  }
  t.diagnostic(`test_objects in one layout: ${counts.join(', ')} instructions per call`);
  assert.equal(counts.length, 3);
  assert.equal(new Set(counts).size, 1, `one layout, one count: ${counts.join(', ')}`);
  // The default: 5 layouts, whose counts differ (what the set-aside and the 1% threshold of pytest-benchmark are for).
  const sampled = await count(dir, 'objects-layouts', { names: [name], repeats: undefined, parallel: 1 });
  const layouts = values(sampled, name) ?? [];
  const spread = Math.max(...layouts) / Math.min(...layouts) - 1;
  t.diagnostic(`test_objects in 5 layouts: ${layouts.join(', ')}; spread ${(spread * 100).toFixed(3)}%`);
  assert.equal(layouts.length, 5, 'pytest-benchmark is counted 5 times per side by default');
  assert.equal(layouts[0], counts[0], 'the first layout is the environment as given');
  assert.ok(spread > 0, 'the padded environments moved the layout, and with it the count');
  // 0.60-0.76% measured here: inside pytest-benchmark's 1% work threshold, not inside the compiled harnesses' 0.5%.
  const threshold = defaultWorkThreshold('pytest-benchmark');
  assert.ok(spread <= threshold, `the 5 layouts lie within ${threshold * 100}%: ${layouts.join(', ')}`);
});

test('a JIT runtime\'s harness gets a reason line that says why its counts cannot repeat', async () => {
  const outcome = await count(work, 'jit', { format: 'benchmark-js', names: ['sort'] });
  assert.equal(outcome.measurements.length, 0);
  assert.match(outcome.reasons[0].message, /^--instructions: benchmark-js runs on V8 \(Node\.js\), whose JIT compiles hot code on background threads .* so the work counted would differ from run to run; instructions are counted for [^;]*pytest-benchmark[^;]*; wall time as before$/);
});
