import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseJsonReport, renderBenchFailure, renderBenchReport, ReportShapeError } from '../../src/app/bench-report.ts';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { reportJson, sha } from './app-harness.ts';

const meta = { requestedBy: 'octocat', commentUrl: 'https://github.com/o/r/pull/1#issuecomment-1', base: sha('b'), head: sha('h') };

test('a real JSON report round-trips into the sticky comment, marker first', () => {
  const report = parseJsonReport(reportJson());
  assert.equal(report.comparisons.length, 2);
  const body = renderBenchReport(report, { ...meta, currentHead: sha('h') });
  assert.equal(body.split('\n')[0], REPORT_MARKER);
  assert.ok(!body.includes('newer commits'));
  assert.match(renderBenchReport(report, { ...meta, currentHead: sha('n') }), /newer commits \(head is now `[0-9a-f]{12}`\)/);
});

test('a malformed report names the JSON path', () => {
  const good = JSON.parse(reportJson());
  const cases: [unknown, RegExp][] = [
    ['{', /not JSON/],
    [{ ...good, version: 2 }, /\$\.version/],
    [{ ...good, comparisons: {} }, /\$\.comparisons: expected an array/],
    [{ ...good, comparisons: [{ ...good.comparisons[0], verdict: 'pwned' }] }, /\$\.comparisons\[0\]\.verdict/],
    [{ ...good, comparisons: [{ ...good.comparisons[0], ratio: 'NaN' }] }, /\$\.comparisons\[0\]\.ratio/],
    [{ ...good, comparisons: [{ ...good.comparisons[0], base: { n: 1, median: 1 } }] }, /\$\.comparisons\[0\]\.base\.ci/],
    [{ ...good, summary: { ...good.summary, regressed: -1 } }, /\$\.summary\.regressed/],
    [{ ...good, warnings: [1] }, /\$\.warnings\[0\]/],
  ];
  for (const [input, expected] of cases) {
    assert.throws(() => parseJsonReport(typeof input === 'string' ? input : JSON.stringify(input)), (e: unknown) => e instanceof ReportShapeError && expected.test(e.message));
  }
});

test('a failure names the failed steps and links the log', () => {
  const body = renderBenchFailure({ ...meta, runUrl: 'https://github.com/o/r/actions/runs/5', conclusion: 'failure', failed: [{ job: 'bench`mark', step: 'benchbot', url: null }], detail: 'no artifact' });
  assert.match(body, /ended with `failure`/);
  assert.match(body, /job `bench mark`, step `benchbot`/);
  assert.match(body, /\[Open the workflow run's log\]\(https:\/\/github.com\/o\/r\/actions\/runs\/5\)/);
});
