import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { cargoBenchReader, criterionNameFromPath, criterionReader, readCriterionDirectory } from '../../src/formats/criterion.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import type { SourceFile } from '../../src/formats/reader.ts';
import { FIXTURES, assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const CONSOLES = ['criterion/cargo-bench-console.txt', 'criterion/cargo-bench-libtest.txt', 'criterion/bencher-console.txt', 'criterion/public-gab-cargo-units.txt'];
const TREE = 'criterion/target';

/** treeFiles loads every file under fixtures/criterion/target, as the CLI's directory walk would hand them over. */
function treeFiles(): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(loadFixture(relative(FIXTURES, full)));
    }
  };
  walk(join(FIXTURES, TREE));
  return files;
}

function assertFormatError(run: () => unknown, file: string, where: RegExp) {
  assert.throws(run, (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.ok(error.message.startsWith(file), `message should name ${file}: ${error.message}`);
    assert.match(error.message, where);
    return true;
  });
}

const SAMPLE = 'target/criterion/fib/new/sample.json';
function readSample(text: string) {
  return criterionReader.read({ path: SAMPLE, text });
}
function readConsole(text: string) {
  return cargoBenchReader.read({ path: 'bench.txt', text });
}

describe('readCriterionDirectory', () => {
  it('reads the fixture tree as the capture script did', () => {
    assertMatchesExpected(readCriterionDirectory(treeFiles()), expectedFor(TREE));
  });

  it('reads only new/: base/ and change/ make no difference, and base/ alone is no result', () => {
    const all = treeFiles();
    const onlyNew = all.filter((f) => f.path.includes('/new/'));
    assert.ok(onlyNew.length < all.length);
    assert.deepEqual(readCriterionDirectory(onlyNew), readCriterionDirectory(all));
    const onlyBase = all.filter((f) => f.path.includes('/base/'));
    assertFormatError(() => readCriterionDirectory(onlyBase), 'fixtures/criterion/target/criterion', /no criterion results/);
  });

  it('does not depend on the order of the walk', () => {
    const files = treeFiles();
    assert.deepEqual(readCriterionDirectory([...files].reverse()), readCriterionDirectory(files));
  });

  it('names a benchmark from its path when benchmark.json is missing, with a note', () => {
    const files = treeFiles().filter((f) => !f.path.endsWith('checksum/fold/256/new/benchmark.json'));
    const result = readCriterionDirectory(files);
    const fold = result.measurements.filter((m) => m.benchmark === 'checksum/fold/256');
    assert.deepEqual(fold.map((m) => m.metric), ['time']);
    assert.equal(result.warnings.length, 1);
    assert.equal(result.warnings[0].kind, 'note');
  });

  it('refuses an empty tree and a tree without samples', () => {
    assertFormatError(() => readCriterionDirectory([]), 'target/criterion', /no criterion results/);
    const benchmarkOnly = treeFiles().filter((f) => f.path.endsWith('benchmark.json'));
    assertFormatError(() => readCriterionDirectory(benchmarkOnly), 'fixtures/criterion/target/criterion', /no criterion results/);
  });

  it('refuses two directories with the same full_id, naming the file', () => {
    const files = treeFiles();
    const path = 'fixtures/criterion/target/criterion/checksum/sum/256/new/benchmark.json';
    const edited = files.map((f) => (f.path === path ? { path, text: f.text.replace(/"full_id":"[^"]*"/, '"full_id":"checksum/fold/256"') } : f));
    assertFormatError(() => readCriterionDirectory(edited), path, /"checksum\/fold\/256" also appears/);
  });

  it('refuses a malformed benchmark.json with its file and JSON path', () => {
    const files = treeFiles();
    const path = 'fixtures/criterion/target/criterion/checksum/sum/256/new/benchmark.json';
    const breakWith = (text: string) => files.map((f) => (f.path === path ? { path, text } : f));
    assertFormatError(() => readCriterionDirectory(breakWith('{"full_id":"x","throughput":{"Bytes":"256"}}')), path, /throughput\.Bytes: expected a finite number/);
    assertFormatError(() => readCriterionDirectory(breakWith('{"full_id":3}')), path, /full_id: expected a string/);
    assertFormatError(() => readCriterionDirectory(breakWith('{"group_id":"x"}')), path, /full_id: missing/);
    assertFormatError(() => readCriterionDirectory(breakWith('{"full_id":"x",')), path, /:1: invalid JSON/);
    assertFormatError(() => readCriterionDirectory(breakWith('')), path, /empty/);
  });

  it('warns about an unknown throughput kind and keeps the time', () => {
    const files = treeFiles();
    const path = 'fixtures/criterion/target/criterion/checksum/sum/256/new/benchmark.json';
    const edited = files.map((f) => (f.path === path ? { path, text: '{"full_id":"checksum/sum/256","throughput":{"Furlongs":3}}' } : f));
    const result = readCriterionDirectory(edited);
    assert.deepEqual(result.measurements.filter((m) => m.benchmark === 'checksum/sum/256').map((m) => m.metric), ['time']);
    assert.equal(result.warnings[0].kind, 'note');
  });
});

describe('criterionReader', () => {
  const expected = expectedFor(TREE);
  const samples = treeFiles().filter((f) => f.path.endsWith('/new/sample.json'));

  for (const sample of samples) {
    it(`reads ${sample.path} under the name its path gives`, () => {
      const name = criterionNameFromPath(sample.path);
      const want = expected.measurements.filter((m) => m.benchmark === name && m.metric === 'time');
      assert.equal(want.length, 1, `the capture script has ${name}`);
      assertMatchesExpected(criterionReader.read(sample), { measurements: want, warnings: 0 });
    });
    it(`sniffs ${sample.path}`, () => {
      assert.equal(criterionReader.sniff(sample.text.slice(0, 4096)), true);
    });
  }

  it('derives names from paths', () => {
    assert.equal(criterionNameFromPath('target/criterion/fib 15/new/sample.json'), 'fib 15');
    assert.equal(criterionNameFromPath('/home/u/p/target/criterion/g/f/10/new/sample.json'), 'g/f/10');
    assert.equal(criterionNameFromPath('C:\\p\\target\\criterion\\g\\f\\new\\sample.json'), 'g/f');
    assert.equal(criterionNameFromPath('target/criterion/criterion/new/sample.json'), 'criterion');
    assert.equal(criterionNameFromPath('out/parse/new/sample.json'), 'parse');
    assert.equal(criterionNameFromPath('target/criterion/g/f/base/sample.json'), 'g/f');
    assert.equal(criterionNameFromPath('sample.json'), 'sample.json');
  });

  it('rejects the heads of other formats', () => {
    for (const other of [...CONSOLES, 'criterion/target/criterion/fib 15/new/benchmark.json', 'criterion/target/criterion/fib 15/new/estimates.json', 'jmh/jmh-result.json', 'hyperfine/basic.json']) {
      assert.equal(criterionReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
    assert.equal(criterionReader.sniff('\u0000\u0001'), false);
    assert.equal(criterionReader.sniff(''), false);
  });

  it('refuses malformed sample.json with file and JSON path or line', () => {
    const good = loadFixture('criterion/target/criterion/fib 15/new/sample.json').text;
    assertFormatError(() => readSample(good.slice(0, Math.floor(good.length / 2))), SAMPLE, /invalid JSON/);
    assertFormatError(() => readSample(''), SAMPLE, /empty/);
    assertFormatError(() => readSample('\u0000\u0007ELF'), SAMPLE, /:1: .*binary/);
    assertFormatError(() => readSample('[1,2]'), SAMPLE, /\$: expected an object/);
    assertFormatError(() => readSample('{"sampling_mode":"Linear","iters":"10","times":[1]}'), SAMPLE, /iters: expected an array/);
    assertFormatError(() => readSample('{"sampling_mode":"Linear","iters":[1,2],"times":[1,"2"]}'), SAMPLE, /times\[1\]: expected a finite number/);
    assertFormatError(() => readSample('{"sampling_mode":"Linear","iters":[1,2],"times":[1,NaN]}'), SAMPLE, /:1: invalid JSON/);
    assertFormatError(() => readSample('{"sampling_mode":"Linear","iters":[1,2],"times":[1,1e999]}'), SAMPLE, /times\[1\]: expected a finite number, got Infinity/);
    assertFormatError(() => readSample('{"sampling_mode":"Linear","iters":[1,2],"times":[1]}'), SAMPLE, /times: has 1 values but iters has 2/);
    assertFormatError(() => readSample('{"sampling_mode":"Linear","iters":[1,0],"times":[1,1]}'), SAMPLE, /iters\[1\]: expected a positive/);
    assertFormatError(() => readSample('{"sampling_mode":"Linear","iters":[1,2],"times":[1,-1]}'), SAMPLE, /times\[1\]: expected a positive/);
    assertFormatError(() => readSample('{"sampling_mode":"Linear","iters":[],"times":[]}'), SAMPLE, /iters: no samples/);
    assertFormatError(() => readSample('{"sampling_mode":"Linear","iters":[1e-320],"times":[1e300]}'), SAMPLE, /times\[0\]: time per iteration Infinity is out of range/);
    assertFormatError(() => readSample('{"sampling_mode":7,"iters":[1],"times":[1]}'), SAMPLE, /sampling_mode: expected a string/);
  });
});

describe('cargoBenchReader', () => {
  for (const fixture of CONSOLES) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(cargoBenchReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(cargoBenchReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('rejects the heads of other formats', () => {
    for (const other of ['criterion/target/criterion/fib 15/new/sample.json', 'jmh/jmh-result.json', 'go/single-package.txt', 'hyperfine/basic.json']) {
      assert.equal(cargoBenchReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
    assert.equal(cargoBenchReader.sniff('running 3 tests\ntest a ... ok\n'), false);
    assert.equal(cargoBenchReader.sniff('\u0000\u0001'), false);
  });

  it('reads the long name printed on its own line, and skips change blocks', () => {
    const { measurements } = cargoBenchReader.read(loadFixture('criterion/cargo-bench-console.txt'));
    const long = measurements.filter((m) => m.benchmark === 'parse_numbers_elements/split_whitespace/1000');
    assert.deepEqual(long.map((m) => [m.metric, m.unit, m.better]), [['time', 'us', 'lower'], ['throughput', 'elem/s', 'higher']]);
    assert.ok(measurements.every((m) => m.values.length === 1 && m.values[0] > 0));
  });

  it('converts units and keeps one summary-only warning per file', () => {
    const result = readConsole(
      [
        'tiny                    time:   [312.50 ps 315.00 ps 320.00 ps]',
        'bytes                   time:   [1.0000 ms 2.0000 ms 3.0000 ms]',
        '                        thrpt:  [1.0000 GiB/s 1.5000 GiB/s 2.0000 GiB/s]',
        'bits                    time:   [1.0000 s 1.0000 s 1.0000 s]',
        '                        thrpt:  [1.0000 Kb/s 2.5000 Kb/s 3.0000 Kb/s]',
        'cycles                  time:   [10.000 cycles 11.000 cycles 12.000 cycles]',
      ].join('\n'),
    );
    assert.deepEqual(
      result.measurements.map((m) => [m.benchmark, m.metric, m.unit, m.values]),
      [
        ['tiny', 'time', 'ns', [0.315]],
        ['bytes', 'time', 'ms', [2]],
        ['bytes', 'throughput', 'B/s', [1.5 * 1024 ** 3]],
        ['bits', 'time', 's', [1]],
        ['bits', 'throughput', 'b/s', [2500]],
        ['cycles', 'time', 'cycles', [11]],
      ],
    );
    assert.deepEqual(result.warnings.map((w) => w.kind), ['summary-only']);
  });

  it("reads criterion's bencher lines: names with spaces and parentheses, a custom unit, warnings in between", () => {
    const fixture = loadFixture('criterion/bencher-console.txt');
    // The captured file starts with criterion's stderr, and warnings stand between the results.
    assert.match(fixture.text, /^Gnuplot not found/);
    assert.match(fixture.text, /\nWarning: Unable to complete 100 samples/);
    assert.equal(cargoBenchReader.sniff(fixture.text.slice(0, 4096)), true);
    const { measurements } = cargoBenchReader.read(fixture);
    assert.deepEqual(
      measurements.map((m) => [m.benchmark, m.metric, m.unit, m.better]),
      [
        ['Symbols (Execution)', 'time', 'ns/iter', 'lower'],
        ['Fibonacci/10', 'time', 'ns/iter', 'lower'],
        ['Fibonacci/20', 'time', 'ns/iter', 'lower'],
        ['fib 31 (slow)', 'time', 'ns/iter', 'lower'],
        ['checksum 4096 (cycles)', 'cycles', 'cycles/iter', 'lower'],
      ],
    );
  });

  it('reads rates as throughput, higher is better, with or without /iter, and the issue\'s example line', () => {
    const result = readConsole(
      [
        'test Symbols (Execution) ... bench:        3268 ns/iter (+/- 47)',
        'test decode (1 MiB) ... bench:         125 MS/s/iter (+/- 3)',
        'test decode raw ... bench:       1,250 MS/s (+/- 30)',
        'test spaced  name   ... bench:          12 µs/iter (+/- 1)',
      ].join('\n'),
    );
    assert.deepEqual(result.measurements.map((m) => [m.benchmark, m.metric, m.unit, m.better, m.values]), [
      ['Symbols (Execution)', 'time', 'ns/iter', 'lower', [3268]],
      ['decode (1 MiB)', 'throughput', 'MS/s', 'higher', [125]],
      ['decode raw', 'throughput', 'MS/s', 'higher', [1250]],
      ['spaced  name', 'time', 'µs/iter', 'lower', [12]],
    ]);
    assert.equal(cargoBenchReader.sniff('Gnuplot not found, using plotters backend\ntest Symbols (Execution) ... bench:        3268 ns/iter (+/- 47)\n'), true);
    assert.equal(cargoBenchReader.sniff('test a b ... bench:        3268 cycles/iter (+/- 47)\n'), true);
  });

  it('appends the values of a benchmark printed again (concatenated runs)', () => {
    const run = (mid: string) => `fib                     time:   [1.0 µs ${mid} µs 3.0 µs]\n`;
    const result = readConsole(run('2.0') + run('2.5') + 'test lib_bench ... bench:       1,234 ns/iter (+/- 56)\ntest lib_bench ... bench:       1,300 ns/iter (+/- 56)\n');
    assert.deepEqual(result.measurements.map((m) => [m.benchmark, m.values]), [['fib', [2, 2.5]], ['lib_bench', [1234, 1300]]]);
  });

  it('refuses a unit that changes between repeats of one benchmark', () => {
    assert.throws(() => readConsole('fib  time:   [1.0 µs 2.0 µs 3.0 µs]\nfib  time:   [1.0 ns 2.0 ns 3.0 ns]\n'), /bench\.txt:2: .*ns here but us earlier/);
  });

  it('keeps a unit spelled like an Object.prototype property as printed (it crashed with a TypeError)', () => {
    const result = readConsole('a time: [1 ns 2 toString 3 ns]\n thrpt: [1 B/s 2 __proto__ 3 B/s]\nb time: [1 ns 2 constructor 3 ns]\n');
    assert.deepEqual(
      result.measurements.map((m) => [m.benchmark, m.metric, m.unit, m.values]),
      [['a', 'time', 'toString', [2]], ['a', 'throughput', '__proto__', [2]], ['b', 'time', 'constructor', [2]]],
    );
  });

  it('strips terminal colours and carriage-return redraws', () => {
    const result = readConsole('\u001b[32mBenchmarking fib: Analyzing\rfib                     \u001b[1mtime:   [1.0 µs 2.0 µs 3.0 µs]\u001b[0m\n');
    assert.deepEqual(result.measurements.map((m) => [m.benchmark, m.values]), [['fib', [2]]]);
  });

  it('warns about failed, ignored and exit-code lines', () => {
    const result = readConsole(
      ['test a ... bench:         10 ns/iter (+/- 1)', 'test b ... FAILED', 'test c ... ignored, too slow', 'test d (big) ... ignored', 'error: bench failed, to rerun pass `--bench x`'].join('\n'),
    );
    assert.deepEqual(result.warnings.map((w) => [w.kind, w.benchmark]), [['error', 'b'], ['skipped', 'c'], ['skipped', 'd (big)'], ['exit-code', undefined], ['summary-only', undefined]]);
  });

  it('refuses malformed console text with file and line', () => {
    assertFormatError(() => readConsole(''), 'bench.txt', /empty/);
    assertFormatError(() => readConsole('\u0000\u0001binary'), 'bench.txt', /bench\.txt:1: .*binary/);
    assertFormatError(() => readConsole('hello\nworld\n'), 'bench.txt', /no criterion `time:` lines/);
    assertFormatError(() => readConsole('ok\nfib   time:   [1.0 µs NaN µs 3.0 µs]\n'), 'bench.txt', /bench\.txt:2: not a number: "NaN"/);
    assertFormatError(() => readConsole('fib   time:   [1.0 µs 2.0 µs]\n'), 'bench.txt', /bench\.txt:1: expected \[low unit estimate unit high unit\]/);
    assertFormatError(() => readConsole('fib   time:   [1.0 µs 2.0 µs 3.0 µs]\nfast  time:   [1.0 µs 2.'), 'bench.txt', /bench\.txt:2: .*truncated/);
    assertFormatError(() => readConsole('                        thrpt:  [1.0 MiB/s 2.0 MiB/s 3.0 MiB/s]\n'), 'bench.txt', /bench\.txt:1: criterion thrpt line without a time line/);
    assertFormatError(() => readConsole('\n                        time:   [1.0 µs 2.0 µs 3.0 µs]\n'), 'bench.txt', /bench\.txt:2: criterion time line without a benchmark name/);
    assertFormatError(() => readConsole('test a ... bench:       1,2x4 ns/iter (+/- 56)\n'), 'bench.txt', /bench\.txt:1: not a number: "1,2x4"/);
    assertFormatError(() => readConsole('test a ... bench:       Infinity ns/iter (+/- 56)\n'), 'bench.txt', /bench\.txt:1: not a number/);
  });
});
