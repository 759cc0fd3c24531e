import { test } from 'node:test';
import assert from 'node:assert/strict';
import { dartReader } from '../../src/formats/dart.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = [
  'dart/flutter-runtime-handwritten.txt',
  'dart/without-exercise-handwritten.txt',
  'dart/repeated-handwritten.txt',
  'dart/events-handwritten.txt',
  'dart/report-handwritten.txt',
  'dart/report-error-bars-handwritten.txt',
];

for (const fixture of FIXTURES) {
  test(`dart reads ${fixture} as the capture script did`, () => {
    const file = loadFixture(fixture);
    assert.ok(dartReader.sniff(file.text.slice(0, 4096)), 'sniff');
    assertMatchesExpected(dartReader.read(file), expectedFor(fixture));
  });
}

test('dart events and the report of the same run agree', () => {
  const events = dartReader.read(loadFixture('dart/events-handwritten.txt')).measurements;
  const report = dartReader.read(loadFixture('dart/report-handwritten.txt')).measurements;
  assert.deepEqual(events, report);
});

test('dart sniff rejects other formats', () => {
  for (const head of [
    'BasicMessageChannel/BinaryCodec/Flutter->Host/Large: 52.8 µs\nx: 1 ms\n',
    '{"benchmarks": []}',
    'BenchmarkParse-8   1000   1234 ns/op\n',
  ]) {
    assert.equal(dartReader.sniff(head), false, head);
  }
});

function assertFormatError(text: string, pattern: RegExp): void {
  assert.throws(
    () => dartReader.read({ path: 'bad/dart.log', text }),
    (error: unknown) => error instanceof FormatError && error.message.startsWith('bad/dart.log') && pattern.test(error.message),
  );
}

test('dart refuses malformed input with file and line', () => {
  const events = loadFixture('dart/events-handwritten.txt').text;
  assertFormatError('', /file is empty/);
  assertFormatError('ab\u0000cd', /:1: .*NUL/);
  assertFormatError('Launching lib/main.dart...\nApplication finished.\n', /no benchmark_harness results/);
  assertFormatError(events.replace('"iterations":2147483648}}]', '"iterations":2147'), /:13: benchmark_harness event is cut off/);
  assertFormatError(events.replace('"iterations":2147483648}}]', '"iterations":2147}]'), /:13: benchmark_harness event is not valid JSON/);
  assertFormatError(events.replace('"elapsed":6491', '"elapsed":"6491"'), /:13: .*params\.elapsed/);
  assertFormatError(events.replace('"iterations":2147483648', '"iterations":0'), /:13: .*params\.iterations/);
  assertFormatError(events.replace('"name":"allocateFixedArray"', '"name":7'), /:13: .*params\.name/);
  assertFormatError(events.replace('"params":{"name":"allocateFixedArray","elapsed":6491,', '"params":{"name":"allocateFixedArray",'), /:13: .*neither params\.elapsed/);
  assertFormatError('growable[32](RunTime): 1e999 us.\n', /:1: RunTime of "growable\[32\]" is not a finite number/);
});
