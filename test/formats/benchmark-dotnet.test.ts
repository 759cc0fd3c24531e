import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchmarkDotNetReader } from '../../src/formats/benchmark-dotnet.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['benchmark-dotnet/handwritten-report-full.json', 'benchmark-dotnet/handwritten-report-brief.json', 'benchmark-dotnet/public-bdn-docs-report-brief.json'];

for (const fixture of FIXTURES) {
  test(`benchmarkdotnet reads ${fixture} as the capture script did`, () => {
    const file = loadFixture(fixture);
    assert.ok(benchmarkDotNetReader.sniff(file.text.slice(0, 4096)), 'sniff');
    assertMatchesExpected(benchmarkDotNetReader.read(file), expectedFor(fixture));
  });
}

test('benchmarkdotnet skips a benchmark without results with an error warning', () => {
  const result = benchmarkDotNetReader.read(loadFixture('benchmark-dotnet/handwritten-report-full.json'));
  assert.deepEqual(result.warnings.map((w) => [w.kind, w.benchmark]), [['error', 'Benchmarks.Md5VsSha256.Crc32(N: 1000)']]);
});

test('benchmarkdotnet reads statistics without samples (brief exporter) as one median per benchmark, with a summary-only warning', () => {
  const result = benchmarkDotNetReader.read(loadFixture('benchmark-dotnet/public-bdn-docs-report-brief.json'));
  assert.deepEqual(result.measurements.map((m) => [m.benchmark, m.values]), [
    ['IntroJsonExport.Sleep10', [10360382.6953125]],
    ['IntroJsonExport.Sleep20', [20362636.192500003]],
  ]);
  assert.deepEqual(result.warnings.map((w) => [w.kind, w.benchmark]), [
    ['summary-only', 'IntroJsonExport.Sleep10'],
    ['summary-only', 'IntroJsonExport.Sleep20'],
  ]);
  assert.match(result.warnings[0].message, /no Measurements, no Statistics\.OriginalValues.*median.*JsonExporter\.Full/);
  assert.equal(result.hints.cpu, 'Intel(R) Core(TM) i7-4702MQ CPU 2.20GHz');
  // Measurements without a Workload Result entry fall back the same way, and name what was missing.
  const full = JSON.parse(loadFixture('benchmark-dotnet/handwritten-report-full.json').text);
  full.Benchmarks[0].Measurements = full.Benchmarks[0].Measurements.filter((m: { IterationStage: string }) => m.IterationStage !== 'Result');
  delete full.Benchmarks[0].Statistics.OriginalValues;
  const edited = benchmarkDotNetReader.read({ path: 'r.json', text: JSON.stringify(full) });
  const first = edited.warnings.find((w) => w.kind === 'summary-only');
  assert.match(first?.message ?? '', /no Workload Result entry in Measurements/);
  assert.deepEqual(edited.measurements[0].values, [full.Benchmarks[0].Statistics.Median]);
});

test('benchmarkdotnet sniff rejects other formats', () => {
  for (const head of [
    '{"context": {"date": "x"}, "benchmarks": [{"name": "BM_X"}]}',
    '{"version": 1, "benchmarks": [{"benchmark": "a", "unit": "ns", "values": [1]}]}',
    '[{"jmhVersion": "1.37", "benchmark": "a.b"}]',
    'a: 1 ms\nb: 2 ms\n',
  ]) {
    assert.equal(benchmarkDotNetReader.sniff(head), false, head);
  }
});

function assertFormatError(text: string, pattern: RegExp): void {
  assert.throws(
    () => benchmarkDotNetReader.read({ path: 'bad/report-full.json', text }),
    (error: unknown) => error instanceof FormatError && error.message.startsWith('bad/report-full.json') && pattern.test(error.message),
  );
}

test('benchmarkdotnet refuses malformed input naming the file and the line or JSON path', () => {
  const text = loadFixture('benchmark-dotnet/handwritten-report-full.json').text;
  const doc = JSON.parse(text);
  const edit = (change: (d: any) => void) => {
    const copy = structuredClone(doc);
    change(copy);
    return JSON.stringify(copy, null, 2);
  };
  assertFormatError('', /file is empty/);
  assertFormatError(text.slice(0, text.length / 2), /:\d+: invalid JSON/);
  assertFormatError('\u0000{}', /NUL/);
  assertFormatError('{"Benchmarks": []}', /Benchmarks: no benchmarks/);
  assertFormatError('{"Benchmarks": {}}', /Benchmarks: expected an array/);
  const result = doc.Benchmarks[0].Measurements.findIndex((m: { IterationStage: string }) => m.IterationStage === 'Result');
  assertFormatError(edit((d) => (d.Benchmarks[0].Measurements[result].Nanoseconds = 'fast')), new RegExp(`Benchmarks\\[0\\]\\.Measurements\\[${result}\\]\\.Nanoseconds: expected a finite number`));
  assertFormatError(text.replace(/"Nanoseconds": \d+/, '"Nanoseconds": NaN'), /invalid JSON/);
  assertFormatError(edit((d) => (d.Benchmarks[0].Measurements[result].Operations = 0)), /Operations: expected a positive count/);
  assertFormatError(edit((d) => (d.Benchmarks[0].Memory.BytesAllocatedPerOperation = '112')), /Benchmarks\[0\]\.Memory\.BytesAllocatedPerOperation/);
  assertFormatError(edit((d) => (d.Benchmarks[2] = { Statistics: null })), /Benchmarks\[2\]: has neither FullName nor Type and Method/);
  assertFormatError(edit((d) => (d.HostEnvironmentInfo.LogicalCoreCount = 'many')), /HostEnvironmentInfo\.LogicalCoreCount/);
});
