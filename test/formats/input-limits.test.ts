import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchbotJsonReader } from '../../src/formats/benchbot-json.ts';
import { cargoBenchReader } from '../../src/formats/criterion.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { googleBenchmarkReader } from '../../src/formats/google-benchmark.ts';
import { MAX_INPUT_SERIES, MAX_INPUT_VALUES, ReadBudget, checkJsonElementCount } from '../../src/formats/input-limits.ts';

function assertFormatError(run: () => unknown, message: RegExp) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${(error as Error)?.stack ?? String(error)}`);
    assert.match(error.message, message);
    return true;
  });
}

test('a JSON input with more elements than MAX_INPUT_VALUES is refused before JSON.parse builds them', () => {
  // 20 MB; 157 M such numbers in 300 MB aborted V8 itself ("invalid size error"), which no catch survives.
  const numbers = '0,'.repeat(MAX_INPUT_VALUES) + '0';
  assertFormatError(
    () => benchbotJsonReader.read({ path: 'many.json', text: `{"benchmarks":[${numbers}]}` }),
    /^many\.json: holds more than 10,000,000 JSON values; benchbot reads at most that many/,
  );
  // The Google Benchmark reader re-parses files with bare NaN; a refusal for size is not retried.
  assertFormatError(
    () => googleBenchmarkReader.read({ path: 'gb.json', text: `{"context":{},"benchmarks":[{"name":"a","real_time":NaN},${numbers}]}` }),
    /^gb\.json: holds more than 10,000,000 JSON values/,
  );
});

test('commas, brackets and escaped quotes inside JSON strings are not elements', () => {
  const name = 'x\\"' + ',[{'.repeat(MAX_INPUT_VALUES / 3 + 1) + '\\\\';
  const text = `{"benchmarks":[{"benchmark":"${name}","unit":"ns","values":[1,2]}]}`;
  checkJsonElementCount('strings.json', text);
  const { measurements } = benchbotJsonReader.read({ path: 'strings.json', text });
  assert.equal(measurements.length, 1);
  assert.deepEqual(measurements[0].values, [1, 2]);
});

test('ReadBudget refuses the value or series past its limit, naming file and line', () => {
  const budget = new ReadBudget('out.txt', { maxValues: 3, maxSeries: 2 });
  budget.value(1);
  budget.value(2, 2);
  assertFormatError(() => budget.value(7), /^out\.txt:7: holds more than 3 measured values/);
  budget.series(1);
  budget.series(2);
  assertFormatError(() => budget.series(9), /^out\.txt:9: holds more than 2 benchmarks, series and warnings/);
  assert.equal(MAX_INPUT_SERIES, 1_000_000);
});

test('a text output with more series and warnings than MAX_INPUT_SERIES is refused at the line that crosses it', () => {
  // 19 MB of `ignored` lines: each used to become a warning, without bound.
  const text = 'test a ... ignored\n'.repeat(MAX_INPUT_SERIES + 1);
  assertFormatError(
    () => cargoBenchReader.read({ path: 'cargo.txt', text }),
    new RegExp(`^cargo\\.txt:${MAX_INPUT_SERIES + 1}: holds more than 1,000,000 benchmarks, series and warnings`),
  );
});

test('a values array too long to spread is read (entries of one benchmark are merged without push(...))', () => {
  const values = Array.from({ length: 300_000 }, (_, i) => 1 + (i % 7));
  const entry = JSON.stringify({ benchmark: 'a', unit: 'ns', values });
  const { measurements } = benchbotJsonReader.read({ path: 'long.json', text: `{"benchmarks":[${entry},${entry}]}` });
  assert.equal(measurements[0].values.length, 600_000);
});
