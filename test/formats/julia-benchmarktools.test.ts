import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { juliaBenchmarkToolsReader } from '../../src/formats/julia-benchmarktools.ts';
import { parseGithubActionBenchmark } from '../../src/store/github-action-benchmark.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURES = ['julia/public-gab-julia-estimates.json', 'julia/suite-handwritten.json', 'julia/params-and-trial-handwritten.json'];

function read(text: string) {
  return juliaBenchmarkToolsReader.read({ path: 'bt.json', text });
}

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => read(text), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, /^bt\.json(:\d+)?: /);
    assert.match(error.message, where);
    return true;
  });
}

const VERSIONS = '{"Julia":"1.11.2","BenchmarkTools":"1.6.0"}';
const trial = (times: unknown, type = 'Trial') => `["${type}",{"allocs":1,"gctimes":[0],"memory":16,"params":["Parameters",{"evals":1}],"times":${JSON.stringify(times)}}]`;
const group = (data: Record<string, string>) => `["BenchmarkGroup",{"data":{${Object.entries(data).map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}},"tags":[]}]`;

describe('juliaBenchmarkToolsReader', () => {
  for (const fixture of FIXTURES) {
    it(`reads ${fixture} as migration_expected.py does`, () => {
      assertMatchesExpected(juliaBenchmarkToolsReader.read(loadFixture(fixture)), expectedFor(fixture));
    });
    it(`sniffs ${fixture}`, () => {
      assert.equal(juliaBenchmarkToolsReader.sniff(loadFixture(fixture).text.slice(0, 4096)), true);
    });
  }

  it('reads every raw sample of a Trial in ns, memory and allocs once, group keys joined by /', () => {
    const { measurements, warnings, hints } = juliaBenchmarkToolsReader.read(loadFixture('julia/suite-handwritten.json'));
    const quick = measurements.filter((m) => m.benchmark === 'sort/quick');
    assert.deepEqual(quick.map((m) => [m.metric, m.unit, m.better, m.values.length]), [['time', 'ns', 'lower', 12], ['memory', 'B', 'lower', 1], ['allocs', 'count', 'lower', 1]]);
    assert.ok(measurements.some((m) => m.benchmark === 'parse/json/("small", 10)'), 'tuple keys kept as saved');
    assert.equal(warnings.length, 0);
    assert.deepEqual(hints, { julia: '1.11.2', benchmarktools: '1.6.0' });
  });

  it('a TrialEstimate is one value with a summary-only warning, named as github-action-benchmark names it', () => {
    const { measurements, warnings } = juliaBenchmarkToolsReader.read(loadFixture('julia/public-gab-julia-estimates.json'));
    assert.deepEqual(measurements.filter((m) => m.metric === 'time').map((m) => [m.benchmark, m.values]), [['fib/10', [246.03846153846155]], ['fib/20', [31028]]]);
    assert.deepEqual(warnings.map((w) => w.kind), ['summary-only', 'summary-only']);
  });

  it('continues the series `benchbot import` makes of the data.js the action wrote from the same file', () => {
    // The action's julia tool (extractJuliaBenchmarkHelper): labels joined by /, value = TrialEstimate time, unit ns.
    type Tagged = [string, { data: Record<string, Tagged>; time: number }];
    const [, values] = JSON.parse(loadFixture('julia/public-gab-julia-estimates.json').text) as [unknown, Tagged[]];
    const benches: { name: string; value: number; unit: string }[] = [];
    const walk = ([type, fields]: Tagged, labels: string[]) => {
      if (type === 'BenchmarkGroup') for (const key in fields.data) walk(fields.data[key], [...labels, key]);
      else benches.push({ name: labels.join('/'), value: fields.time, unit: 'ns' });
    };
    for (const v of values) walk(v, []);
    const dataJs = `window.BENCHMARK_DATA = ${JSON.stringify({ entries: { Benchmark: [{ commit: { id: 'b'.repeat(40), timestamp: '2025-01-01T00:00:00Z' }, date: 1735689600000, tool: 'julia', benches }] } })}`;
    const imported = parseGithubActionBenchmark(dataJs, 'data.js').runs[0].measurements;
    const read = juliaBenchmarkToolsReader.read(loadFixture('julia/public-gab-julia-estimates.json')).measurements.filter((m) => m.metric === 'time');
    assert.deepEqual(read, imported);
  });

  it('skips Parameters and names a Trial saved outside a group by its position', () => {
    const { measurements } = juliaBenchmarkToolsReader.read(loadFixture('julia/params-and-trial-handwritten.json'));
    assert.deepEqual([...new Set(measurements.map((m) => m.benchmark))], ['#1']);
    assert.equal(measurements[0].values.length, 10);
  });

  it('reads the BenchmarkTools.-prefixed type names of old versions', () => {
    const { measurements } = read(`[${VERSIONS},[["BenchmarkTools.BenchmarkGroup",{"data":{"a":${trial([1, 2], 'BenchmarkTools.Trial')}},"tags":[]}]]]`);
    assert.deepEqual(measurements[0].values, [1, 2]);
  });

  it('skips ratios and judgements', () => {
    const { measurements } = read(`[${VERSIONS},[${group({ a: trial([5]), r: '["TrialRatio",{"time":1.1}]', j: '["TrialJudgement",{"ratio":["TrialRatio",{}]}]' })}]]`);
    assert.deepEqual(measurements.map((m) => m.benchmark), ['a', 'a', 'a']);
  });

  it('sniff: only the versions object of BenchmarkTools.save', () => {
    assert.equal(juliaBenchmarkToolsReader.sniff('[{"BenchmarkTools":"1.0.0","Julia":"1.7.0"},['), true);
    assert.equal(juliaBenchmarkToolsReader.sniff('[{"name":"a","unit":"ns","value":1}]'), false);
    assert.equal(juliaBenchmarkToolsReader.sniff('{"Julia":"1.7","BenchmarkTools":"1.0"}'), false);
    assert.equal(juliaBenchmarkToolsReader.sniff(loadFixture('github-action-benchmark/public-gab-custom-bigger.json').text), false);
  });

  describe('malformed input', () => {
    it('not an array', () => assertFormatError('{"a":1}', /\$: expected an array/));
    it('wrong length', () => assertFormatError(`[${VERSIONS}]`, /\$: expected \[versions, values\]/));
    it('values not an array', () => assertFormatError(`[${VERSIONS},{}]`, /\[1\]: expected an array/));
    it('nothing measured', () => assertFormatError(`[${VERSIONS},[["Parameters",{}]]]`, /no Trial or TrialEstimate/));
    it('untagged value', () => assertFormatError(`[${VERSIONS},[{"times":[1]}]]`, /\[1\]\[0\]: expected an array/));
    it('unknown type', () => assertFormatError(`[${VERSIONS},[["Benchmark",{}]]]`, /\[1\]\[0\]\[0\]: unknown BenchmarkTools type "Benchmark"/));
    it('empty times', () => assertFormatError(`[${VERSIONS},[${group({ a: trial([]) })}]]`, /\.data\["a"\]\[1\]\.times: no samples/));
    it('time as a string', () => assertFormatError(`[${VERSIONS},[${group({ a: trial([1, '2']) })}]]`, /\.data\["a"\]\[1\]\.times\[1\]: expected a finite number/));
    it('negative time', () => assertFormatError(`[${VERSIONS},[${group({ a: trial([1, -2]) })}]]`, /\.times: negative time/));
    it('group without data', () => assertFormatError(`[${VERSIONS},[["BenchmarkGroup",{"tags":[]}]]]`, /\[1\]\[0\]\[1\]\.data: expected an object/));
    it('groups nested too deep', () => {
      let nested = trial([1]);
      for (let i = 0; i < 70; i++) nested = group({ g: nested });
      assertFormatError(`[${VERSIONS},[${nested}]]`, /nested more than 64 deep/);
    });
    it('negative memory', () => assertFormatError(`[${VERSIONS},[${group({ a: trial([1]).replace('"memory":16', '"memory":-1') })}]]`, /\[1\]\.memory: is -1/));
  });
});
