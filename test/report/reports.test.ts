import { test } from 'node:test';
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { compareRuns, type CompareSide } from '../../src/compare/compare-runs.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { renderMarkdown, GITHUB_COMMENT_LIMIT, REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { renderText } from '../../src/report/text-report.ts';
import { renderJson } from '../../src/report/json-report.ts';
import { googleBenchmarkReader } from '../../src/formats/google-benchmark.ts';
import { assertGolden } from '../support/golden.ts';
import { loadFixture } from '../support/fixtures.ts';
import { lognormalSamples } from '../support/samples.ts';

const golden = (name: string) => fileURLToPath(new URL(`golden/${name}`, import.meta.url));
const side = (measurements: Measurement[], hints = {}): CompareSide => ({ measurements, warnings: [], hints });
const m = (benchmark: string, metric: string, unit: string, values: number[], better: 'lower' | 'higher' = 'lower'): Measurement => ({ benchmark, metric, unit, better, values });

/** A small suite with one of everything a report must show. */
function mixedReport() {
  const base = side([
    m('BM_Parse/64', 'real_time', 'ns', lognormalSamples(12, 1520, 0.01, 1)),
    m('BM_Parse/4096', 'real_time', 'ns', lognormalSamples(12, 98_000, 0.01, 2)),
    m('BM_Encode', 'bytes_per_second', 'bytes/s', lognormalSamples(12, 2.1e9, 0.01, 3), 'higher'),
    m('BM_Hash|pipe', 'real_time', 'ns', lognormalSamples(12, 310, 0.004, 4)),
    m('BM_Noisy', 'real_time', 'us', lognormalSamples(12, 40, 0.15, 5)),
    m('BM_Gone', 'real_time', 'ns', [5, 6, 7]),
  ], { host_name: 'runner-1', library_build_type: 'release' });
  const head = side([
    m('BM_Parse/64', 'real_time', 'ns', lognormalSamples(12, 1700, 0.01, 11)),
    m('BM_Parse/4096', 'real_time', 'ns', lognormalSamples(12, 98_100, 0.01, 12)),
    m('BM_Encode', 'bytes_per_second', 'bytes/s', lognormalSamples(12, 2.5e9, 0.01, 13), 'higher'),
    m('BM_Hash|pipe', 'real_time', 'ns', lognormalSamples(12, 311, 0.004, 14)),
    m('BM_Noisy', 'real_time', 'us', lognormalSamples(12, 44, 0.15, 15)),
    m('BM_New', 'real_time', 'ns', [5, 6, 7]),
  ], { host_name: 'runner-1', library_build_type: 'release' });
  return compareRuns(base, head);
}

test('markdown, text and JSON reports of a mixed suite match their golden files', () => {
  const report = mixedReport();
  assertGolden(golden('mixed.md'), renderMarkdown(report, { environment: 'runner-1, 2 cores' }));
  assertGolden(golden('mixed.txt'), renderText(report));
  assertGolden(golden('mixed.json'), renderJson(report));
});

test('markdown: headline, significant rows first, the rest collapsed, escaped names, hidden marker', () => {
  const md = renderMarkdown(mixedReport());
  assert.ok(md.startsWith(REPORT_MARKER));
  assert.match(md, /### benchbot: 1 regression: <code>BM_Parse\/64<\/code> \+1\d\.\d%\. Look at it before merging\.\n\n7 benchmarks: 1 regression, 1 improvement, 2 unchanged, 1 undecided \(no change beyond [+±-]\d+\.\d%\), 1 new, 1 removed\.\n/);
  const table = md.slice(0, md.indexOf('<details>'));
  assert.ok(table.indexOf('BM_Parse/64') < table.indexOf('BM_Encode'), 'regression before improvement');
  assert.ok(!table.includes('BM_Parse/4096'), 'unchanged rows are collapsed');
  assert.match(md, /<code>BM_Hash&#124;pipe<\/code>/, 'a | in a name is escaped so the table holds');
});

test('JSON report has the documented shape', () => {
  const json = JSON.parse(renderJson(mixedReport()));
  assert.deepEqual(Object.keys(json.summary).sort(), ['error', 'geomean_ratio', 'improved', 'inconclusive', 'new', 'regressed', 'removed', 'unchanged']);
  const c = json.comparisons.find((x: { benchmark: string }) => x.benchmark === 'BM_Parse/64');
  const required = ['base', 'benchmark', 'better', 'head', 'metric', 'p', 'q', 'ratio', 'ratio_ci', 'unit', 'verdict', 'warnings'];
  const optional = ['bound', 'bound_side', 'ci_level', 'decided_at', 'decision', 'detectable', 'equivalence_ci', 'family', 'pooled_base', 'suggested_threshold', 'threshold'];
  for (const key of required) assert.ok(key in c, `missing ${key}`);
  for (const key of Object.keys(c)) assert.ok(required.includes(key) || optional.includes(key), `undocumented field ${key}`);
  assert.equal(c.family, 'primary');
  assert.equal(c.bound_side, 'slower');
  assert.equal(c.verdict, 'regressed');
  assert.ok(c.ratio_ci[0] < c.ratio && c.ratio < c.ratio_ci[1]);
});

test('a huge suite stays under GitHub\'s comment limit and says rows were left out', () => {
  const names = Array.from({ length: 3000 }, (_, i) => `BM_Some/Rather/Long/Benchmark/Name/${i}`);
  const report = compareRuns(
    side(names.map((n, i) => m(n, 'real_time', 'ns', lognormalSamples(10, 100, 0.01, i)))),
    side(names.map((n, i) => m(n, 'real_time', 'ns', lognormalSamples(10, i % 3 === 0 ? 120 : 100, 0.01, 10_000 + i)))),
  );
  const md = renderMarkdown(report);
  assert.ok(md.length <= GITHUB_COMMENT_LIMIT, `${md.length} characters`);
  assert.match(md, /rows? left out to stay under GitHub's 65,536-character comment limit/);
  assert.match(md, /1000 regressions/);
});

test('the stumpless walkthrough case: head ~17% faster and CallsToRealloc from many to 2 are both improvements', () => {
  const read = (name: string) => googleBenchmarkReader.read(loadFixture(`google-benchmark/${name}`));
  const report = compareRuns(read('stumpless-like-base.json'), read('stumpless-like-head.json'));
  const build = report.comparisons.filter((c) => c.benchmark === 'BM_StringBuild/512');
  const time = build.find((c) => c.metric === 'cpu_time');
  const realloc = build.find((c) => c.metric === 'CallsToRealloc');
  assert.ok(time && realloc, `found ${build.map((c) => c.metric)}`);
  assert.equal(time.verdict, 'improved');
  assert.ok((time.ratio as number) < 0.9, `time ratio ${time.ratio}`);
  assert.equal(realloc.verdict, 'improved');
  assert.equal(realloc.head?.median, 2);
});
