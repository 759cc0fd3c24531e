import { test } from 'node:test';
import assert from 'node:assert/strict';
import { catch2Reader } from '../../src/formats/catch2.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = [
  'catch2/console.txt',
  'catch2/console-no-analysis.txt',
  'catch2/console-failing.txt',
  'catch2/report.xml',
  'catch2/report-failing.xml',
  'catch2/v3-handwritten.xml',
  'catch2/public-gab-catch2-estimated.txt',
  'catch2/public-gab-catch2-est-run-time.txt',
];

for (const fixture of FIXTURES) {
  test(`catch2 reads ${fixture} as the capture script did`, () => {
    const file = loadFixture(fixture);
    assert.ok(catch2Reader.sniff(file.text.slice(0, 4096)), 'sniff');
    assertMatchesExpected(catch2Reader.read(file), expectedFor(fixture));
  });
}

test('catch2 marks results summary-only and failed benchmarks as errors', () => {
  const result = catch2Reader.read(loadFixture('catch2/console-failing.txt'));
  assert.deepEqual(result.warnings.map((w) => w.kind), ['summary-only', 'error']);
  assert.equal(result.warnings[1].benchmark, 'throws');
  assert.match(result.warnings[1].message, /deliberate failure/);
});

test('catch2 reads names with spaces and digits under both header variants (estimated, est run time)', () => {
  for (const fixture of ['catch2/public-gab-catch2-estimated.txt', 'catch2/public-gab-catch2-est-run-time.txt']) {
    const result = catch2Reader.read(loadFixture(fixture));
    assert.deepEqual(
      result.measurements.map((m) => [m.benchmark, m.values]),
      [['Fibonacci 10', [344]], ['Fibonacci 20', [41731]], ['Fibonacci~ 5!', [36]], ['Fibonacci-15_bench', [3789]]],
      fixture,
    );
  }
  assert.equal(catch2Reader.sniff('benchmark name                       samples       iterations    est run time\n'), true);
});

test('catch2 console and XML name a wrapped long benchmark the same', () => {
  const names = (fixture: string) => catch2Reader.read(loadFixture(fixture)).measurements.map((m) => m.benchmark);
  assert.deepEqual(names('catch2/console.txt'), names('catch2/report.xml'));
  assert.ok(names('catch2/console.txt').includes('std::string append of 64 characters, one at a time'));
});

test('catch2 adds a value per run when outputs are concatenated', () => {
  const one = loadFixture('catch2/console.txt');
  const twice = catch2Reader.read({ path: one.path, text: one.text + one.text });
  const once = catch2Reader.read(one);
  for (const [i, m] of twice.measurements.entries()) assert.deepEqual(m.values, [...once.measurements[i].values, ...once.measurements[i].values]);
});

test('catch2 sniff rejects other formats', () => {
  for (const head of [
    '{"context": {}, "benchmarks": []}',
    'goos: linux\nBenchmarkX-8  100  12 ns/op\n',
    'fibonacci: 12.5 us\nsort: 3 ms\n',
    'I/flutter (1): growable[32](RunTime): 31464.890625 us.',
  ]) {
    assert.equal(catch2Reader.sniff(head), false, head);
  }
});

function assertFormatError(text: string, pattern: RegExp): void {
  assert.throws(
    () => catch2Reader.read({ path: 'bad/catch2.out', text }),
    (error: unknown) => error instanceof FormatError && error.message.startsWith('bad/catch2.out') && pattern.test(error.message),
  );
}

test('catch2 refuses malformed input with file and line', () => {
  const console = loadFixture('catch2/console.txt').text;
  const xml = loadFixture('catch2/report.xml').text;
  assertFormatError('', /file is empty/);
  assertFormatError('\u0000\u0001binary', /:1: .*NUL/);
  assertFormatError('just some log\n', /no Catch2 benchmark results/);
  // Truncated right after a benchmark's first row: its mean line is missing.
  const cut = console.split('\n').findIndex((l) => l.startsWith('fibonacci 20'));
  assertFormatError(console.split('\n').slice(0, cut + 1).join('\n'), new RegExp(`:${cut + 1}: .*no mean line`));
  assertFormatError(console.replace(/^(\s+)[\d.]+ (ns|us)/m, '$1nan $2'), /:\d+: expected the mean line/);
  assertFormatError(xml.slice(0, xml.indexOf('</Catch>')), /:\d+: <Catch> \(line 2\) is never closed/);
  assertFormatError(xml.replace(/<mean value="[^"]*"/, '<mean value="NaN"'), /:7: .*not a finite number/);
  assertFormatError(xml.replace(/<mean value="[^"]*"/, '<mean value="1e999"'), /:7: .*not a finite number/);
  assertFormatError(xml.replace('</TestCase>', '</Group>'), /:\d+: unexpected <\/Group> inside <TestCase>/);
  assertFormatError(xml.replace('<mean ', '<mean <'), /:7: malformed XML/);
  assertFormatError(xml.replace(/<mean [^>]*\/>/, ''), /:5: benchmark "fibonacci 15" has neither <mean> nor <failed>/);
});
