// Samples from 1e-300 to 1e300 are valid doubles, and a ratio between them
// overflows to Infinity. Every surface that prints a change (the compare
// report through the CLI, the nightly scan report, the regression issue, the
// bisect log) says `more than 1000x` instead of `+Infinity%`, `Infinityx
// slower`, `+1e+302%` or `NaN%`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { formatChange, formatRatio, MAX_SHOWN_FACTOR } from '../../src/report/format-numbers.ts';
import { renderRegressionIssue } from '../../src/report/regression-issue.ts';
import { renderScanMarkdown } from '../../src/report/scan-report.ts';
import { renderBisectSummary } from '../../src/report/bisect-report.ts';
import { scanHistory } from '../../src/scan/scan-history.ts';
import type { Series } from '../../src/scan/series.ts';
import { lognormalSamples } from '../support/samples.ts';

const cli = new URL('../../src/cli/benchbot.ts', import.meta.url).pathname;
const OVERFLOW = /Infinity|NaN|e\+\d+%|e\+\d+x/;
const sha = (n: number) => n.toString(16).padStart(40, '0');

test('formatChange and formatRatio: finite text for every ratio, `more than 1000x` past the cap', () => {
  assert.equal(formatChange(Infinity), `more than ${MAX_SHOWN_FACTOR}x`);
  assert.equal(formatChange(1e300), `more than ${MAX_SHOWN_FACTOR}x`);
  assert.equal(formatChange(NaN), '–');
  assert.equal(formatChange(0), '-100%');
  assert.equal(formatChange(1.023), '+2.30%', 'ordinary changes are unchanged');
  assert.equal(formatChange(MAX_SHOWN_FACTOR), '+99900%', 'the cap itself is still a number');
  const words: [string, string] = ['slower', 'faster'];
  assert.equal(formatRatio(Infinity, [5, Infinity], words), `more than ${MAX_SHOWN_FACTOR}x slower [5.0x, >${MAX_SHOWN_FACTOR}x]`);
  assert.equal(formatRatio(1e-300, [0, 1e-299], words), `more than ${MAX_SHOWN_FACTOR}x faster`);
  assert.equal(formatRatio(1e-300, [1e-301, 0.1], words), `more than ${MAX_SHOWN_FACTOR}x faster [10x, >${MAX_SHOWN_FACTOR}x]`);
  assert.equal(formatRatio(1.01, [0.99, Infinity], words), `+1.00% [-1.00%, more than ${MAX_SHOWN_FACTOR}x]`);
  assert.equal(formatRatio(31, [29, 33], words), '31x slower [29x, 33x]', 'ordinary folds are unchanged');
});

test('benchbot compare: 1e-300 against 1e300 reads `more than 1000x slower` in markdown and text', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-extreme-'));
  const side = (level: number) => JSON.stringify({ version: 1, benchmarks: [{ benchmark: 'extreme', unit: 'ns', values: lognormalSamples(12, level, 0.01, level > 1 ? 2 : 1) }, { benchmark: 'plain', unit: 'ns', values: lognormalSamples(12, 100, 0.01, level > 1 ? 4 : 3) }] });
  writeFileSync(join(dir, 'base.json'), side(1e-300));
  writeFileSync(join(dir, 'head.json'), side(1e300));
  for (const output of ['markdown', 'text']) {
    const run = spawnSync(process.execPath, [cli, 'compare', join(dir, 'base.json'), join(dir, 'head.json'), '--output', output], { encoding: 'utf8' });
    assert.ok(run.status === 0 || run.status === 1, run.stderr);
    assert.match(run.stdout, new RegExp(`extreme.*more than ${MAX_SHOWN_FACTOR}x slower`), output);
    assert.doesNotMatch(run.stdout, OVERFLOW, output);
  }
});

test('a nightly series that jumps from 1e-100 to 1e100 (a ratio of 1e200): the scan report and the regression issue say `more than 1000x`', () => {
  const series: Series = {
    benchmark: 'extreme', metric: 'time', unit: 'ns', better: 'lower', machineKey: 'fp', branch: 'main',
    nights: Array.from({ length: 40 }, (_, night) => ({
      sha: sha(night + 1),
      time: new Date(Date.UTC(2026, 0, 1, 2) + night * 86_400_000).toISOString(),
      values: lognormalSamples(10, night >= 30 ? 1e100 : 1e-100, 0.01, night + 1),
      ...(night > 0 ? { ab: { baseSha: sha(night), base: lognormalSamples(10, night - 1 >= 30 ? 1e100 : 1e-100, 0.01, 1000 + night) } } : {}),
    })),
  };
  const result = scanHistory([series]);
  const f = result.findings.find((x) => x.kind === 'change-point');
  assert.ok(f, 'the jump is found');
  assert.ok(f.ratio > MAX_SHOWN_FACTOR, `ratio ${f.ratio}`);
  const scan = renderScanMarkdown(result, { branch: 'main', series: 1, threshold: 0.02 } as Parameters<typeof renderScanMarkdown>[1]);
  assert.match(scan, new RegExp(`more than ${MAX_SHOWN_FACTOR}x`));
  assert.doesNotMatch(scan, OVERFLOW);
  const issue = renderRegressionIssue({ finding: f, owner: 'octo-org', repo: 'widgets' });
  assert.match(issue.title, new RegExp(`extreme time more than ${MAX_SHOWN_FACTOR}x between`));
  assert.doesNotMatch(`${issue.title}\n${issue.body}`, OVERFLOW);
});

test('a bisect log whose ratios overflowed prints them capped', () => {
  const text = renderBisectSummary({
    status: 'not-reproducible', culprit: null, culprits: [], steps: [], sessions: 1,
    reference: { ratio: Infinity, ratio_ci: [2, Infinity], p: 0.5, reproducible: false },
    benchmark: 'extreme', metric: 'time', good: sha(1), bad: sha(2),
  } as unknown as Parameters<typeof renderBisectSummary>[0]);
  assert.match(text, new RegExp(`more than ${MAX_SHOWN_FACTOR}x`));
  assert.doesNotMatch(text, OVERFLOW);
});
