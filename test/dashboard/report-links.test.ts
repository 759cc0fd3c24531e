// The PR comment and the regression issue link to the series' chart when a
// dashboard is configured: the links are built from the series' identity
// (a hash), never from text in the results, and the names in the link text
// stay inert.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseAppConfig } from '../../src/app/app-config.ts';
import { compareRuns, type CompareSide } from '../../src/compare/compare-runs.ts';
import { dashboardSeriesId, dashboardSeriesUrl } from '../../src/model/series-id.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { renderMarkdown } from '../../src/report/markdown-report.ts';
import { renderRegressionIssue } from '../../src/report/regression-issue.ts';
import type { ScanFinding } from '../../src/scan/scan-finding.ts';
import { lognormalSamples } from '../support/samples.ts';
import { ATTACK, parseMarkdown } from '../report/markdown-tree.ts';

const DASHBOARD = 'https://octo.github.io/widgets/';
const MACHINE = 'b2b4354095ac';

function links(markdown: string): string[] {
  const out: string[] = [];
  const walk = (n: { type: string; url?: string; children?: unknown[] }) => {
    if (n.type === 'link' || n.type === 'image' || n.type === 'html') out.push(`${n.type} ${n.url ?? ''}`);
    for (const c of (n.children ?? []) as (typeof n)[]) walk(c);
  };
  walk(parseMarkdown(markdown) as never);
  return out;
}

const m = (benchmark: string, values: number[]): Measurement => ({ benchmark, metric: 'real_time', unit: 'ns', better: 'lower', values });
const side = (measurements: Measurement[]): CompareSide => ({ measurements, warnings: [], hints: {} });
const report = compareRuns(
  side([m(ATTACK, lognormalSamples(12, 100, 0.01, 1)), m('BM_Steady', lognormalSamples(12, 100, 0.01, 3))]),
  side([m(ATTACK, lognormalSamples(12, 130, 0.01, 2)), m('BM_Steady', lognormalSamples(12, 100, 0.01, 4))]),
);

test('the PR comment links each significant change to its nightly series, and only to the dashboard', () => {
  const md = renderMarkdown(report, { dashboard: { url: DASHBOARD, repo: 'octo/widgets', branch: 'main', machine: MACHINE } });
  const id = dashboardSeriesId('octo/widgets', `main:${ATTACK}:real_time:${MACHINE}`);
  const plain = links(renderMarkdown(report));
  const added = links(md);
  for (const l of plain) added.splice(added.indexOf(l), 1);
  assert.deepEqual(added, [`link ${DASHBOARD}#/series/${id}`], 'one more link, to the regressed series; no tag or link from the name');
  assert.match(md, /Nightly history on the dashboard: \[/);
  assert.doesNotMatch(renderMarkdown(report), /dashboard/, 'no dashboard configured, no line');
  assert.deepEqual(links(renderMarkdown(report, { dashboard: { url: 'javascript:alert(1)//', branch: 'main', machine: MACHINE } })), plain, 'a URL that is not http(s) links nowhere');
});

const finding: ScanFinding = {
  series: `main:BM_Parse:real_time:${MACHINE}`, benchmark: 'BM_Parse', metric: 'real_time', unit: 'ns', better: 'lower', machineKey: MACHINE, branch: 'main',
  kind: 'change-point', direction: 'regression', ratio: 1.12, ratioCi: [1.1, 1.14], p: 1e-5, q: 1e-5,
  lastGood: { sha: 'a'.repeat(40), time: '2025-03-07T03:17:00.000Z' }, firstBad: { sha: 'b'.repeat(40), time: '2025-03-08T03:17:00.000Z' }, nightsSince: 5,
  before: { nights: 5, n: 50, median: 100 }, after: { nights: 5, n: 50, median: 112 },
  trend: [{ sha: 'a'.repeat(40), time: '2025-03-02T03:17:00.000Z', median: 100 }, { sha: 'b'.repeat(40), time: '2025-03-12T03:17:00.000Z', median: 112 }],
};

test('the regression issue links the series chart around the change when the dashboard is configured', () => {
  const body = renderRegressionIssue({ finding, owner: 'octo', repo: 'widgets', dashboardUrl: DASHBOARD }).body;
  const url = dashboardSeriesUrl(DASHBOARD, dashboardSeriesId('octo/widgets', finding.series), { from: '2025-03-02', to: '2025-03-12' });
  assert.ok(links(body).includes(`link ${url}`), body);
  assert.doesNotMatch(renderRegressionIssue({ finding, owner: 'octo', repo: 'widgets' }).body, /dashboard/);
});

test('series URLs: only http(s) roots without credentials, ids of 16 hex digits', () => {
  assert.equal(dashboardSeriesUrl('https://x.example/dash', '0123456789abcdef', { from: '2025-01-01', to: '2025-02-01' }), 'https://x.example/dash/#/series/0123456789abcdef?from=2025-01-01&to=2025-02-01');
  assert.equal(dashboardSeriesUrl('https://user:pw@x.example/', '0123456789abcdef'), undefined);
  assert.equal(dashboardSeriesUrl('ftp://x.example/', '0123456789abcdef'), undefined);
  assert.equal(dashboardSeriesUrl('https://x.example/', '../../etc'), undefined);
  assert.equal(dashboardSeriesId('o/r', 'main:a:b:c').length, 16);
  assert.notEqual(dashboardSeriesId('o/r', 'main:a:b:c'), dashboardSeriesId('o/s', 'main:a:b:c'));
});

test('.github/benchbot.yml: nightly.dashboard takes an http(s) URL', () => {
  assert.equal(parseAppConfig('nightly:\n  dashboard: https://octo.github.io/widgets/\n').config.nightly.dashboard, 'https://octo.github.io/widgets/');
  const bad = parseAppConfig('nightly:\n  dashboard: "javascript:alert(1)"\n');
  assert.equal(bad.config.nightly.dashboard, undefined);
  assert.deepEqual(bad.problems.map((p) => p.key), ['nightly.dashboard']);
});
