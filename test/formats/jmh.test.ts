import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { jmhReader } from '../../src/formats/jmh.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['jmh/jmh-result.json', 'jmh/jmh-gc.json'];

type Entry = Record<string, unknown> & { primaryMetric: Record<string, unknown>; secondaryMetrics: Record<string, Record<string, unknown>> };

function read(text: string) {
  return jmhReader.read({ path: 'jmh.json', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^jmh\.json/);
    assert.match(error.message, where);
    return true;
  });
}

/** edit parses a fixture, lets the test change it, and serializes it again. */
function edit(fixture: string, change: (doc: Entry[]) => void): string {
  const doc = JSON.parse(loadFixture(fixture).text) as Entry[];
  change(doc);
  return JSON.stringify(doc, null, 4);
}

describe('jmhReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as the capture script did`, () => {
      assertMatchesExpected(jmhReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(jmhReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('rejects the heads of other formats', () => {
    for (const other of ['criterion/cargo-bench-console.txt', 'criterion/target/criterion/fib 15/new/sample.json', 'hyperfine/basic.json', 'go/single-package.txt']) {
      assert.equal(jmhReader.sniff(loadFixture(other).text.slice(0, 4096)), false, other);
    }
    assert.equal(jmhReader.sniff('[{"name": "x"}]'), false);
    assert.equal(jmhReader.sniff('\u0000\u0001'), false);
  });

  it('names benchmarks with their params and picks metric and direction from the unit', () => {
    const { measurements } = jmhReader.read(loadFixture('jmh/jmh-result.json'));
    const primary = measurements.filter((m) => m.metric === 'time' || m.metric === 'throughput');
    assert.deepEqual(
      primary.map((m) => [m.benchmark, m.metric, m.unit, m.better]),
      [
        ['benchbot.capture.StringBench.concat(length=8)', 'throughput', 'ops/s', 'higher'],
        ['benchbot.capture.StringBench.concat(length=64)', 'throughput', 'ops/s', 'higher'],
        ['benchbot.capture.SortBench.sortCopy', 'time', 'us/op', 'lower'],
        ['benchbot.capture.SortBench.sortSampled', 'time', 'us/op', 'lower'],
        ['benchbot.capture.SortBench.sortOnce', 'time', 'us/op', 'lower'],
      ],
    );
    // 2 forks x 3 iterations, also for the sample-mode histogram.
    assert.ok(primary.every((m) => m.values.length === 6));
  });

  it('reads the GC profiler metrics as costs', () => {
    const { measurements } = jmhReader.read(loadFixture('jmh/jmh-gc.json'));
    const norm = measurements.filter((m) => m.metric === 'gc.alloc.rate.norm');
    assert.equal(norm.length, 3);
    assert.ok(norm.every((m) => m.unit === 'B/op' && m.better === 'lower'));
    assert.ok(measurements.filter((m) => m.metric === 'gc.alloc.rate').every((m) => m.better === 'lower'));
  });

  it('suffixes the mode when one benchmark ran in several modes', () => {
    const text = edit('jmh/jmh-result.json', (doc) => {
      const copy = JSON.parse(JSON.stringify(doc[2])) as Entry;
      copy.mode = 'thrpt';
      copy.primaryMetric.scoreUnit = 'ops/us';
      doc.push(copy);
    });
    const names = [...new Set(read(text).measurements.map((m) => `${m.benchmark} ${m.metric} ${m.better}`))];
    assert.ok(names.includes('benchbot.capture.SortBench.sortCopy [avgt] time lower'));
    assert.ok(names.includes('benchbot.capture.SortBench.sortCopy [thrpt] throughput higher'));
    assert.ok(names.includes('benchbot.capture.SortBench.sortSampled time lower'));
  });

  it("drops the middle dot older JMH puts before secondary metrics", () => {
    const text = edit('jmh/jmh-gc.json', (doc) => {
      doc[0].secondaryMetrics = { '·gc.alloc.rate.norm': doc[0].secondaryMetrics['gc.alloc.rate.norm'] };
    });
    const metrics = read(text).measurements.filter((m) => m.benchmark.endsWith('(length=8)')).map((m) => m.metric);
    assert.deepEqual(metrics, ['throughput', 'gc.alloc.rate.norm']);
  });

  it('leaves out a secondary metric without values', () => {
    const text = edit('jmh/jmh-gc.json', (doc) => {
      doc[0].secondaryMetrics['gc.time'] = { score: 0, scoreUnit: 'ms', rawData: [[], []] };
    });
    assert.ok(!read(text).measurements.some((m) => m.metric === 'gc.time' && m.benchmark.endsWith('(length=8)')));
  });

  it('reads machine hints', () => {
    const { hints } = jmhReader.read(loadFixture('jmh/jmh-result.json'));
    assert.equal(typeof hints.jdkVersion, 'string');
    assert.equal(hints.jvmArgs, undefined);
    const withArgs = edit('jmh/jmh-result.json', (doc) => {
      doc[0].jvmArgs = ['-Xmx1g', '-XX:+UseParallelGC'];
    });
    assert.equal(read(withArgs).hints.jvmArgs, '-Xmx1g -XX:+UseParallelGC');
  });

  it('refuses malformed input with the file and the line or JSON path', () => {
    const good = loadFixture('jmh/jmh-result.json').text;
    assertFormatError(good.slice(0, Math.floor(good.length / 2)), /invalid JSON/);
    assertFormatError('', /empty/);
    assertFormatError('\u0000\u0001\u0002', /jmh\.json:1: .*binary/);
    assertFormatError('[]', /\$: no benchmark results/);
    assertFormatError('{"benchmark": "x"}', /\$: expected an array/);
    assertFormatError('[1]', /\[0\]: expected an object/);
    assertFormatError('[\n{"benchmark": "x", "mode": "avgt", "primaryMetric": {"scoreUnit": "us/op", "rawData": [[NaN]]}}]', /jmh\.json:2: invalid JSON/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { doc[1].primaryMetric.rawData = [[1, 'NaN']]; }), /\[1\]\.primaryMetric\.rawData\[0\]\[1\]: expected a finite number, got the string "NaN"/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { doc[1].primaryMetric.rawData = '1'; }), /\[1\]\.primaryMetric\.rawData: expected an array/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { doc[1].primaryMetric.rawData = [[], []]; }), /\[1\]\.primaryMetric\.rawData: no measurement iterations/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { delete doc[1].primaryMetric.rawData; }), /\[1\]\.primaryMetric\.rawData: missing/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { delete (doc[0] as Record<string, unknown>).primaryMetric; }), /\[0\]\.primaryMetric: expected an object, got undefined/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { doc[0].benchmark = 42; }), /\[0\]\.benchmark: expected a string/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { doc[0].mode = 'fast'; }), /\[0\]\.mode: unknown mode "fast"/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { doc[0].params = { length: 8 }; }), /\[0\]\.params\.length: expected a string/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { doc.push(doc[2]); }), /\[5\]: benchmark "benchbot\.capture\.SortBench\.sortCopy" appears twice/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { (doc[3].primaryMetric.rawDataHistogram as unknown[][][])[1][2] = [[1.5]]; }), /\[3\]\.primaryMetric\.rawDataHistogram\[1\]\[2\]\[0\]: expected \[value, count\]/);
    assertFormatError(edit('jmh/jmh-result.json', (doc) => { (doc[3].primaryMetric.rawDataHistogram as unknown[][][])[0][0] = []; }), /\[3\]\.primaryMetric\.rawDataHistogram\[0\]\[0\]: empty histogram/);
    assertFormatError(edit('jmh/jmh-gc.json', (doc) => { doc[2].secondaryMetrics['gc.count'].scoreUnit = null; }), /\[2\]\.secondaryMetrics\["gc\.count"\]\.scoreUnit: expected a string/);
  });
});
