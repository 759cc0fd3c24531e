import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareRuns, type CompareSide, type ComparisonReport } from '../../src/compare/compare-runs.ts';
import { readCriterionDirectory } from '../../src/formats/criterion.ts';
import { goBenchReader } from '../../src/formats/go-bench.ts';
import type { SourceFile } from '../../src/formats/reader.ts';
import type { Comparison } from '../../src/model/comparison.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { formatQuantity, formatRatio, changeWords } from '../../src/report/format-numbers.ts';
import { renderMarkdown } from '../../src/report/markdown-report.ts';
import { boundOf, formatBound, layoutReport, type Bound } from '../../src/report/report-layout.ts';
import { headline } from '../../src/report/report-order.ts';
import { renderText } from '../../src/report/text-report.ts';
import { FIXTURES, loadFixture } from '../support/fixtures.ts';
import { assertGolden } from '../support/golden.ts';
import { lognormalSamples } from '../support/samples.ts';

const golden = (name: string) => fileURLToPath(new URL(`golden/${name}`, import.meta.url));
const side = (measurements: Measurement[], hints = {}): CompareSide => ({ measurements, warnings: [], hints });
const m = (benchmark: string, metric: string, unit: string, values: number[], better: 'lower' | 'higher' = 'lower'): Measurement => ({ benchmark, metric, unit, better, values });

function treeFiles(dir: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const full = join(d, entry.name);
      if (entry.isDirectory()) walk(full);
      else files.push(loadFixture(relative(FIXTURES, full)));
    }
  };
  walk(join(FIXTURES, dir));
  return files;
}

const goSide = (name: string): CompareSide => goBenchReader.read(loadFixture(`comparisons/${name}`));

