import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { hyperfineReader } from '../../src/formats/hyperfine.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['hyperfine/basic.json', 'hyperfine/parameter-scan.json', 'hyperfine/parameter-names.json', 'hyperfine/failing.json', 'hyperfine/memory.json'];

function read(text: string) {
  return hyperfineReader.read({ path: 'export.json', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^export\.json/);
    assert.match(error.message, where);
    return true;
  });
}

/** edit parses the basic fixture, lets the test break it, and serializes it again. */
function edit(change: (doc: { results: Record<string, unknown>[] }) => void): string {
  const doc = JSON.parse(loadFixture('hyperfine/basic.json').text) as { results: Record<string, unknown>[] };
  change(doc);
  return JSON.stringify(doc, null, 2);
}

describe('hyperfineReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(hyperfineReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(hyperfineReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('rejects the heads of other formats', () => {
    for (const other of ['go/single-package.txt', 'pytest-benchmark/report.json']) {
      assert.equal(hyperfineReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
    assert.equal(hyperfineReader.sniff('{"context": {"date": "2024"}, "benchmarks": []}'), false);
    assert.equal(hyperfineReader.sniff('\u0000\u0001'), false);
  });

  it('reads times in seconds, lower is better', () => {
    const { measurements } = hyperfineReader.read(loadFixture('hyperfine/basic.json'));
    assert.deepEqual(measurements.map((m) => [m.benchmark, m.metric, m.unit, m.better]), [
      ['sleep 0.01', 'time', 's', 'lower'],
      ['seq 1 100000 | sort -n >/dev/null', 'time', 's', 'lower'],
    ]);
  });

  it('qualifies a --command-name shared by parameter values with the parameters', () => {
    const { measurements } = hyperfineReader.read(loadFixture('hyperfine/parameter-names.json'));
    assert.deepEqual(measurements.map((m) => m.benchmark), ['sleep (ms=5)', 'sleep (ms=10)']);
  });

  it('numbers identical commands', () => {
    const text = edit((doc) => doc.results.push({ ...doc.results[0] }));
    assert.deepEqual(read(text).measurements.map((m) => m.benchmark), ['sleep 0.01', 'seq 1 100000 | sort -n >/dev/null', 'sleep 0.01 #2']);
  });

  it('warns about non-zero exit codes and keeps the times', () => {
    const { measurements, warnings } = hyperfineReader.read(loadFixture('hyperfine/failing.json'));
    assert.equal(warnings.length, 1);
    assert.equal(warnings[0].kind, 'exit-code');
    assert.equal(warnings[0].benchmark, 'sh -c "exit 3"');
    assert.ok(measurements.some((m) => m.benchmark === 'sh -c "exit 3"'));
  });

  it('counts a null exit code (killed by a signal) as a failure', () => {
    const text = edit((doc) => {
      (doc.results[0].exit_codes as unknown[])[1] = null;
    });
    assert.match(read(text).warnings[0].message, /signal/);
  });

  it('reads memory_usage_byte as metric memory in B', () => {
    const { measurements } = hyperfineReader.read(loadFixture('hyperfine/memory.json'));
    const memory = measurements.filter((m) => m.metric === 'memory');
    assert.equal(memory.length, 2);
    assert.ok(memory.every((m) => m.unit === 'B' && m.better === 'lower'));
  });

  it('falls back to the median with a summary-only warning when times are missing', () => {
    const text = edit((doc) => {
      for (const r of doc.results) delete r.times;
    });
    const basic = JSON.parse(loadFixture('hyperfine/basic.json').text) as { results: { median: number }[] };
    const result = read(text);
    assert.deepEqual(result.measurements.map((m) => m.values), basic.results.map((r) => [r.median]));
    assert.deepEqual(result.warnings.map((w) => w.kind), ['summary-only', 'summary-only']);
  });

  describe('malformed input', () => {
    const good = loadFixture('hyperfine/basic.json').text;

    it('empty file', () => assertFormatError('', /empty/));
    it('binary garbage', () => assertFormatError('\u0000\u0001\u00ff', /NUL/));
    // parseJsonDocument gives V8's "Unexpected end of JSON input" no line; the message still names the file.
    it('truncated JSON', () => assertFormatError(good.slice(0, Math.floor(good.length / 2)), /invalid JSON/));
    // parseJsonDocument cannot place V8's "Unexpected token" errors on a line (no position in the message).
    it('NaN literal', () => assertFormatError(good.replace(/"mean": [^,]+/, '"mean": NaN'), /invalid JSON: Unexpected token 'N'/));
    it('not an object', () => assertFormatError('[1, 2]', /\$: expected an object/));
    it('results missing', () => assertFormatError('{"benchmarks": []}', /results: expected an array/));
    it('results empty', () => assertFormatError('{"results": []}', /results: no benchmark results/));
    it('command of the wrong type', () => assertFormatError(edit((d) => (d.results[1].command = 42)), /results\[1\]\.command: expected a string/));
    it('time as a string', () => assertFormatError(edit((d) => ((d.results[0].times as unknown[])[3] = '0.1')), /results\[0\]\.times\[3\]: expected a finite number/));
    it('huge number overflowing to Infinity', () => assertFormatError(good.replace(/("times": \[\s*)[^,\s]+/, '$11e999'), /results\[0\]\.times\[0\]: expected a finite number, got Infinity/));
    it('negative time', () => assertFormatError(edit((d) => ((d.results[0].times as number[])[0] = -1)), /results\[0\]\.times: negative/));
    it('empty times', () => assertFormatError(edit((d) => (d.results[0].times = [])), /results\[0\]\.times: no runs/));
    it('exit code of the wrong type', () => assertFormatError(edit((d) => ((d.results[0].exit_codes as unknown[])[0] = 'ok')), /results\[0\]\.exit_codes\[0\]/));
    it('parameter of the wrong type', () => assertFormatError(edit((d) => (d.results[0].parameters = { n: 1 })), /results\[0\]\.parameters\.n: expected a string/));
    it('memory of the wrong type', () => assertFormatError(edit((d) => (d.results[0].memory_usage_byte = 'lots')), /results\[0\]\.memory_usage_byte: expected an array/));
  });
});
