import { test } from 'node:test';
import assert from 'node:assert/strict';
import { plainLinesReader } from '../../src/formats/plain-lines.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['plain/flutter-before-handwritten.txt', 'plain/flutter-after-handwritten.txt', 'plain/rounds-handwritten.txt'];

for (const fixture of FIXTURES) {
  test(`plain reads ${fixture} as the capture script did`, () => {
    const file = loadFixture(fixture);
    assert.ok(plainLinesReader.sniff(file.text.slice(0, 4096)), 'sniff');
    assertMatchesExpected(plainLinesReader.read(file), expectedFor(fixture));
  });
}

test('plain before and after name the same benchmarks', () => {
  const names = (f: string) => plainLinesReader.read(loadFixture(f)).measurements.map((m) => `${m.benchmark} ${m.unit}`);
  assert.deepEqual(names('plain/flutter-before-handwritten.txt'), names('plain/flutter-after-handwritten.txt'));
});

test('plain sniff is conservative', () => {
  for (const head of [
    'Compiling...\nDone: 4.2 s\n',
    'Step 1\nStep 2\nStep 3\nStep 4\nStep 5\nwarmup: 1 s\ntotal: 9 s\n',
    '{"a": "x: 1 ms", "b": "y: 2 ms"}',
    '[\n"x: 1 ms",\n"y: 2 ms"\n]',
    'growable[32](RunTime): 1.86 us.\nfixed-length[32](RunTime): 0.31 us.\n',
    'allocateFixedArray: 0.000003 ms/iteration (fastest)\nallocateGrowableArray: 0.0002 ms/iteration\n',
    'BenchmarkX-8   100   12 ns/op\nBenchmarkY-8   100   13 ns/op\n',
  ]) {
    assert.equal(plainLinesReader.sniff(head), false, head);
  }
});

function assertFormatError(text: string, pattern: RegExp): void {
  assert.throws(
    () => plainLinesReader.read({ path: 'bad/plain.txt', text }),
    (error: unknown) => error instanceof FormatError && error.message.startsWith('bad/plain.txt') && pattern.test(error.message),
  );
}

test('plain refuses input without results, empty and binary input', () => {
  assertFormatError('', /file is empty/);
  assertFormatError(' \n\n', /file is empty/);
  assertFormatError('a: 1 ms\n\u0000', /:2: .*NUL/);
  assertFormatError('## before ##\nnothing here: NaN ms\nx: Infinity us\ny: 1e999 s\n', /no "name: value unit" lines/);
});
