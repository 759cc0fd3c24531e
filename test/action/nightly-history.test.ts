import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { firstBadNight, nightlyHistoryJson, readNightlyHistory } from '../../src/jobs/nightly-history.ts';
import { MAX_HISTORY_FILE_BYTES, MAX_RESULTS_FILE_BYTES, ResultsError } from '../../src/jobs/results-artifact.ts';
import type { Series } from '../../src/scan/series.ts';
import { lognormalSamples } from '../support/samples.ts';
import { runStep } from './run-step.ts';

const sha = (i: number, fill = 'a') => i.toString(16).padStart(40, fill);

function series(levels: number[], benchmark = 'parse'): Series {
  return {
    benchmark, metric: 'time', unit: 'us', better: 'lower', machineKey: '0123456789ab', branch: 'main',
    nights: levels.map((level, i) => ({ sha: sha(i), time: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(), values: lognormalSamples(10, level, 0.003, 7 + i) })),
  };
}

function writeHistory(text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'benchbot-history-')), 'history.json');
  writeFileSync(path, text);
  return path;
}

test('firstBadNight: the night itself, else the first night at or after the culprit on the first-parent chain', () => {
  const s = series([100, 100, 100, 110, 110]);
  const shas = s.nights.map((n) => n.sha);
  const merges = ['e'.repeat(40), 'f'.repeat(40)];
  // n0, n1, merge e, n2, merge f, n3, n4: a culprit merged between nights 2 and 3 first shows in night 3.
  const chain = [shas[0], shas[1], merges[0], shas[2], merges[1], shas[3], shas[4]];
  assert.equal(firstBadNight(s.nights, shas[3], chain), 3);
  assert.equal(firstBadNight(s.nights, merges[1], chain), 3);
  assert.equal(firstBadNight(s.nights, merges[0], chain), 2);
  assert.equal(firstBadNight(s.nights, '9'.repeat(40), chain), -1, 'a culprit not on the chain is no night');
  assert.equal(firstBadNight(s.nights, merges[1], []), -1);
});

test('readNightlyHistory: keys and branch come from the report job, not the file; the raw samples round-trip', () => {
  const s = { ...series([100, 110]), harness: 'pytest-benchmark' };
  s.nights = [s.nights[0], { ...s.nights[1], ab: { baseSha: sha(0), base: [99, 100, 101] }, machine: { kernel: '6.1.0' } }];
  const text = JSON.parse(nightlyHistoryJson('main', [s], [{ series: 'main:parse:time:0123456789ab', sha: sha(1), reason: 'expected' }], [sha(0), sha(1)]));
  text.series[0].key = 'main:somebody-else:time:0123456789ab';
  text.branch = 'attacker';
  const history = readNightlyHistory(writeHistory(JSON.stringify(text)), 'main');
  assert.equal(history.series[0].key, 'main:parse:time:0123456789ab');
  assert.equal(history.series[0].branch, 'main');
  assert.deepEqual(history.series[0].nights, s.nights);
  assert.equal(history.series[0].harness, 'pytest-benchmark', 'the harness the scan\'s default work threshold follows');
  assert.equal(readNightlyHistory(writeHistory(nightlyHistoryJson('main', [series([100])], [], [])), 'main').series[0].harness, undefined, 'a series of an older history names none');
  assert.deepEqual(history.acks, [{ series: 'main:parse:time:0123456789ab', sha: sha(1), reason: 'expected' }]);
  assert.deepEqual(history.firstParent, [sha(0), sha(1)]);
});

