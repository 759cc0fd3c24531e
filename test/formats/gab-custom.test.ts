import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { customBiggerIsBetterReader, customReader, customSmallerIsBetterReader } from '../../src/formats/gab-custom.ts';
import type { Reader } from '../../src/formats/reader.ts';
import { parseGithubActionBenchmark } from '../../src/store/github-action-benchmark.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['github-action-benchmark/public-gab-custom-bigger.json', 'github-action-benchmark/public-gab-custom-smaller.json', 'github-action-benchmark/public-gab-custom-smaller-ns.json'];

function read(text: string, reader: Reader = customReader) {
  return reader.read({ path: 'custom.json', text });
}

function assertFormatError(text: string, where: RegExp, reader: Reader = customReader) {
  assert.throws(() => read(text, reader), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^custom\.json(:\d+)?: /);
    assert.match(error.message, where);
    return true;
  });
}

describe('github-action-benchmark custom JSON', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as migration_expected.py does`, () => {
      assertMatchesExpected(customReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture} as custom only`, () => {
      const head = loadFixture(fixture).text.slice(0, 4096);
      assert.equal(customReader.sniff(head), true);
      // The stated directions are never detected: the file cannot say which it is.
      assert.equal(customSmallerIsBetterReader.sniff(head), false);
      assert.equal(customBiggerIsBetterReader.sniff(head), false);
    });
  }

  it('detected: rates are bigger-is-better, times smaller, other units smaller with one warning naming them and the formats', () => {
    const { measurements, warnings } = customReader.read(loadFixture('github-action-benchmark/public-gab-custom-bigger.json'));
    assert.deepEqual(measurements.map((m) => [m.unit, m.better]), [['req/s', 'higher'], ['Megabytes', 'lower']]);
    assert.equal(warnings.length, 1);
    assert.match(warnings[0].message, /Free Memory" in "Megabytes" read as smaller-is-better/);
    assert.match(warnings[0].message, /--format custom-smaller-is-better or --format custom-bigger-is-better/);
    assert.equal(customReader.read(loadFixture('github-action-benchmark/public-gab-custom-smaller-ns.json')).warnings.length, 0);
  });

  it('--format custom-bigger-is-better / custom-smaller-is-better state the direction of every entry, with no warning', () => {
    const fixture = loadFixture('github-action-benchmark/public-gab-custom-bigger.json');
    const bigger = customBiggerIsBetterReader.read(fixture);
    assert.deepEqual(bigger.measurements.map((m) => m.better), ['higher', 'higher']);
    assert.equal(bigger.warnings.length, 0);
    const smaller = customSmallerIsBetterReader.read(loadFixture('github-action-benchmark/public-gab-custom-smaller.json'));
    assert.deepEqual(smaller.measurements.map((m) => m.better), ['lower', 'lower']);
    assert.equal(smaller.warnings.length, 0);
  });

  it('gives the series `benchbot import` makes of the data.js the action would have written from the same file', () => {
    for (const [fixture, tool, reader] of [
      ['github-action-benchmark/public-gab-custom-bigger.json', 'customBiggerIsBetter', customBiggerIsBetterReader],
      ['github-action-benchmark/public-gab-custom-smaller.json', 'customSmallerIsBetter', customSmallerIsBetterReader],
      ['github-action-benchmark/public-gab-custom-smaller-ns.json', 'customSmallerIsBetter', customSmallerIsBetterReader],
    ] as const) {
      const text = loadFixture(fixture).text;
      const benches = JSON.parse(text) as unknown[];
      const dataJs = `window.BENCHMARK_DATA = ${JSON.stringify({ lastUpdate: 1, repoUrl: 'https://github.com/o/r', entries: { Benchmark: [{ commit: { id: 'a'.repeat(40), timestamp: '2025-01-01T00:00:00Z' }, date: 1735689600000, tool, benches }] } }, null, 2)}`;
      const imported = parseGithubActionBenchmark(dataJs, 'data.js').runs[0].measurements;
      const read = reader.read({ path: fixture, text }).measurements;
      assert.deepEqual(read, imported, fixture);
    }
  });

  it('spells µs as us and keeps a per-something suffix; nsec is a time', () => {
    const { measurements } = read('[{"name":"a","unit":"µs/iter","value":3},{"name":"b","unit":"nsec","value":4},{"name":"c","unit":"ops/sec","value":5}]');
    assert.deepEqual(measurements.map((m) => [m.metric, m.unit, m.better]), [['time', 'us/iter', 'lower'], ['time', 'nsec', 'lower'], ['value', 'ops/sec', 'higher']]);
  });

  it('a name given twice is two values of one series, converted to the first unit', () => {
    const { measurements } = read('[{"name":"a","unit":"ms","value":1.5},{"name":"a","unit":"us","value":1200}]');
    assert.equal(measurements.length, 1);
    assert.deepEqual(measurements[0].values, [1.5, 1.2]);
  });

  it('range and extra are display text: numbers, strings or absent', () => {
    const { measurements } = read('[{"name":"a","unit":"ns","value":1,"range":0.5},{"name":"b","unit":"ns","value":2,"range":"± 3%","extra":"x\\ny"}]');
    assert.deepEqual(measurements.map((m) => m.values), [[1], [2]]);
  });

  it('sniff: braces inside extra do not end the first entry; other JSON arrays and objects are not custom', () => {
    assert.equal(customReader.sniff('[{"name":"a","unit":"ns","value":1,"extra":"params={\\"a\\":1}"}]'), true);
    assert.equal(customReader.sniff('[{"name":"a","unit":"ns","value":1,"samples":[1,2]}]'), false);
    assert.equal(customReader.sniff('[{"name":"a","unit":"ns"}]'), false);
    assert.equal(customReader.sniff('[{"Julia":"1.7.0","BenchmarkTools":"1.0.0"},[]]'), false);
    assert.equal(customReader.sniff('{"benchmarks":[{"name":"a","unit":"ns","value":1}]}'), false);
    assert.equal(customReader.sniff('[{"name":"a","unit":"ns","value":1'), false);
    assert.equal(customReader.sniff('[{"name":"a\\'), false);
  });

  describe('malformed input', () => {
    it('not an array', () => assertFormatError('{"name":"a"}', /\$: expected an array of \{name, unit, value\} entries/));
    it('empty array', () => assertFormatError('[]', /\$: no benchmarks/));
    it('entry not an object', () => assertFormatError('[1]', /\[0\]: expected an object/));
    it('name missing', () => assertFormatError('[{"unit":"ns","value":1}]', /\[0\]\.name: expected a string/));
    it('empty name', () => assertFormatError('[{"name":" ","unit":"ns","value":1}]', /\[0\]\.name: must not be empty/));
    it('value as a string', () => assertFormatError('[{"name":"a","unit":"ns","value":"1"}]', /\[0\]\.value: expected a finite number/));
    it('unit missing', () => assertFormatError('[{"name":"a","value":1}]', /\[0\]\.unit: expected a string/));
    it('empty unit', () => assertFormatError('[{"name":"a","unit":"","value":1}]', /\[0\]\.unit: must not be empty/));
    it('negative time', () => assertFormatError('[{"name":"a","unit":"ms","value":-1}]', /\[0\]\.value: is -1; a time \(unit ms\) cannot be below zero/));
    it('same name in units that do not convert', () => assertFormatError('[{"name":"a","unit":"ms","value":1},{"name":"a","unit":"ms/op","value":1}]', /\[1\]\.unit: is "ms\/op", but \[0\] has the same name in "ms"/));
    it('truncated', () => assertFormatError('[{"name":"a","unit":"ns","val', /invalid JSON/));
    it('the stated formats check the same', () => assertFormatError('[{"name":"a","unit":"ns"}]', /\[0\]\.value: expected a finite number/, customBiggerIsBetterReader));
  });
});
