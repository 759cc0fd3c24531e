import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { parseGithubActionBenchmark } from '../../src/store/github-action-benchmark.ts';
import { FIXTURES } from '../support/fixtures.ts';

const FILE = 'fixtures/github-action-benchmark/data-handwritten.js';
const text = readFileSync(join(FIXTURES, 'github-action-benchmark/data-handwritten.js'), 'utf8');

interface Entry {
  commit: { id: string };
  date: number;
  tool: string;
  benches: { name: string; value: number; unit: string }[];
}

/** The fixture read as the action itself reads it: cut the prefix, JSON.parse the rest. */
const data = JSON.parse(text.slice('window.BENCHMARK_DATA = '.length)) as { repoUrl: string; entries: Record<string, Entry[]> };

test('every entry of every suite becomes one nightly run with each bench as a one-value measurement', () => {
  const { repo, runs } = parseGithubActionBenchmark(text, FILE, { branch: 'main' });
  assert.equal(repo, 'example-org/fastjson');
  const entries = Object.entries(data.entries).flatMap(([suite, list]) => list.map((e) => ({ suite, e })));
  assert.equal(runs.length, entries.length);
  runs.forEach((run, i) => {
    const { suite, e } = entries[i];
    assert.equal(run.sha, e.commit.id);
    assert.equal(run.role, 'nightly');
    assert.equal(run.repo, 'example-org/fastjson');
    assert.equal(run.branch, 'main');
    assert.equal(run.time, new Date(e.date).toISOString());
    assert.equal(run.harness, `github-action-benchmark/${e.tool}`);
    assert.deepEqual(run.fingerprint, {});
    assert.deepEqual(run.warnings.map((w) => w.kind), ['summary-only']);
    assert.deepEqual(
      run.measurements.map((m) => [m.benchmark, m.unit, m.values]),
      e.benches.map((b) => [`${suite}/${b.name}`, b.unit, [b.value]]),
    );
  });
});

test('metric and direction: times are `time`, lower; rates are higher; the custom tools state their direction', () => {
  const { runs } = parseGithubActionBenchmark(text, FILE);
  const byName = new Map(runs.flatMap((r) => r.measurements).map((m) => [m.benchmark, m]));
  assert.deepEqual(pick(byName.get('Go Benchmark/BenchmarkEncode')), ['time', 'ns/op', 'lower']);
  assert.deepEqual(pick(byName.get('Benchmark.js/parse small document')), ['value', 'ops/sec', 'higher']);
  assert.deepEqual(pick(byName.get('Memory/Peak RSS while parsing large.json')), ['value', 'MB', 'lower']);
  const bigger = text.replace(/"customSmallerIsBetter"/g, '"customBiggerIsBetter"');
  const flipped = parseGithubActionBenchmark(bigger, FILE).runs.flatMap((r) => r.measurements).find((m) => m.benchmark === 'Memory/Binary size');
  assert.equal(flipped?.better, 'higher');
});

function pick(m: { metric: string; unit: string; better: string } | undefined): string[] | undefined {
  return m && [m.metric, m.unit, m.better];
}

test('a single suite keeps plain names; plain JSON (external-data-json-path) and a trailing semicolon are read too', () => {
  const one = { lastUpdate: 1, repoUrl: 'https://github.com/o/r', entries: { Benchmark: data.entries['Go Benchmark'] } };
  const js = `window.BENCHMARK_DATA = ${JSON.stringify(one, null, 2)};\n`;
  const a = parseGithubActionBenchmark(js, 'data.js');
  const b = parseGithubActionBenchmark(JSON.stringify(one), 'data.json', { repo: 'me/fork' });
  assert.equal(a.repo, 'o/r');
  assert.equal(b.repo, 'me/fork');
  assert.deepEqual(a.runs[0].measurements.map((m) => m.benchmark), ['BenchmarkParse/small', 'BenchmarkParse/large', 'BenchmarkEncode']);
  assert.deepEqual(b.runs.map((r) => r.measurements), a.runs.map((r) => r.measurements));
  assert.equal(b.runs[0].repo, 'me/fork');
  assert.deepEqual(parseGithubActionBenchmark('window.BENCHMARK_DATA = {"lastUpdate":0,"repoUrl":"","entries":{}}', 'd.js'), { runs: [] });
});

