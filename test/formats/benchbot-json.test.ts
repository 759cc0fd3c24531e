import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { benchbotJsonReader } from '../../src/formats/benchbot-json.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { FIXTURES, assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

test('benchbot reads benchbot/handwritten.json as the capture script did', () => {
  const file = loadFixture('benchbot/handwritten.json');
  assert.ok(benchbotJsonReader.sniff(file.text.slice(0, 4096)), 'sniff');
  assertMatchesExpected(benchbotJsonReader.read(file), expectedFor('benchbot/handwritten.json'));
});

test('benchbot reads the example in docs/benchbot-json.md', () => {
  const doc = readFileSync(join(FIXTURES, '..', 'docs', 'benchbot-json.md'), 'utf8');
  const example = /```json\n([\s\S]*?)```/.exec(doc);
  assert.ok(example, 'the doc has a json example');
  assert.ok(benchbotJsonReader.sniff(example[1]));
  const result = benchbotJsonReader.read({ path: 'docs/benchbot-json.md', text: example[1] });
  assert.ok(result.measurements.length > 0);
});

test('benchbot sniffs the structure without a marker and rejects other JSON', () => {
  assert.ok(benchbotJsonReader.sniff('{"benchmarks": [{"benchmark": "a", "unit": "ns", "values": [1, 2]}]}'));
  for (const head of [
    '{"context": {}, "benchmarks": [{"name": "BM_X", "real_time": 1}]}',
    '{"machine_info": {}, "benchmarks": [{"name": "test_x", "stats": {"data": [1]}}]}',
    '{"results": [{"command": "sleep 0.1", "times": [0.1]}]}',
    '[{"benchmark": "a.b", "primaryMetric": {"rawData": [[1]]}}]',
    'name: 1 ms\nother: 2 ms\n',
  ]) {
    assert.equal(benchbotJsonReader.sniff(head), false, head);
  }
});

function assertFormatError(text: string, pattern: RegExp): void {
  assert.throws(
    () => benchbotJsonReader.read({ path: 'bad/results.json', text }),
    (error: unknown) => error instanceof FormatError && error.message.startsWith('bad/results.json') && pattern.test(error.message),
  );
}

test('benchbot refuses malformed input naming the file and the line or JSON path', () => {
  const ok = (entry: string) => `{"benchmarks": [${entry}]}`;
  assertFormatError('', /file is empty/);
  assertFormatError('{"benchmarks": [\n{"benchmark": "a",\n', /:\d+: invalid JSON/);
  assertFormatError('{"benchmarks": [\u0000]}', /:1: .*NUL/);
  assertFormatError('[]', /\$: expected an object/);
  assertFormatError('{}', /benchmarks: expected an array/);
  assertFormatError('{"benchmarks": []}', /benchmarks: the list is empty/);
  assertFormatError('{"version": 2, "benchmarks": []}', /version: unsupported version number 2/);
  assertFormatError(ok('{"benchmark": "a", "unit": "ns", "values": [1, NaN]}'), /invalid JSON/);
  assertFormatError(ok('{"benchmark": "a", "unit": "ns", "values": [1, "2"]}'), /benchmarks\[0\]\.values\[1\]: expected a finite number/);
  assertFormatError(ok('{"benchmark": "a", "unit": "ns", "values": [1e999]}'), /benchmarks\[0\]\.values\[0\]: expected a finite number, got Infinity/);
  assertFormatError(ok('{"benchmark": "a", "unit": "ns", "values": []}'), /benchmarks\[0\]\.values: is empty/);
  assertFormatError(ok('{"benchmark": "", "unit": "ns", "values": [1]}'), /benchmarks\[0\]\.benchmark: is empty/);
  assertFormatError(ok('{"benchmark": "a", "values": [1]}'), /benchmarks\[0\]\.unit: expected a string/);
  assertFormatError(ok('{"benchmark": "a", "unit": "ns", "better": "faster", "values": [1]}'), /benchmarks\[0\]\.better: expected "lower" or "higher"/);
  assertFormatError(ok('{"benchmark": "a", "unit": "ns", "values": [1]}, {"benchmark": "a", "unit": "ms", "values": [1]}'), /benchmarks\[1\]: "a" \/ time appears earlier/);
  assertFormatError('{"hints": {"cpu": [1]}, "benchmarks": [{"benchmark": "a", "unit": "ns", "values": [1]}]}', /hints\.cpu: expected a finite number/);
});

test('benchbot reads an optional harness (what the action\'s results artifact names, which the default work threshold follows) and refuses one that is no name', () => {
  const entries = '"benchmarks": [{"benchmark": "a", "metric": "instructions", "unit": "count", "values": [1, 1]}]';
  assert.equal(benchbotJsonReader.read({ path: 'r.json', text: `{"harness": "pytest-benchmark", ${entries}}` }).harness, 'pytest-benchmark');
  assert.equal(benchbotJsonReader.read({ path: 'r.json', text: `{"harness": "github-action-benchmark/go", ${entries}}` }).harness, 'github-action-benchmark/go');
  assert.equal(benchbotJsonReader.read({ path: 'r.json', text: `{${entries}}` }).harness, undefined);
  assertFormatError(`{"harness": "pytest benchmark", ${entries}}`, /harness: the string "pytest benchmark" is not a harness name/);
  assertFormatError(`{"harness": "${'x'.repeat(101)}", ${entries}}`, /harness: .* is not a harness name/);
  assertFormatError(`{"harness": 1, ${entries}}`, /harness/);
});