test('Go -benchmem comparison (real go test output): MB/s folded into the time row, 0 B/op and 0 allocs/op on one line, 3x reads as a factor', () => {
  const report = compareRuns(goSide('go-benchmem-base.txt'), goSide('go-benchmem-head.txt'));
  const md = renderMarkdown(report, { environment: 'capture machine, 2 cores' });
  const text = renderText(report);
  assertGolden(golden('go-benchmem.md'), md);
  assertGolden(golden('go-benchmem.txt'), text);

  const layout = layoutReport(report);
  // One row per benchmark: the MB/s of Adler32 agrees with its time and is folded.
  const adler = layout.rows.filter((r) => r.comparison.benchmark.includes('Adler32'));
  assert.equal(adler.filter((r) => r.comparison.metric === 'MB/s').length, 0, 'MB/s rows folded');
  assert.ok(adler.filter((r) => r.comparison.metric === 'time').every((r) => r.folded.some((f) => f.metric === 'MB/s')), 'MB/s folded into each time row');
  const constant = layout.constants.flatMap((g) => g.values.map((v) => `${g.metric}=${v.value}`));
  assert.ok(constant.includes('allocs/op=0'), constant.join());
  assert.match(md, /Constant on both sides, unchanged: .*<code>allocs\/op<\/code> = 0/);
  assert.ok(!/\| <code>allocs\/op<\/code>/.test(md), 'no constant allocs/op row in the tables');
  // The 4096-byte case runs three times the work: a factor, not +200%.
  assert.match(md, /\*\*[23]\.\dx slower\*\* \[/);
  assert.doesNotMatch(md, /\+[1-9]\d\d%/);
  assert.match(text, /^(\d+ regressions?|1 regression)/);
});

test('criterion throughput comparison (real target/criterion trees): byte and element throughput folded into the time rows', () => {
  // Three alternating rounds per side, each a whole `cargo bench`: the readers' results pooled as `benchbot compare a,b,c x,y,z` does.
  const criterionSide = (role: string): CompareSide => {
    const rounds = [1, 2, 3].map((r) => readCriterionDirectory(treeFiles(`comparisons/criterion-${role}-${r}`)));
    return { measurements: rounds.flatMap((r) => r.measurements), warnings: rounds.flatMap((r) => r.warnings), hints: {} };
  };
  const report = compareRuns(criterionSide('base'), criterionSide('head'));
  const md = renderMarkdown(report, { environment: 'capture machine, 2 cores' });
  assertGolden(golden('criterion-throughput.md'), md);
  assertGolden(golden('criterion-throughput.txt'), renderText(report));
  const layout = layoutReport(report);
  const withThroughput = report.comparisons.filter((c) => c.metric === 'throughput');
  assert.ok(withThroughput.length >= 4, `${withThroughput.length} throughput comparisons`);
  const shownThroughput = layout.rows.filter((r) => r.comparison.metric === 'throughput');
  const time = (b: string) => report.comparisons.find((c) => c.benchmark === b && c.metric === 'time') as Comparison;
  // A throughput row appears only where its verdict differs from its time's.
  for (const r of shownThroughput) assert.notEqual(r.comparison.verdict, time(r.comparison.benchmark).verdict);
  assert.equal(layout.rows.length, new Set(report.comparisons.map((c) => c.benchmark)).size + shownThroughput.length);
  assert.match(md, /folded into the time's row: <code>throughput<\/code> \(\d+\)/);
});

test('a second time metric is folded when it agrees and shown when its verdict differs', () => {
  const names = ['BM_A', 'BM_B'];
  const base = side(names.flatMap((n, i) => [m(n, 'real_time', 'ns', lognormalSamples(20, 100, 0.01, i)), m(n, 'cpu_time', 'ns', lognormalSamples(20, 100, 0.01, 10 + i))]));
  const head = side([
    m('BM_A', 'real_time', 'ns', lognormalSamples(20, 110, 0.01, 20)), m('BM_A', 'cpu_time', 'ns', lognormalSamples(20, 110, 0.01, 21)),
    // BM_B: wall time grew (waiting on I/O), CPU time did not: the cpu_time row tells something different.
    m('BM_B', 'real_time', 'ns', lognormalSamples(20, 110, 0.01, 22)), m('BM_B', 'cpu_time', 'ns', lognormalSamples(20, 100, 0.01, 23)),
  ]);
  const layout = layoutReport(compareRuns(base, head));
  const shown = layout.rows.map((r) => `${r.comparison.benchmark} ${r.comparison.metric} ${r.comparison.verdict}${r.folded.length ? ` +${r.folded.map((f) => f.metric)}` : ''}`).sort();
  assert.deepEqual(shown, ['BM_A real_time regressed +cpu_time', 'BM_B cpu_time unchanged', 'BM_B real_time regressed']);
});

test('warnings are grouped by kind: one line naming the benchmarks, not one per benchmark and metric', () => {
  const names = ['BM_X', 'BM_Y', 'BM_Z'];
  const report = compareRuns(
    side(names.flatMap((n, i) => [m(n, 'real_time', 'ns', lognormalSamples(5, 100, 0.01, i)), m(n, 'cpu_time', 'ns', lognormalSamples(5, 100, 0.01, 10 + i))])),
    side(names.flatMap((n, i) => [m(n, 'real_time', 'ns', lognormalSamples(5, 100, 0.01, 20 + i)), m(n, 'cpu_time', 'ns', lognormalSamples(5, 100, 0.01, 30 + i))])),
  );
  // Before grouping: 3 benchmarks x 2 metrics x 2 sides = 12 "too few samples" lines.
  assert.equal(report.comparisons.flatMap((c) => c.warnings).filter((w) => w.startsWith('too few samples')).length, 12);
  const md = renderMarkdown(report);
  const lines = md.split('\n').filter((l) => l.includes('too few samples'));
  assert.deepEqual(lines, ['- **too few samples**: <code>BM_X</code> (base and head), <code>BM_Y</code> (base and head), <code>BM_Z</code> (base and head). Fewer than 9 samples on a side.']);
  assert.equal(renderText(report).split('\n').filter((l) => l.includes('too few samples')).length, 1);
});

test('the footer states the confidence asked for and explains the per-look alpha in words', () => {
  const report: ComparisonReport = {
    ...compareRuns(side([m('BM_A', 'time', 'ns', lognormalSamples(40, 100, 0.01, 1))]), side([m('BM_A', 'time', 'ns', lognormalSamples(40, 100, 0.01, 2))]), { threshold: 0.02, alpha: 0.0086, rules: [] }),
    overallAlpha: 0.05,
  };
  const md = renderMarkdown(report);
  assert.match(md, /Verdicts at the 95% confidence asked for \(alpha 0\.05\): sampling looked at the data several times, so this look was tested at alpha 0\.0086 \(99\.1% intervals\), which keeps the error of all looks together at 5%\./);
  assert.doesNotMatch(md, /CI level 99%/);
  assert.match(renderText(report), /95% confidence asked for/);
  const single = renderMarkdown(compareRuns(side([m('BM_A', 'time', 'ns', [1, 2, 3])]), side([m('BM_A', 'time', 'ns', [1, 2, 3])])));
  assert.match(single, /Verdicts at 95% confidence \(alpha 0\.05, 95% intervals\)/);
});

test('the headline is one line of non-zero counts, with what the undecided ruled out', () => {
  const counts = { regressed: 1, improved: 0, unchanged: 10, inconclusive: 1, new: 0, removed: 0, error: 0 };
  assert.equal(headline(counts, { value: 0.031, sign: '+' }), '1 regression, 10 unchanged, 1 undecided (no change beyond +3.1%)');
  assert.equal(headline({ ...counts, inconclusive: 3 }, { value: 0.042, sign: '-' }), '1 regression, 10 unchanged, 3 undecided (none changed beyond ±4.2%)');
  assert.equal(headline({ ...counts, regressed: 0, inconclusive: 0 }), '10 unchanged');
  assert.equal(headline({ ...counts, regressed: 0, unchanged: 0, inconclusive: 0 }), 'no comparisons');
});

test('an undecided comparison says what it ruled out, signed when the other side is inside the threshold', () => {
  const undecided = (equivalenceCi: [number, number]): Comparison => ({
    benchmark: 'BM', metric: 'time', unit: 'ns', better: 'lower', base: null, head: null, ratio: 1.01, ratioCi: equivalenceCi,
    p: 0.3, q: 0.3, verdict: 'inconclusive', warnings: [], threshold: 0.02, equivalenceCi,
  });
  assert.equal(boundOf(undecided([0.99, 1.031]))?.sign, '+');
  assert.equal(formatBound(boundOf(undecided([0.99, 1.031])) as Bound), '+3.1%');
  assert.equal(formatBound(boundOf(undecided([0.95, 1.01])) as Bound), '-5.0%');
  assert.equal(formatBound(boundOf(undecided([0.965, 1.033])) as Bound), '±3.5%');
  // Higher-is-better: a throughput CI [0.97, 1.005] is a cost CI [0.995, 1.031].
  assert.equal(formatBound(boundOf({ ...undecided([0.97, 1.005]), better: 'higher' }) as Bound), '+3.1%');
});

test('units read as units, and a change beyond 2x as a factor', () => {
  assert.equal(formatQuantity(3.6e9, 'bytes/s'), '3.60 GB/s');
  assert.equal(formatQuantity(14_400, 'MB/s'), '14.4 GB/s');
  assert.equal(formatQuantity(368.78 * 2 ** 20, 'B/s'), '387 MB/s');
  assert.equal(formatQuantity(14_400, 'MiB/s'), '14.1 GiB/s');
  assert.equal(formatQuantity(2.3e6, 'elem/s'), '2.30 Melem/s');
  assert.equal(formatQuantity(0, 'B/op'), '0 B/op');
  assert.equal(formatQuantity(616, 'B/op'), '616 B/op');
  assert.equal(formatQuantity(1.2e6, 'items/s'), '1.20M items/s');
  const time = changeWords('ns', 'lower');
  assert.equal(formatRatio(31, [29, 33], time), '31x slower [29x, 33x]');
  assert.equal(formatRatio(1 / 31, [1 / 33, 1 / 29], time), '31x faster [29x, 33x]');
  assert.equal(formatRatio(0.5, [0.45, 0.55], changeWords('MB/s', 'higher')), '2.0x slower [1.8x, 2.2x]');
  assert.equal(formatRatio(40, null, changeWords('allocs/op', 'lower')), '40x more');
  assert.equal(formatRatio(1.11, [1.1, 1.12], time), '+11.0% [+10.0%, +12.0%]');
});
