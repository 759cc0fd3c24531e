import { test } from 'node:test';
import assert from 'node:assert/strict';
import { benchbotJsonReader } from '../../src/formats/benchbot-json.ts';
import { catch2Reader } from '../../src/formats/catch2.ts';
import { dartReader } from '../../src/formats/dart.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { goBenchReader } from '../../src/formats/go-bench.ts';
import { googleBenchmarkReader } from '../../src/formats/google-benchmark.ts';
import type { Reader } from '../../src/formats/reader.ts';
import { isTimeUnit } from '../../src/model/units.ts';

// A time below zero is a broken harness or a forged file, and it would enter
// the statistics (log ratios) as NaN; hyperfine and pytest readers already
// refuse one. Counters that may go negative (a heap that shrank) stay.

function refuses(reader: Reader, text: string, message: RegExp) {
  assert.throws(() => reader.read({ path: 'neg.out', text }), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, message);
    return true;
  });
}

const gbRow = (fields: string) => `{"context":{},"benchmarks":[{"name":"BM_A","run_type":"iteration","iterations":10,"time_unit":"ns",${fields}}]}`;

test('Google Benchmark: a negative real_time, cpu_time or rate is refused; a negative user counter or net_heap_growth is read', () => {
  refuses(googleBenchmarkReader, gbRow('"real_time":-5,"cpu_time":5'), /^neg\.out: benchmarks\[0\]\.real_time: expected a non-negative number, got -5; a time cannot be below zero/);
  refuses(googleBenchmarkReader, gbRow('"real_time":5,"cpu_time":-0.5'), /benchmarks\[0\]\.cpu_time: .*got -0\.5/);
  refuses(googleBenchmarkReader, gbRow('"real_time":5,"cpu_time":5,"bytes_per_second":-1'), /bytes_per_second: .*rate or size cannot be below zero/);
  const { measurements } = googleBenchmarkReader.read({ path: 'ok.json', text: gbRow('"real_time":5,"cpu_time":5,"Delta":-3,"net_heap_growth":-64') });
  assert.deepEqual(measurements.find((m) => m.metric === 'Delta')?.values, [-3]);
  assert.deepEqual(measurements.find((m) => m.metric === 'net_heap_growth')?.values, [-64]);
});

test('Go: a negative ns/op (or other time, B/op, allocs/op, MB/s) is refused with file and line; a custom metric may be negative', () => {
  const head = 'goos: linux\ngoarch: amd64\npkg: example.com/p\n';
  refuses(goBenchReader, `${head}BenchmarkA-8   1000   -12.5 ns/op\n`, /^neg\.out:4: BenchmarkA-8: negative ns\/op \(-12\.5\); a time or size cannot be below zero/);
  refuses(goBenchReader, `${head}BenchmarkA-8   1000   12.5 ns/op   -3 sec/elem\n`, /^neg\.out:4: .*negative sec\/elem/);
  refuses(goBenchReader, `${head}BenchmarkA-8   1000   12.5 ns/op   -8 B/op   1 allocs/op\n`, /^neg\.out:4: .*negative B\/op/);
  const { measurements } = goBenchReader.read({ path: 'ok.txt', text: `${head}BenchmarkA-8   1000   12.5 ns/op   -2 delta/op\n` });
  assert.deepEqual(measurements.find((m) => m.unit === 'delta/op')?.values, [-2]);
});

test('benchbot JSON: a negative value in a time unit is refused naming the entry; a count may be negative', () => {
  const entry = (unit: string, values: number[]) => `{"benchmarks":[{"benchmark":"a","unit":"${unit}","values":${JSON.stringify(values)}}]}`;
  refuses(benchbotJsonReader, entry('ns', [3, -1]), /^neg\.out: benchmarks\[0\]\.values\[1\]: is -1; a time \(unit ns\) cannot be below zero/);
  refuses(benchbotJsonReader, entry('ms/op', [-0.1]), /values\[0\]: is -0\.1; a time \(unit ms\/op\)/);
  const { measurements } = benchbotJsonReader.read({ path: 'ok.json', text: entry('count', [-4, 2]) });
  assert.deepEqual(measurements[0].values, [-4, 2]);
});

test('Dart and Catch2: negative times are refused with file and line', () => {
  refuses(dartReader, 'Fib(RunTime): -12.5 us.\n', /^neg\.out:1: RunTime of "Fib" is negative/);
  const table = 'benchmark name                            samples    iterations          mean\n' + '-'.repeat(79) + '\nfib 20                                         100             1    -1.2 ms \n';
  refuses(catch2Reader, table, /^neg\.out:3: negative duration "-1\.2 ms"/);
  refuses(catch2Reader, '<Catch2TestRun><BenchmarkResults name="a"><mean value="-3" lowerBound="1" upperBound="2" ci="0.95"/></BenchmarkResults></Catch2TestRun>', /^neg\.out:1: benchmark "a": <mean value> is negative/);
});

test('isTimeUnit knows times alone and per something, and nothing else', () => {
  for (const unit of ['ns', 'us', 'µs', 'μs', 'ms', 's', 'sec', 'ns/op', 'sec/op', 'ms/iteration']) assert.ok(isTimeUnit(unit), unit);
  for (const unit of ['B', 'B/op', 'allocs/op', 'MB/s', 'count', 'ops/s', 'nsec', '']) assert.ok(!isTimeUnit(unit), unit);
});
