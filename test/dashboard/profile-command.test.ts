// The dashboard's series page says how to see where a regression lives: the
// `benchbot profile` command across the finding's commits. The store keeps
// no profile (callgrind's counts are exact, so the command gives the same
// profile whenever it runs); the benchmark name in it is one shell word,
// whatever it holds.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { buildSeries, type DashboardSeries } from '../../src/dashboard/site-model.ts';
import type { ScanFinding } from '../../src/scan/scan-finding.ts';

const HOSTILE = "BM_Parse<int>/8'; touch /tmp/pwned #$(id) `id` \\ \"x\"";
const GOOD = 'a'.repeat(40);
const BAD = 'b'.repeat(40);

const series: DashboardSeries = {
  branch: 'main', benchmark: HOSTILE, metric: 'real_time', unit: 'ns', better: 'lower', machine: 'm1', machineLabel: 'box',
  run: [0, 1], n: [10, 10], median: [100, 112], lo: [99, 111], hi: [101, 113], values: [undefined, undefined],
};
const runs = [{ sha: GOOD, timeMs: Date.parse('2025-03-07T03:17:00Z') }, { sha: BAD, timeMs: Date.parse('2025-03-08T03:17:00Z') }];

function finding(direction: 'regression' | 'improvement'): ScanFinding {
  return {
    series: `main:${HOSTILE}:real_time:m1`, benchmark: HOSTILE, metric: 'real_time', unit: 'ns', better: 'lower', machineKey: 'm1', branch: 'main',
    kind: 'change-point', direction, ratio: direction === 'regression' ? 1.12 : 0.9, ratioCi: null, p: 1e-5, q: 1e-5,
    lastGood: { sha: GOOD, time: '2025-03-07T03:17:00.000Z' }, firstBad: { sha: BAD, time: '2025-03-08T03:17:00.000Z' }, nightsSince: 1,
    before: { nights: 1, n: 10, median: 100 }, after: { nights: 1, n: 10, median: 112 }, trend: [],
  };
}

test('a regression on the series page carries the benchbot profile command across its commits, the name one shell word', () => {
  const { page } = buildSeries(series, runs, { acks: [], issues: [], siblings: [], decisions: { findings: [{ status: 'regression', finding: finding('regression') }] } });
  const command = page.findings[0].profile as string;
  assert.ok(command.startsWith(`benchbot profile --base ${GOOD} --head ${BAD} --bench CMD --benchmark '`), command);
  // The shell reads the exact name back as one word, and runs nothing in it.
  const words = spawnSync('sh', ['-c', `set -- ${command.replace(/^benchbot /, '')}; printf '%s\\n' "$@"`], { encoding: 'utf8' });
  assert.equal(words.status, 0, words.stderr);
  assert.deepEqual(words.stdout.split('\n').slice(0, -1), ['profile', '--base', GOOD, '--head', BAD, '--bench', 'CMD', '--benchmark', HOSTILE]);
});

test('an improvement has no profile command', () => {
  const { page } = buildSeries(series, runs, { acks: [], issues: [], siblings: [], decisions: { findings: [{ status: 'improvement', finding: finding('improvement') }] } });
  assert.equal(page.findings[0].profile, undefined);
});
