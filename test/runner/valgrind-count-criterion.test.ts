import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countInstructions, type CountOutcome, type CountSettings } from '../../src/runner/valgrind-count.ts';
import { criterionFilter } from '../../src/runner/criterion-count.ts';
import { LocalExecutor } from '../../src/runner/local-executor.ts';
import { parseCallgrindTotals } from '../../src/formats/callgrind-totals.ts';
import { buildCriterionProject, criterionBench, criterionMissing, CRITERION_NAMES, writeCriterionProject } from '../support/criterion-project.ts';

// Instruction counting of a real criterion crate with the real tools:
// cargo, criterion 0.7 and valgrind. The crate is built twice, as is and
// with 1% more work in `hash`; each benchmark is counted in criterion's
// --test mode (one iteration) with the count toggled on Bencher::iter.
// The bench command is the README's recipe, with criterion options and a
// filter of its own, which the cargo runner leaves out.

const work = mkdtempSync(join(tmpdir(), 'benchbot-count-criterion-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

const missing = criterionMissing();

async function count(dir: string, tag: string, extra: Partial<CountSettings> = {}): Promise<CountOutcome> {
  const settings: CountSettings = {
    bench: criterionBench(), format: 'criterion', names: CRITERION_NAMES, repeats: 2, parallel: 2, timeoutMs: 100_000,
    keepDir: join(work, `keep-${tag}`), env: {}, ...extra,
  };
  return countInstructions(settings, new LocalExecutor(), dir, tag);
}

const values = (o: CountOutcome, benchmark: string, metric = 'instructions') => o.measurements.find((m) => m.benchmark === benchmark && m.metric === metric)?.values;

test('criterion: counts repeat exactly, and 1% more work in one function moves only its benchmark', { skip: missing ?? false, timeout: 120_000 }, async (t) => {
  const base = join(work, 'base');
  const head = join(work, 'head');
  writeCriterionProject(base);
  writeCriterionProject(head, { extraPass: true });
  let started = Date.now();
  buildCriterionProject(base);
  buildCriterionProject(head);
  t.diagnostic(`built both sides in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  started = Date.now();
  const before = await count(base, 'base');
  const after = await count(head, 'head');
  t.diagnostic(`counted ${CRITERION_NAMES.length} benchmarks x 2 repeats x 2 builds in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.deepEqual(before.reasons, []);
  assert.deepEqual(after.reasons, []);
  for (const outcome of [before, after]) {
    for (const benchmark of CRITERION_NAMES) {
      const [a, b] = values(outcome, benchmark) ?? [];
      assert.ok(a > 0, `${benchmark} was counted: ${a}`);
      assert.equal(a, b, `${benchmark} repeats exactly`);
      const cycles = values(outcome, benchmark, 'estimated_cycles') ?? [];
      assert.equal(cycles[0], cycles[1], `${benchmark}: estimated cycles repeat exactly`);
    }
  }
  const ratio = (benchmark: string) => values(after, benchmark)![0] / values(before, benchmark)![0];
  t.diagnostic(`hash x${ratio('hash').toFixed(5)}, sort/256 x${ratio('sort/256').toFixed(5)}, sort/1024 x${ratio('sort/1024').toFixed(5)}`);
  // The work threshold is 0.5%: the extra 1% of hash's words is beyond it, and the untouched benchmarks are far within it.
  assert.ok(ratio('hash') > 1.007 && ratio('hash') < 1.02, `hash does 1% more work: x${ratio('hash')}`);
  for (const benchmark of ['sort/256', 'sort/1024']) assert.ok(Math.abs(ratio(benchmark) - 1) < 0.001, `${benchmark} did not change: x${ratio(benchmark)}`);
  // One iteration per count; every kept profile is a callgrind file whose totals are the value recorded.
  assert.equal(before.profiles.length, CRITERION_NAMES.length * 2);
  for (const p of before.profiles) {
    assert.equal(p.iterations, 1);
    assert.ok(existsSync(p.file), p.file);
    const text = readFileSync(p.file, 'utf8');
    assert.equal(parseCallgrindTotals(text, p.file).Ir, values(before, p.benchmark)?.[p.repeat - 1]);
    if (p.benchmark === 'hash') assert.match(text, /benchbot_criterion_capture::hash/, 'the profile names the work function');
  }

  // A script that runs the bench binary itself and passes its arguments on counts the same.
  const direct = await count(base, 'direct', { bench: './bench-binary.sh', names: ['hash'], repeats: 1 });
  assert.deepEqual(direct.reasons, []);
  assert.equal(values(direct, 'hash')?.[0], values(before, 'hash')?.[0], 'the binary run directly counts what cargo bench counts');
});

test('criterion: a benchmark no filter selects gets a reason, the others are counted', { skip: missing ?? false, timeout: 120_000 }, async () => {
  const dir = join(work, 'unknown');
  writeCriterionProject(dir);
  buildCriterionProject(dir);
  const outcome = await count(dir, 'unknown', { names: ['hash', 'nosuch/bench'], repeats: 1 });
  assert.ok(values(outcome, 'hash')?.[0]! > 0);
  assert.equal(values(outcome, 'nosuch/bench'), undefined);
  const reason = outcome.reasons.find((r) => r.benchmark === 'nosuch/bench');
  assert.match(reason?.message ?? '', /criterion ran no benchmark under valgrind matching/);
});

test('criterionFilter selects the benchmark criterion stored under a file-safe name', () => {
  const matches = (name: string, id: string) => new RegExp(criterionFilter(name)).test(id);
  assert.ok(matches('checksum/fold/256', 'checksum/fold/256'));
  assert.ok(!matches('checksum/fold/256', 'checksum/fold/2560'));
  assert.ok(matches('fib 15', 'fib 15'));
  // criterion wrote `a:b` and `x/y` (one function id with a slash) as `a_b` and `x_y`.
  assert.ok(matches('group/a_b', 'group/a:b'));
  assert.ok(matches('group/x_y', 'group/x/y'));
  assert.ok(matches('group/x_y', 'group/x_y'));
  // Regular-expression characters in a name are literal.
  assert.ok(matches('parse (1+2)*3', 'parse (1+2)*3'));
  assert.ok(!matches('a.b', 'axb'));
  // The console cuts titles at 100 characters with `...`.
  assert.ok(matches(`${'x'.repeat(100)}...`, `${'x'.repeat(120)}`));
});
