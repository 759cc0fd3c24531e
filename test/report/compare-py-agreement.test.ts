import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { googleBenchmarkReader } from '../../src/formats/google-benchmark.ts';
import { renderComparePy } from '../../src/report/compare-py-report.ts';
import { FIXTURES, loadFixture } from '../support/fixtures.ts';

// Google Benchmark's own compare.py (Debian libbenchmark-tools, needs scipy;
// .ci/run installs both) is run on the same inputs in the same test, and every
// row benchbot prints must be the row compare.py prints.
const COMPARE_PY = '/usr/share/benchmark/compare.py';
const INPUTS = '/usr/share/benchmark/gbench/Inputs';

function comparePy(base: string, head: string): string[] {
  const run = spawnSync('python3', [COMPARE_PY, '--no-color', 'benchmarks', base, head], { encoding: 'utf8' });
  assert.equal(run.status, 0, `compare.py failed: ${run.stderr}`);
  // The first line names the files; the rest is the table.
  return run.stdout.trimEnd().split('\n').slice(1);
}

function read(path: string) {
  return googleBenchmarkReader.read({ path, text: loadText(path) });
}

function ours(base: string, head: string): string[] {
  return renderComparePy(read(base).measurements, read(head).measurements).split('\n');
}

function loadText(path: string): string {
  return path.startsWith(FIXTURES) ? loadFixture(path.slice(FIXTURES.length)).text : spawnSync('cat', [path], { encoding: 'utf8' }).stdout;
}

const AGGREGATE_ROW = /^\S+_(mean|median|stddev|cv)\s/;

// test3_run*.json is left out on purpose: it marks plain rows as aggregates
// (run_type "aggregate" without aggregate_name) to test compare.py's
// aggregate display; benchbot never takes aggregate rows as samples.
const PAIRS: [string, string][] = [
  [join(INPUTS, 'test1_run1.json'), join(INPUTS, 'test1_run2.json')],
  [join(FIXTURES, 'google-benchmark/stumpless-like-base.json'), join(FIXTURES, 'google-benchmark/stumpless-like-head.json')],
  [join(FIXTURES, 'google-benchmark/repetitions.json'), join(FIXTURES, 'google-benchmark/stumpless-like-head.json')],
];

for (const [base, head] of PAIRS) {
  test(`--output compare.py prints compare.py's rows and p-values: ${base.split('/').at(-1)} vs ${head.split('/').at(-1)}`, () => {
    assert.ok(existsSync(COMPARE_PY), `${COMPARE_PY} is missing: install Debian's libbenchmark-tools (.ci/run does)`);
    // Known, intended divergence: compare.py compares an errored benchmark's
    // zero times (and its geomean then collapses to 0 and is not printed);
    // benchbot reports the error instead of a change.
    const errored = new Set([base, head].flatMap((p) => read(p).warnings.filter((w) => w.kind === 'error').map((w) => w.benchmark)));
    const name = (line: string) => line.split(/\s/)[0].replace(/_pvalue$/, '');
    const ruler = (line: string) => /^-+$/.test(line);
    const theirs = comparePy(base, head).filter((line) => !AGGREGATE_ROW.test(line) && !errored.has(name(line)) && !ruler(line));
    let mine = ours(base, head).filter((line) => !ruler(line));
    if (errored.size > 0 && !theirs.some((line) => line.startsWith('OVERALL_GEOMEAN'))) mine = mine.filter((line) => !line.startsWith('OVERALL_GEOMEAN'));
    // compare.py sizes its first column by every name it prints, aggregates included; compare cells, not padding.
    const cells = (line: string) => line.trim().split(/\s{2,}/);
    assert.deepEqual(mine.map(cells), theirs.map(cells));
    assert.ok(mine.some((line) => line.includes('_pvalue')) || !theirs.some((line) => line.includes('_pvalue')));
  });
}
