import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/benchbot.js');

function benchbot(...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8' });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

// One fixture per format, detected by content alone.
const DETECTED: [string, string][] = [
  ['fixtures/google-benchmark/repetitions.json', 'google-benchmark'],
  ['fixtures/hyperfine/basic.json', 'hyperfine'],
  ['fixtures/criterion/target/criterion', 'criterion'],
  ['fixtures/criterion/cargo-bench-console.txt', 'cargo-bench'],
  ['fixtures/criterion/cargo-bench-libtest.txt', 'cargo-bench'],
  ['fixtures/go/single-package.txt', 'go'],
  ['fixtures/pytest-benchmark/report.json', 'pytest-benchmark'],
  ['fixtures/dart/flutter-runtime-handwritten.txt', 'dart'],
  ['fixtures/dart/events-handwritten.txt', 'dart'],
  ['fixtures/plain/flutter-before-handwritten.txt', 'plain'],
  ['fixtures/jmh/jmh-result.json', 'jmh'],
  ['fixtures/catch2/console.txt', 'catch2'],
  ['fixtures/catch2/report.xml', 'catch2'],
  ['fixtures/benchmark-dotnet/handwritten-report-full.json', 'benchmarkdotnet'],
  ['fixtures/benchbot/handwritten.json', 'benchbot'],
];

for (const [path, format] of DETECTED) {
  test(`parse detects ${format} in ${path} and prints measurements`, () => {
    const run = benchbot('parse', path);
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout);
    assert.equal(out.format, format);
    assert.ok(out.measurements.length > 0);
    for (const m of out.measurements) assert.deepEqual(Object.keys(m), ['benchmark', 'metric', 'unit', 'better', 'values']);
  });
}

test('parse: bad input exits 2 with a message naming the file and line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-cli-'));
  const truncated = join(dir, 'truncated.json');
  writeFileSync(truncated, '{"context": {}, "benchmarks": [\n{"name": "BM_A", "run_type": "iteration", "real_time": 1,\n');
  const run = benchbot('parse', truncated, '--format', 'google-benchmark');
  assert.equal(run.status, 2);
  assert.match(run.stderr, /truncated\.json:3: invalid JSON/);
  assert.equal(run.stdout, '');

  const garbage = join(dir, 'garbage.bin');
  writeFileSync(garbage, Buffer.from([0, 1, 2, 3, 255, 254]));
  const binary = benchbot('parse', garbage);
  assert.equal(binary.status, 2);
  assert.match(binary.stderr, /garbage\.bin:1: .*binary/);

  const prose = join(dir, 'notes.txt');
  writeFileSync(prose, 'nothing to see here\n');
  const unknown = benchbot('parse', prose);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /no known benchmark format recognized; pass --format with one of: .*google-benchmark/);
});

test('usage errors name the flag to change and exit 2', () => {
  assert.match(benchbot('parse', 'x.json', '--format', 'nope').stderr, /unknown format "nope"; use --format with one of/);
  assert.match(benchbot('parse', 'missing.json').stderr, /missing\.json: no such file or directory/);
  assert.match(benchbot('compare', 'a.json').stderr, /exactly two inputs/);
  assert.match(benchbot('compare', 'a', 'b', '--threshold', 'lots').stderr, /--threshold lots is not a percentage/);
  assert.match(benchbot('compare', 'a', 'b', '--output', 'pdf').stderr, /--output pdf: use one of markdown, text, json, compare.py/);
  assert.match(benchbot('compare', 'a', 'b', '--bogus').stderr, /unknown option --bogus/);
  assert.equal(benchbot('frobnicate').status, 2);
  assert.equal(benchbot('compare', '--help').status, 0);
});

test('compare exits 1 on a regression, 0 without, and renders every output', () => {
  const base = 'fixtures/google-benchmark/stumpless-like-base.json';
  const head = 'fixtures/google-benchmark/stumpless-like-head.json';
  const forward = benchbot('compare', base, head, '--output', 'json');
  const json = JSON.parse(forward.stdout);
  assert.equal(forward.status, json.summary.regressed > 0 ? 1 : 0);
  assert.ok(json.summary.improved > 0);
  // Swapping sides turns the improvements into regressions.
  const backward = benchbot('compare', head, base, '--output', 'json');
  assert.equal(backward.status, 1);
  assert.ok(JSON.parse(backward.stdout).summary.regressed >= json.summary.improved - 1);
  for (const output of ['markdown', 'text', 'compare.py']) {
    const run = benchbot('compare', base, head, '--output', output, '--filter', 'StringBuild');
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    assert.match(run.stdout, /BM_StringBuild/);
    assert.doesNotMatch(run.stdout, /BM_Sort/);
  }
});

test('compare pools several files per side', () => {
  const a = 'fixtures/google-benchmark/repetitions.json';
  const run = benchbot('compare', `${a},${a}`, a, '--output', 'json', '--filter', '^BM_Sort/1024$');
  const json = JSON.parse(run.stdout);
  const c = json.comparisons.find((x: { metric: string }) => x.metric === 'real_time');
  assert.equal(c.base.n, 2 * c.head.n);
});

test('compare takes --test as run does, and --run-report replays with the test the run used', () => {
  const base = 'fixtures/comparisons/go-benchmem-base.txt';
  const head = 'fixtures/comparisons/go-benchmem-head.txt';
  const testOf = (...args: string[]) => {
    const run = benchbot('compare', base, head, '--output', 'json', ...args);
    assert.notEqual(run.status, 2, run.stderr);
    return JSON.parse(run.stdout).test;
  };
  assert.equal(testOf(), 'mann-whitney');
  assert.equal(testOf('--test', 'yuen'), 'yuen');
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-cli-'));
  const report = join(dir, 'report.json');
  // The fields of a run's JSON report that a replay takes (run --output json writes them).
  writeFileSync(report, JSON.stringify({ looks: [{ roundsPerSide: 10 }], max_rounds_per_side: 10, alpha: 0.05, threshold: 0.02, test: 'yuen' }));
  assert.equal(testOf('--run-report', report), 'yuen');
  assert.equal(testOf('--run-report', report, '--test', 'mann-whitney'), 'mann-whitney', 'a flag given here wins over the run\'s');
});
