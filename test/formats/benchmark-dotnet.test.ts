import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchmarkDotNetReader } from '../../src/formats/benchmark-dotnet.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['benchmark-dotnet/handwritten-report-full.json', 'benchmark-dotnet/handwritten-report-brief.json'];

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