test('µs is spelled us; the same bench twice in one entry is two samples', () => {
  const one = {
    repoUrl: 'https://github.com/o/r',
    entries: { S: [{ commit: { id: 'abc' }, date: 0, tool: 'catch2', benches: [{ name: 'fib', value: 1.5, unit: 'µs' }, { name: 'fib', value: 1.75, unit: 'µs' }] }] },
  };
  const [run] = parseGithubActionBenchmark(JSON.stringify(one), 'd.json').runs;
  assert.deepEqual(run.measurements, [{ benchmark: 'fib', metric: 'time', unit: 'us', better: 'lower', values: [1.5, 1.75] }]);
  assert.equal(run.time, '1970-01-01T00:00:00.000Z');
});

test('hostile input is a FormatError naming the file and the line or JSON path', () => {
  const cases: [string, string, RegExp][] = [
    ['empty', '', /^d\.js: file is empty$/],
    ['prefix only', 'window.BENCHMARK_DATA = ', /^d\.js: file is empty$/],
    ['truncated', text.slice(0, 2000), /^d\.js:\d+: invalid JSON: the file ends early/],
    ['NaN', 'window.BENCHMARK_DATA = {\n"entries": {"S": [{"value": NaN}]}}', /^d\.js:2: invalid JSON/],
    ['binary', '\u0000\u0001\u0002garbage', /^d\.js:1: input contains NUL bytes/],
    ['not an object', 'window.BENCHMARK_DATA = []', /^d\.js: \$: expected an object, got an array$/],
    ['no entries', '{"repoUrl": "x"}', /^d\.js: entries: expected an object/],
    ['suite not a list', '{"entries": {"S": {}}}', /^d\.js: entries\["S"\]: expected an array, got an object$/],
    ['missing commit', '{"entries": {"S": [{"date": 1, "tool": "go", "benches": []}]}}', /^d\.js: entries\["S"\]\[0\]\.commit: expected an object/],
    ['string value', text.replace('"value": 92417', '"value": "92417"'), /^d\.js: entries\["Go Benchmark"\]\[0\]\.benches\[1\]\.value: expected a finite number, got the string "92417"$/],
    ['null unit', text.replace('"unit": "ops/sec"', '"unit": null'), /^d\.js: entries\["Benchmark\.js"\]\[0\]\.benches\[0\]\.unit: expected a string, got null$/],
    ['bad date', text.replace('"date": 1709543811234', '"date": 1e300'), /^d\.js: entries\["Go Benchmark"\]\[0\]\.date: 1e\+300 is not a time/],
    ['empty sha', text.replace('"id": "3f1c9a0d2b7e4c5a8f6e1d0b9c8a7f6e5d4c3b2a"', '"id": ""'), /^d\.js: entries\["Go Benchmark"\]\[0\]\.commit\.id: expected a commit id$/],
    ['no date, bad timestamp', '{"entries": {"S": [{"commit": {"id": "a", "timestamp": "soon"}, "tool": "go", "benches": []}]}}', /commit\.timestamp: expected an ISO 8601 time/],
  ];
  for (const [name, input, pattern] of cases) {
    assert.throws(() => parseGithubActionBenchmark(input, 'd.js'), (e: unknown) => e instanceof FormatError && pattern.test(e.message), name);
  }
});

test('a syntax error keeps its line number behind the window.BENCHMARK_DATA prefix', () => {
  const broken = text.replace('"tool": "benchmarkjs"', '"tool": benchmarkjs');
  const line = text.slice(0, text.indexOf('"tool": "benchmarkjs"')).split('\n').length;
  assert.throws(() => parseGithubActionBenchmark(broken, 'd.js'), (e: unknown) => e instanceof FormatError && e.line === line);
});
