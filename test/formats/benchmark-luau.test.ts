import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { fileURLToPath } from 'node:url';
import { benchmarkLuauReader } from '../../src/formats/benchmark-luau.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import { parseGithubActionBenchmark } from '../../src/store/github-action-benchmark.ts';
import { assertMatchesExpected, expectedFor, loadFixture } from '../support/fixtures.ts';

const FIXTURE = 'luau/public-gab-benchmarkluau.txt';

// What github-action-benchmark's own test expects its benchmarkluau extractor
// to read from this very file (test/extract.spec.ts at commit 64f8b4b8,
// `tool: 'benchmarkluau'`); range and extra are its display strings.
const GAB_EXPECTED = [
  { name: 'base64', range: '±0.636%', unit: 'ms', value: 15.041, extra: 'luau' },
  { name: 'chess', range: '±0.212%', unit: 'ms', value: 69.56, extra: 'luau' },
  { name: 'life', range: '±0.187%', unit: 'ms', value: 85.089, extra: 'luau' },
];

function assertFormatError(text: string, where: RegExp) {
  assert.throws(() => benchmarkLuauReader.read({ path: 'luau.txt', text }), (error: unknown) => {
    assert.ok(error instanceof FormatError, `expected FormatError, got ${String(error)}`);
    assert.match(error.message, where);
    return true;
  });
}

describe('benchmarkluau (Luau bench/bench.py console output)', () => {
  it('reads the fixture as luau/expected.py reads its RESULTS table', () => {
    assertMatchesExpected(benchmarkLuauReader.read(loadFixture(FIXTURE)), expectedFor(FIXTURE));
  });

  it('reads the names, values and units github-action-benchmark\'s extractor reads from the same file, in its order', () => {
    const { measurements, warnings } = benchmarkLuauReader.read(loadFixture(FIXTURE));
    assert.deepEqual(measurements.map((m) => ({ name: m.benchmark, value: m.values[0], unit: m.unit })), GAB_EXPECTED.map(({ name, value, unit }) => ({ name, value, unit })));
    assert.ok(measurements.every((m) => m.values.length === 1 && m.better === 'lower' && m.metric === 'time'));
    assert.deepEqual(warnings.map((w) => w.kind), ['summary-only']);
  });

  it('gives the series `benchbot import` makes of the data.js github-action-benchmark writes from the same file, so new runs continue the imported history', () => {
    const benches = GAB_EXPECTED;
    const dataJs = `window.BENCHMARK_DATA = ${JSON.stringify({ lastUpdate: 1, repoUrl: 'https://github.com/o/r', entries: { Benchmark: [{ commit: { id: 'a'.repeat(40), timestamp: '2025-01-01T00:00:00Z' }, date: 1735689600000, tool: 'benchmarkluau', benches }] } }, null, 2)}`;
    const imported = parseGithubActionBenchmark(dataJs, 'data.js').runs[0].measurements;
    assert.deepEqual(benchmarkLuauReader.read(loadFixture(FIXTURE)).measurements, imported);
  });

  it('names each series by its driver when a file holds several, and adds a repeated line as a value', () => {
    const text = loadFixture(FIXTURE).text;
    const lua = text.split('\n').filter((l) => l.startsWith('SUCCESS:')).map((l) => l.replace(/on luau$/, 'on lua').replace('15.041ms', '20.5ms')).join('\n');
    const both = benchmarkLuauReader.read({ path: 'two-drivers.txt', text: `${text}\n${lua}\n` }).measurements;
    assert.deepEqual(both.map((m) => m.benchmark), ['base64 (luau)', 'chess (luau)', 'life (luau)', 'base64 (lua)', 'chess (lua)', 'life (lua)']);
    assert.deepEqual(both.find((m) => m.benchmark === 'base64 (lua)')?.values, [20.5]);
    const twice = benchmarkLuauReader.read({ path: 'twice.txt', text: `${text}${text}` }).measurements;
    assert.deepEqual(twice.find((m) => m.benchmark === 'chess')?.values, [69.56, 69.56]);
    // A later run in seconds joins the series in its first unit.
    const seconds = benchmarkLuauReader.read({ path: 's.txt', text: `${text}SUCCESS: chess : 0.07s +/- 0.1% on luau\n` }).measurements;
    assert.deepEqual(seconds.find((m) => m.benchmark === 'chess')?.values, [69.56, 70]);
  });

  it('is detected by content, and a SUCCESS line of another shape is an error naming its line', () => {
    const head = loadFixture(FIXTURE).text;
    assert.equal(benchmarkLuauReader.sniff(head), true);
    assert.equal(benchmarkLuauReader.sniff('SUCCESS: build finished\nBenchmarkFoo-8  100  12 ns/op\n'), false);
    assertFormatError('SUCCESS: base64 : 15.041ms +/- 0.636% on luau\nSUCCESS: chess : fast +/- 1% on luau\n', /^luau\.txt:2: cannot read this SUCCESS line/);
    assertFormatError('SUCCESS: base64 : NaNms +/- 0.636% on luau\n', /^luau\.txt:1: /);
    assertFormatError('Test | Min | Average\nbase64 | 1ms | 2ms\n', /^luau\.txt: no "SUCCESS: name : 1\.234ms/);
    assertFormatError('SUCCESS: chess : 1ms +/- 1% on luau\nSUCCESS: chess : 1 +/- 1% on luau\n', /^luau\.txt:2: /);
  });

  it('benchbot parse detects it and prints the measurements', () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const run = spawnSync(process.execPath, [join(root, 'bin/benchbot.js'), 'parse', `fixtures/${FIXTURE}`], { cwd: root, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    const out = JSON.parse(run.stdout) as { format: string; measurements: { benchmark: string; values: number[] }[] };
    assert.equal(out.format, 'benchmarkluau');
    assert.deepEqual(out.measurements.map((m) => [m.benchmark, m.values]), GAB_EXPECTED.map((g) => [g.name, [g.value]]));
  });
});
