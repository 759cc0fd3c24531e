import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { FIXTURES } from '../support/fixtures.ts';

// Google Benchmark's own compare.py (Debian libbenchmark-tools, needs scipy;
// scripts/prepare-tests.sh installs both) runs on the same inputs in the same test, and
// `benchbot compare --output compare.py` must print exactly what it prints:
// the header, the column widths, every row (aggregates included), the
// _pvalue rows and OVERALL_GEOMEAN.
const COMPARE_PY = '/usr/share/benchmark/compare.py';
const INPUTS = '/usr/share/benchmark/gbench/Inputs';
const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function comparePy(base: string, head: string): string {
  const run = spawnSync('python3', [COMPARE_PY, '--no-color', 'benchmarks', base, head], { encoding: 'utf8' });
  assert.equal(run.status, 0, `compare.py failed: ${run.stderr}`);
  return run.stdout.trimEnd();
}

function benchbot(base: string, head: string): string {
  const run = spawnSync(process.execPath, [join(ROOT, 'bin/benchbot.js'), 'compare', base, head, '--output', 'compare.py'], { encoding: 'utf8' });
  assert.ok(run.status === 0 || run.status === 1, `benchbot compare failed: ${run.stderr}`);
  return run.stdout.trimEnd();
}

// Every pair compare.py's own tests run in `benchmarks` mode (test1: one row
// each, units, labels, zero times; test3: repetitions, aggregates paired with
// iterations, a name only partly comparable; test4: aggregates only, with an
// unknown aggregate_name and a percentage unit), both ways round, and the
// captured fixtures with repetitions, aggregates, counters and an error.
const GOOGLE = join(FIXTURES, 'google-benchmark');
const PAIRS: [string, string][] = [
  [join(INPUTS, 'test1_run1.json'), join(INPUTS, 'test1_run2.json')],
  [join(INPUTS, 'test3_run0.json'), join(INPUTS, 'test3_run1.json')],
  [join(INPUTS, 'test4_run0.json'), join(INPUTS, 'test4_run1.json')],
  [join(INPUTS, 'test1_run2.json'), join(INPUTS, 'test1_run1.json')],
  [join(INPUTS, 'test3_run1.json'), join(INPUTS, 'test3_run0.json')],
  [join(INPUTS, 'test4_run1.json'), join(INPUTS, 'test4_run0.json')],
  [join(GOOGLE, 'stumpless-like-base.json'), join(GOOGLE, 'stumpless-like-head.json')],
  [join(GOOGLE, 'repetitions.json'), join(GOOGLE, 'stumpless-like-head.json')],
  [join(GOOGLE, 'repetitions.json'), join(GOOGLE, 'aggregates-only.json')],
  [join(GOOGLE, 'aggregates-only.json'), join(GOOGLE, 'aggregates-only.json')],
];

for (const [base, head] of PAIRS) {
  test(`--output compare.py prints what compare.py prints: ${base.split('/').at(-1)} vs ${head.split('/').at(-1)}`, () => {
    assert.ok(existsSync(COMPARE_PY), `${COMPARE_PY} is missing: install Debian's libbenchmark-tools (scripts/prepare-tests.sh does)`);
    const theirs = comparePy(base, head);
    const mine = benchbot(base, head);
    assert.deepEqual(mine.split('\n'), theirs.split('\n'));
    // The test must have compared something: a table, not only the header.
    assert.ok(theirs.split('\n').length > 3);
  });
}

test('the compare.py pairs include U tests, aggregate rows and the repetitions warning', () => {
  const test3 = comparePy(join(INPUTS, 'test3_run0.json'), join(INPUTS, 'test3_run1.json'));
  assert.match(test3, /^BM_Two_pvalue .*U Test, Repetitions: 2 vs 2\. WARNING: Results unreliable! 9\+ repetitions recommended\.$/m);
  assert.match(test3, /^OVERALL_GEOMEAN /m);
  const fixtures = comparePy(join(GOOGLE, 'repetitions.json'), join(GOOGLE, 'stumpless-like-head.json'));
  assert.match(fixtures, /_mean /);
});

test('numbers are formatted as Python formats them: ties to even, -0, large values, nan', async () => {
  const { fixed } = await import('../../src/report/compare-py-report.ts');
  const values = [0.5, 1.5, 2.5, -2.5, 0.03125, 0.00015, 1.00005, -0.3, -0, 123456.5, 1e21, 1.5e22, 2 ** 70 + 0.0, 0.1 + 0.2, 99.99995, 1e-7];
  const python = spawnSync('python3', ['-c', 'import sys\nfor v in sys.argv[1:]:\n  x=float(v); print("{:.0f}|{:.4f}|{:+.4f}".format(x, x, x))', ...values.map((v) => (Object.is(v, -0) ? '-0.0' : v.toPrecision(17)))], { encoding: 'utf8' });
  assert.equal(python.status, 0, python.stderr);
  const ours = values.map((v) => `${fixed(v, 0)}|${fixed(v, 4)}|${fixed(v, 4).startsWith('-') ? fixed(v, 4) : `+${fixed(v, 4)}`}`);
  assert.deepEqual(ours, python.stdout.trimEnd().split('\n'));
  assert.equal(fixed(Number.NaN, 4), 'nan');
});
