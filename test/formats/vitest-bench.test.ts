import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { vitestBenchReader } from '../../src/formats/vitest-bench.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

type Bench = Record<string, unknown>;
type Report = { files: { filepath: string; groups: { fullName: string; benchmarks: Bench[] }[] }[] };

function read(text: string) {
  return vitestBenchReader.read({ path: 'bench.json', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^bench\.json/);
    assert.match(error.message, where);
    return true;
  });
}

function edit(change: (report: Report) => void): string {
  const report = JSON.parse(loadFixture('vitest-bench/parse.json').text) as Report;
  change(report);
  return JSON.stringify(report, null, 2);
}

describe('vitestBenchReader', () => {
  it('reads vitest-bench/parse.json as the capture script did', () => {
    assertMatchesExpected(vitestBenchReader.read(loadFixture('vitest-bench/parse.json')), expectedFor('vitest-bench/parse.json'));
  });

  it('sniffs vitest-bench/parse.json and no other JSON format', () => {
    assert.equal(vitestBenchReader.sniff(loadFixture('vitest-bench/parse.json').text.slice(0, 4096)), true);
    for (const other of ['hyperfine/basic.json', 'jmh/jmh-result.json', 'tinybench/tasks.json', 'mitata/summary.json', 'pytest-benchmark/report.json']) {
      assert.equal(vitestBenchReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
  });

  it('names benchmarks by group full name, reads the median in ms, and warns once that there are no samples', () => {
    const { measurements, warnings } = vitestBenchReader.read(loadFixture('vitest-bench/parse.json'));
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.metric, m.unit, m.better, m.values.length]), [
      ['parse.bench.ts > JSON.parse (small object)', 'time', 'ms', 'lower', 1],
      ['parse.bench.ts > sorting > sort 100 numbers', 'time', 'ms', 'lower', 1],
      ['parse.bench.ts > sorting > sort 100 numbers, default compare', 'time', 'ms', 'lower', 1],
      ['parse.bench.ts > strings > nested > join, 200 words', 'time', 'ms', 'lower', 1],
    ]);
    assert.deepEqual(warnings.map((w) => w.kind), ['summary-only']);
  });

  it('reads samples where a report has them (vitest 1), and the mean without a median', () => {
    const text = edit((r) => {
      r.files[0].groups[0].benchmarks[0].samples = [0.5, 0.25, 0.75];
      for (const g of r.files[0].groups.slice(1)) for (const b of g.benchmarks) delete b.median;
    });
    const { measurements, warnings } = read(text);
    assert.deepEqual(measurements[0].values, [0.5, 0.25, 0.75]);
    const report = JSON.parse(text) as Report;
    assert.deepEqual(measurements[1].values, [report.files[0].groups[1].benchmarks[0].mean]);
    assert.equal(warnings.length, 1);
  });

  it('numbers a name that occurs twice (the same file in two projects)', () => {
    const text = edit((r) => r.files.push(structuredClone(r.files[0])));
    const names = read(text).measurements.map((m) => m.benchmark);
    assert.equal(names.length, 8);
    assert.equal(names[4], 'parse.bench.ts > JSON.parse (small object) #2');
  });

  describe('malformed input', () => {
    it('empty file', () => assertFormatError('', /empty/));
    it('files missing', () => assertFormatError('{"testResults": []}', /files: expected an array/));
    it('no benchmarks', () => assertFormatError('{"files": [{"filepath": "a", "groups": []}]}', /files: no benchmark results/));
    it('a group without benchmarks', () => assertFormatError(edit((r) => delete (r.files[0].groups[1] as Record<string, unknown>).benchmarks), /files\[0\]\.groups\[1\]\.benchmarks: expected an array/));
    it('a name of the wrong type', () => assertFormatError(edit((r) => (r.files[0].groups[2].benchmarks[0].name = null)), /files\[0\]\.groups\[2\]\.benchmarks\[0\]\.name: expected a string/));
    it('a negative median', () => assertFormatError(edit((r) => (r.files[0].groups[0].benchmarks[0].median = -1)), /benchmarks\[0\]\.median: negative time/));
    it('a median as a string', () => assertFormatError(edit((r) => (r.files[0].groups[0].benchmarks[0].median = '1')), /benchmarks\[0\]\.median: expected a finite number/));
    it('samples of the wrong type', () => assertFormatError(edit((r) => (r.files[0].groups[0].benchmarks[0].samples = 'many')), /benchmarks\[0\]\.samples: expected an array/));
  });
});
