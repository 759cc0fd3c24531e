import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareRuns, type CompareSide, type ComparisonReport } from '../../src/compare/compare-runs.ts';
import { readCriterionDirectory } from '../../src/formats/criterion.ts';
import { goBenchReader } from '../../src/formats/go-bench.ts';
import { googleBenchmarkReader } from '../../src/formats/google-benchmark.ts';
import type { SourceFile } from '../../src/formats/reader.ts';
import type { Comparison } from '../../src/model/comparison.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { formatQuantity, formatRatio, changeWords } from '../../src/report/format-numbers.ts';
import { renderMarkdown } from '../../src/report/markdown-report.ts';
import { actionHeadline, boundOf, countsLine, formatBound, layoutReport, type Bound } from '../../src/report/report-layout.ts';
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

test('Go -benchmem comparison (real go test output): MB/s beside the time in its row, 0 B/op and 0 allocs/op on one line, 3x reads as a factor', () => {
  const report = compareRuns(goSide('go-benchmem-base.txt'), goSide('go-benchmem-head.txt'));
  const md = renderMarkdown(report, { environment: 'capture machine, 2 cores' });
  const text = renderText(report);
  assertGolden(golden('go-benchmem.md'), md);
  assertGolden(golden('go-benchmem.txt'), text);

  const layout = layoutReport(report);
  // One row per benchmark, the time primary: the MB/s of Adler32 is said beside it.
  assert.equal(layout.rows.length, new Set(report.comparisons.map((c) => c.benchmark)).size, 'one row per benchmark');
  const adler = layout.rows.filter((r) => r.comparison.benchmark.includes('Adler32'));
  assert.ok(adler.every((r) => r.comparison.metric === 'time' && r.others.some((o) => o.metric === 'MB/s')), 'MB/s beside each time');
  assert.match(md, /\| <code>BenchmarkAdler32\/size=4096<\/code> \| <code>time<\/code> \|.*\| 🔴 regressed ⚠️ \| 🔴 regressed: <code>MB\/s<\/code> 3\.\dx slower \|/);
  const constant = layout.constants.flatMap((g) => g.values.map((v) => `${g.metric}=${v.value}`));
  assert.ok(constant.includes('allocs/op=0'), constant.join());
  assert.match(md, /Constant on both sides, unchanged, left out of the table: .*<code>allocs\/op<\/code> = 0/);
  assert.ok(!/\| <code>allocs\/op<\/code>/.test(md), 'no constant allocs/op row in the tables');
  // The 4096-byte case runs three times the work: a factor, not +200%.
  assert.match(md, /\*\*[23]\.\dx slower\*\* \[/);
  assert.doesNotMatch(md, /\+[1-9]\d\d%/);
  assert.match(text, /^1 regression: BenchmarkAdler32\/size=4096 3\.\dx slower\. Look at it before merging\.\n4 benchmarks: 1 regression, 3 undecided/);
});

test('criterion throughput comparison (real target/criterion trees): byte and element throughput beside the time in its row', () => {
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
  // The time is primary in every row; each throughput is beside its own benchmark's time, whatever its verdict.
  assert.equal(layout.rows.length, new Set(report.comparisons.map((c) => c.benchmark)).size);
  assert.ok(layout.rows.every((r) => r.comparison.metric === 'time'));
  for (const c of withThroughput) assert.ok(layout.rows.find((r) => r.comparison.benchmark === c.benchmark)?.others.includes(c), c.benchmark);
  assert.match(md, /Other metrics/);
});

test('one row per benchmark: a second time metric is beside the primary whatever its verdict, and its regression ranks the row and names it in the headline', () => {
  const names = ['BM_A', 'BM_B', 'BM_C'];
  const base = side(names.flatMap((n, i) => [m(n, 'real_time', 'ns', lognormalSamples(20, 100, 0.01, i)), m(n, 'cpu_time', 'ns', lognormalSamples(20, 100, 0.01, 10 + i))]));
  const head = side([
    m('BM_A', 'real_time', 'ns', lognormalSamples(20, 110, 0.01, 20)), m('BM_A', 'cpu_time', 'ns', lognormalSamples(20, 110, 0.01, 21)),
    // BM_B: wall time grew (waiting on I/O), CPU time did not.
    m('BM_B', 'real_time', 'ns', lognormalSamples(20, 110, 0.01, 22)), m('BM_B', 'cpu_time', 'ns', lognormalSamples(20, 100, 0.01, 23)),
    // BM_C: the primary real_time did not move, the CPU time did: that fails the check, so the row counts as a regression.
    m('BM_C', 'real_time', 'ns', lognormalSamples(20, 100, 0.01, 24)), m('BM_C', 'cpu_time', 'ns', lognormalSamples(20, 115, 0.01, 25)),
  ]);
  const report = compareRuns(base, head);
  const layout = layoutReport(report);
  const shown = layout.rows.map((r) => `${r.comparison.benchmark} ${r.comparison.metric} ${r.comparison.verdict} [${r.others.map((o) => `${o.metric} ${o.verdict}`)}] -> ${r.verdict}`).sort();
  assert.deepEqual(shown, [
    'BM_A real_time regressed [cpu_time regressed] -> regressed',
    'BM_B real_time regressed [cpu_time unchanged] -> regressed',
    'BM_C real_time unchanged [cpu_time regressed] -> regressed',
  ]);
  assert.equal(report.summary.regressed, 4, 'the exit status counts comparisons');
  assert.equal(countsLine(report), '3 regressions', 'the check run title counts benchmarks, as the comment does');
  const md = renderMarkdown(report);
  assert.match(md, /^<!-- benchbot:report -->\n### benchbot: 3 regressions: <code>BM_C<\/code> <code>cpu_time<\/code> \+1\d\.\d+%, <code>BM_[AB]<\/code> \+\d+\.\d+%, <code>BM_[AB]<\/code> \+\d+\.\d+%\. Look at them before merging\.\n\n3 benchmarks: 3 regressions\.\n/);
  assert.match(md, /\| <code>BM_C<\/code> \| <code>real_time<\/code> \|.*\| unchanged \| 🔴 regressed: <code>cpu_time<\/code> \+1\d\.\d+% \|/);
  assert.match(md, /\| <code>BM_B<\/code> \| <code>real_time<\/code> \|.*\| 🔴 regressed \| unchanged: <code>cpu_time<\/code> \|/);
  assert.match(renderText(report), /^BM_C +real_time .* unchanged +regressed: cpu_time \+1\d\.\d+%$/m);
  // A nightly's summary (the head already merged) asks to look, not to hold a merge.
  assert.match(renderMarkdown(report, { merged: true }).split('\n')[1], /\. Look at them\.$/);
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

test('golden: a Google Benchmark pair with real_time, cpu_time and counters (captured) reads as one row per benchmark', () => {
  const read = (name: string) => googleBenchmarkReader.read(loadFixture(`google-benchmark/${name}`));
  const report = compareRuns(read('stumpless-like-base.json'), read('stumpless-like-head.json'));
  const md = renderMarkdown(report, { environment: 'capture machine, 2 cores' });
  assertGolden(golden('google-benchmark-counters.md'), md);
  const rows = md.split('\n').filter((l) => l.startsWith('| <code>'));
  const benchmarks = new Set(report.comparisons.map((c) => c.benchmark));
  assert.equal(rows.length, benchmarks.size, 'one table row per benchmark');
  for (const b of benchmarks) assert.equal(rows.filter((r) => r.startsWith(`| <code>${b}</code> |`)).length, 1, b);
  // Every benchmark with a regressed metric, primary or not, is named in the headline: the exit status fails on any of them.
  const regressed = [...new Set(report.comparisons.filter((c) => c.verdict === 'regressed').map((c) => c.benchmark))];
  assert.ok(regressed.length > 0 && report.summary.regressed > 0);
  const heading = md.split('\n')[1];
  assert.match(heading, new RegExp(`^### benchbot: ${regressed.length} regressions?: `));
  for (const b of regressed) assert.ok(heading.includes(`<code>${b}</code>`), `${b} in ${heading}`);
  // The footer: the statistics behind a <details> (its summary one line), then one line with the environment.
  const footer = md.slice(md.lastIndexOf('<details><summary>How these verdicts were reached</summary>'));
  assert.match(footer.slice(0, footer.indexOf('</details>')), /\nThreshold 2%\. Verdicts at 95% confidence/);
  assert.deepEqual(footer.slice(footer.indexOf('</details>')).split('\n').filter((l) => l !== ''), ['</details>', '<sub>Environment: capture machine, 2 cores.</sub>']);
});

test('golden: an A/A pair with nothing beyond the threshold says there is nothing to do', () => {
  const names = ['BM_Parse/64', 'BM_Parse/4096', 'BM_Hash'];
  const pair = (offset: number) => side(names.flatMap((n, i) => [m(n, 'real_time', 'ns', lognormalSamples(30, 100 * (i + 1), 0.004, offset + i)), m(n, 'cpu_time', 'ns', lognormalSamples(30, 100 * (i + 1), 0.004, offset + 10 + i))]));
  const report = compareRuns(pair(0), pair(100));
  assert.deepEqual([...new Set(report.comparisons.map((c) => c.verdict))], ['unchanged']);
  const md = renderMarkdown(report, { environment: 'runner-1, 2 cores' });
  assertGolden(golden('nothing-to-do.md'), md);
  assert.match(md, /^<!-- benchbot:report -->\n### benchbot: No change beyond ±2%: nothing to do\.\n\n3 benchmarks: 3 unchanged\.\n/);
  assert.match(renderText(report), /^No change beyond ±2%: nothing to do\.\n3 benchmarks: 3 unchanged\n/);
});

test('the headline says what to do: fix errors, look at regressions, rerun when undecided, else nothing', () => {
  const c = (benchmark: string, verdict: Comparison['verdict'], ratio: number | null, metric = 'time'): Comparison => ({
    benchmark, metric, unit: 'ns', better: 'lower', base: null, head: null, ratio, ratioCi: null, p: null, q: null, verdict, warnings: [],
  });
  const row = (primary: Comparison, ...others: Comparison[]) => {
    const lead = [primary, ...others].find((x) => x.verdict === 'error') ?? [primary, ...others].find((x) => x.verdict === 'regressed') ?? primary;
    return { comparison: primary, others, verdict: lead.verdict, lead };
  };
  const plain = (s: string) => s;
  assert.equal(actionHeadline([row(c('A', 'improved', 0.8)), row(c('B', 'unchanged', 1))], 0.02, plain), '1 improvement (A -20.0%), no regression: nothing to do.');
  assert.equal(actionHeadline([row(c('A', 'unchanged', 1)), row(c('B', 'inconclusive', 1.01)), row(c('C', 'inconclusive', 0.99))], 0.05, plain), '2 undecided, no regression found: this machine is too noisy to tell ±5%. Rerun with more rounds or raise the threshold.');
  assert.equal(actionHeadline([row(c('A', 'error', null)), row(c('B', 'regressed', 1.05)), row(c('C', 'inconclusive', 1))], 0.02, plain), '1 error: A. Fix it and rerun; 1 regression: B +5.00%. Look at it before merging.');
  const many = ['A', 'B', 'C', 'D', 'E'].map((n, i) => row(c(n, 'unchanged', 1), c(n, 'regressed', 1.5 - i / 10, 'B/op')));
  assert.equal(actionHeadline(many, 0.02, plain), '5 regressions: A B/op +50.0%, B B/op +40.0%, C B/op +30.0% and 2 more. Look at them before merging.');
  assert.equal(actionHeadline([], 0.02, plain), 'No comparisons.');
  // A nightly's head is already merged: look at it, nothing to hold.
  assert.equal(actionHeadline([row(c('B', 'regressed', 1.05))], 0.02, plain, false), '1 regression: B +5.00%. Look at it.');
});
