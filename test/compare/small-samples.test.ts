import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compareRuns } from '../../src/compare/compare-runs.ts';
import { renderJson } from '../../src/report/json-report.ts';
import { renderMarkdown } from '../../src/report/markdown-report.ts';
import { renderText } from '../../src/report/text-report.ts';
import { parseJsonReport } from '../../src/app/bench-report.ts';

// `/bench runs=2` or `runs=3` (docs/app.md allows them) compare 2 or 3 rounds
// per side. The rank interval at 95% does not exist then (its ends are 0 and
// infinity): the JSON carried ratio_ci [0, null], the markdown showed
// [-100%, +Infinity%], and the app's own report reader refused the report.
// Now such a comparison has no interval and says why, and every consumer reads it.

const side = (values: number[]) => ({ measurements: [{ benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower' as const, values }], warnings: [], hints: {} });

for (const [n, base, head] of [
  [2, [100, 101], [110, 111]],
  [3, [100, 101, 102], [110, 111, 112]],
] as const) {
  test(`${n} samples per side: no interval, a reason, and the JSON, markdown and text reports and the app's reader all take it`, () => {
    const report = compareRuns(side([...base]), side([...head]), { threshold: 0.02, alpha: 0.05, rules: [] });
    const c = report.comparisons[0];
    assert.equal(c.ratioCi, null);
    assert.ok(c.ratio !== null && c.ratio > 1.09 && c.ratio < 1.11, `ratio ${c.ratio}`);
    assert.ok(c.warnings.some((w) => new RegExp(`no 95% interval with ${n} base and ${n} head sample\\(s\\).*4 or more per side`).test(w)), c.warnings.join('; '));
    const json = renderJson(report);
    assert.doesNotMatch(json, /null\s*\]|Infinity/);
    assert.equal(JSON.parse(json).comparisons[0].ratio_ci, null);
    const read = parseJsonReport(json);
    assert.equal(read.comparisons[0].ratioCi, null);
    for (const text of [renderMarkdown(report), renderText(report)]) assert.doesNotMatch(text, /Infinity|-100%/);
  });
}

test('4 samples per side get a finite 95% interval again', () => {
  const report = compareRuns(side([100, 101, 102, 103]), side([110, 111, 112, 113]), { threshold: 0.02, alpha: 0.05, rules: [] });
  const ci = report.comparisons[0].ratioCi;
  assert.ok(ci !== null && ci[0] > 1 && Number.isFinite(ci[1]), `CI ${ci}`);
  assert.ok(!report.comparisons[0].warnings.some((w) => /no 95% interval/.test(w)));
});