test('readNightlyHistory: every malformed field is an error naming it', () => {
  const good = () => JSON.parse(nightlyHistoryJson('main', [series([100, 110])], [], [sha(0)]));
  const cases: [(h: Record<string, any>) => void, RegExp][] = [
    [(h) => (h.version = 2), /version is not 1/],
    [(h) => (h.series[0].nights[0].values = [1, '2']), /series\[0\]\.nights\[0\]\.values are not all finite numbers/],
    [(h) => (h.series[0].nights[0].values = [1, null]), /values are not all finite numbers/],
    [(h) => (h.series[0].nights[1].sha = 'HEAD~1'), /series\[0\]\.nights\[1\]\.sha is not a full commit SHA/],
    [(h) => (h.series[0].better = 'sideways'), /series\[0\]\.better is not "lower" or "higher"/],
    [(h) => (h.series[0].fingerprint = '../../x'), /series\[0\]\.fingerprint is not a hex machine key/],
    [(h) => (h.series[0].harness = 'pytest benchmark; rm -rf'), /series\[0\]\.harness is not a harness name/],
    [(h) => (h.series[0].harness = 7), /series\[0\]\.harness is not a harness name/],
    [(h) => (h.series[0].benchmark = 'x'.repeat(5000)), /series\[0\]\.benchmark is not a string of 1 to 1000 characters/],
    [(h) => (h.first_parent = ['main']), /first_parent\[0\] is not a full commit SHA/],
    [(h) => (h.series[0].nights[1].ab = { base_sha: sha(0), base: [1, Infinity] }), /series\[0\]\.nights\[1\]\.ab\.base are not all finite numbers/],
    [(h) => (h.series = {}), /series is not an array/],
  ];
  for (const [forge, message] of cases) {
    const h = good();
    forge(h);
    assert.throws(() => readNightlyHistory(writeHistory(JSON.stringify(h)), 'main'), (e: unknown) => e instanceof ResultsError && message.test(e.message), message.source);
  }
  assert.throws(() => readNightlyHistory(writeHistory('{"version":1,'), 'main'), (e: unknown) => e instanceof ResultsError && /not JSON/.test(e.message));
});

test('a nightly report recomputes the scan from history.json: a forged scan.json with no findings changes nothing', async () => {
  const results = mkdtempSync(join(tmpdir(), 'benchbot-nightly-results-'));
  const head = sha(29);
  const samples = (level: number) => JSON.stringify({ version: 1, benchmarks: [{ benchmark: 'parse', unit: 'us', values: lognormalSamples(10, level, 0.003, level) }] });
  writeFileSync(join(results, 'base.json'), samples(110));
  writeFileSync(join(results, 'head.json'), samples(110));
  writeFileSync(join(results, 'report.json'), JSON.stringify({ head_sha: head, summary: { regressed: 0 } }));
  // 22 nights at 100 us, then 8 at 110 us, and the first slow night's A/B against the night before: a confirmed regression.
  const levels = Array.from({ length: 30 }, (_, i) => (i < 22 ? 100 : 110));
  const s = series(levels);
  s.nights = s.nights.map((n, i) => (i === 22 ? { ...n, ab: { baseSha: sha(21), base: lognormalSamples(10, 100, 0.003, 99) } } : n));
  writeFileSync(join(results, 'history.json'), nightlyHistoryJson('main', [s], [], []));
  writeFileSync(join(results, 'scan.json'), JSON.stringify({ version: 1, branch: 'main', regressions: 0, findings: [] }));
  const work = mkdtempSync(join(tmpdir(), 'benchbot-nightly-report-'));
  const r = await runStep({ mode: 'nightly', merge: results, 'fail-on': 'never' }, { HOME: work, RUNNER_TEMP: work, GITHUB_REF_NAME: 'main', GITHUB_SHA: head });
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.equal(r.outputs['artifact-name'], 'benchbot-nightly');
  const scan = JSON.parse(readFileSync(join(r.outputs['artifact-path'], 'scan.json'), 'utf8'));
  assert.ok(scan.regressions >= 1, JSON.stringify(scan).slice(0, 400));
  assert.equal(scan.findings[0].series, 'main:parse:time:0123456789ab');
  assert.equal(scan.findings[0].first_bad.sha, sha(22));
});

test('history.json may exceed the other artifact files\' cap (a year of 10,000 series is 283 MB) but not its own, checked before reading', () => {
  assert.ok(MAX_HISTORY_FILE_BYTES > MAX_RESULTS_FILE_BYTES);
  // Sparse files: a size above the other files' cap is read (and then refused as not JSON), one above history's own is refused unread.
  const over = writeHistory('');
  truncateSync(over, MAX_RESULTS_FILE_BYTES + 1);
  assert.throws(() => readNightlyHistory(over, 'main'), (e: Error) => e instanceof ResultsError && /not JSON/.test(e.message));
  const tooBig = writeHistory('');
  truncateSync(tooBig, MAX_HISTORY_FILE_BYTES + 1);
  assert.throws(() => readNightlyHistory(tooBig, 'main'), (e: Error) => e instanceof ResultsError && new RegExp(`reads at most ${MAX_HISTORY_FILE_BYTES}`).test(e.message));
});
