import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { createBisect, nextSessions, recordConfirmation, recordProbe, recordReference, toBisectJson } from '../../src/bisect/create-bisect.ts';
import type { Commit } from '../../src/bisect/create-bisect.ts';
import { parseRegressionMarker, regressionMarker, renderRecoveryComment, renderRegressionIssue, trendChart } from '../../src/report/regression-issue.ts';
import { checkRecovery } from '../../src/scan/recovery.ts';
import type { BisectLog } from '../../src/bisect/bisect-log.ts';
import { scanSeries } from '../../src/scan/scan-history.ts';
import type { ScanFinding } from '../../src/scan/scan-finding.ts';
import type { Series } from '../../src/scan/series.ts';
import { assertGolden } from '../support/golden.ts';
import { lognormalSamples } from '../support/samples.ts';

const golden = (name: string) => fileURLToPath(new URL(`golden/${name}`, import.meta.url));
const sha = (text: string) => createHash('sha1').update(text).digest('hex');

/**
 * A 40-night history of `parse`, 1% noise, 10% slower from night 30 on (all
 * generated from seeds); every night also ran the night before's commit
 * interleaved (the A/B that confirms a change point).
 */
function history(): Series {
  const level = (night: number) => (night >= 30 ? 110 : 100);
  return {
    benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower', machineKey: '6cba252bf2cb', branch: 'main',
    nights: Array.from({ length: 40 }, (_, night) => ({
      sha: sha(`night ${night}`),
      time: new Date(Date.UTC(2026, 0, 1, 2) + night * 86_400_000).toISOString(),
      values: lognormalSamples(10, level(night), 0.01, night + 1),
      ...(night > 0 ? { ab: { baseSha: sha(`night ${night - 1}`), base: lognormalSamples(10, level(night - 1), 0.01, 1000 + night) } } : {}),
    })),
  };
}

function finding(): ScanFinding {
  const f = scanSeries(history()).findings.find((x) => x.kind === 'change-point');
  assert.ok(f, 'the generated history has a change point');
  return f;
}

const AUTHORS = ['Ana Lima', 'Bo Chen', 'Chidi Okafor', 'Dana Weiss'];

/** A bisection over 8 merges where merge #106 (index 5) carries the slowdown, driven by the state machine one session at a time. */
function bisectLog(f: ScanFinding): BisectLog {
  const candidates: (Commit & { author: string })[] = Array.from({ length: 8 }, (_, i) => ({ sha: sha(`merge ${i}`), subject: `Merge pull request #${101 + i} from octo/topic-${i}`, pr: 101 + i, author: AUTHORS[i % 4], parent: i === 0 ? f.lastGood.sha : sha(`merge ${i - 1}`) }));
  const level = (commit: string) => (candidates.findIndex((c) => c.sha === commit) >= 5 ? 110 : 100);
  let state = createBisect({ candidates, good: f.lastGood.sha });
  let steps = 0;
  let seed = 500;
  const draw = (mean: number) => lognormalSamples(10, mean, 0.01, seed++);
  while (!state.finished && steps < 100) {
    const requests = nextSessions(state, 1);
    if (requests.length === 0) break;
    steps++;
    for (const r of requests) {
      if (r.kind === 'reference') state = recordReference(state, { good: draw(100), bad: draw(110) });
      else if (r.kind === 'probe') state = recordProbe(state, r.sha, { good: draw(100), probe: draw(level(r.sha)), bad: draw(110) });
      else state = recordConfirmation(state, r.sha, { parent: draw(r.parent === f.lastGood.sha ? 100 : level(r.parent)), probe: draw(level(r.sha)) });
    }
  }
  return { ...toBisectJson(state), benchmark: 'parse', metric: 'time', good: f.lastGood.sha, bad: f.firstBad.sha, candidates, probe_steps: steps };
}

const fingerprint = { cpuModel: 'AMD EPYC 7763 64-Core Processor', cores: 8, governor: 'performance', turbo: false, smt: false, kernel: '6.1.0-28-amd64', memoryBytes: 32 * 2 ** 30, virtualization: 'bare-metal', runnerLabels: ['self-hosted', 'bench'], toolVersions: { gcc: '12.2.0' } };

test('the regression issue (golden): numbers, culprit with PR link and author, trend chart, bisect log, environment, reproduce commands', () => {
  const f = finding();
  const log = bisectLog(f);
  assert.equal(log.culprit?.pr, 106);
  const issue = renderRegressionIssue({ finding: f, bisect: log, owner: 'octo-org', repo: 'widgets', fingerprint, reproduce: { bench: './bench.sh --filter parse', build: 'make -j8' } });
  assert.equal(issue.marker, regressionMarker(f.series, log.culprit?.sha as string));
  assert.ok(issue.body.startsWith(`${issue.marker}\n`));
  assert.match(issue.title, /^Performance regression: parse time \+\d+\.\d+% in #106$/);
  assert.match(issue.body, /\[#106\]\(https:\/\/github\.com\/octo-org\/widgets\/pull\/106\), merged as \[`[0-9a-f]{7}`\]\(https:\/\/github\.com\/octo-org\/widgets\/commit\/[0-9a-f]{40}\) by Bo Chen/);
  assert.match(issue.body, /```mermaid\nxychart-beta\n/);
  assert.match(issue.body, /benchbot bisect --good [0-9a-f]{40} --bad [0-9a-f]{40} --bench '\.\/bench\.sh --filter parse' --build 'make -j8' --benchmark parse --metric time/);
  assertGolden(golden('regression-issue.md'), `${issue.title}\n\n${issue.body}\n`);
});

test('before bisection the issue is keyed by the nightly range and says it is not bisected yet', () => {
  const f = finding();
  const issue = renderRegressionIssue({ finding: f, owner: 'octo-org', repo: 'widgets' });
  assert.deepEqual(parseRegressionMarker(issue.body), { series: f.series, culprit: `${f.lastGood.sha}..${f.firstBad.sha}` });
  assert.match(issue.title, new RegExp(`between ${f.lastGood.sha.slice(0, 7)}\\.\\.${f.firstBad.sha.slice(0, 7)}$`));
  assert.match(issue.body, /Not bisected yet/);
  assert.match(issue.body, /### Environment\n\n_not recorded_/);
});

test('markers survive any series name and are only read from the first line', () => {
  const odd = 'main:BM_Parse/json:-->x y:time:fp';
  const marker = regressionMarker(odd, 'abc');
  assert.equal(marker.split('-->').length, 2, 'the series cannot close the comment early');
  assert.deepEqual(parseRegressionMarker(`${marker}\r\nbody`), { series: odd, culprit: 'abc' });
  assert.equal(parseRegressionMarker(`> ${marker}`), null);
  assert.equal(parseRegressionMarker(`text\n${marker}`), null);
  assert.equal(parseRegressionMarker(null), null);
});

test('a lone surrogate in a series name (JSON "\\ud800") keeps a marker of its own instead of throwing URIError', () => {
  const names = ['main:BM_\ud800:time:fp', 'main:BM_\udc00:time:fp', 'main:BM_\ufffd:time:fp', 'main:BM_%uD800:time:fp', 'main:BM_\ud83d\ude00:time:fp', 'main:BM_\udc00\ud800:time:fp'];
  const markers = names.map((n) => regressionMarker(n, 'abc'));
  assert.equal(new Set(markers).size, names.length, 'no two names share a marker');
  for (const [i, marker] of markers.entries()) {
    assert.equal(marker.isWellFormed(), true, 'the marker is well-formed text (it goes into an issue body)');
    assert.deepEqual(parseRegressionMarker(`${marker}\nbody`), { series: names[i], culprit: 'abc' });
  }
});

test('the trend chart is a mermaid xychart-beta block with one point per night', () => {
  const f = finding();
  const chart = trendChart(f.trend, 'parse "time"', 'us').split('\n');
  assert.equal(chart[0], '```mermaid');
  assert.equal(chart[1], 'xychart-beta');
  assert.equal(chart[2], `    title "parse 'time'"`);
  assert.equal(chart[3].match(/"\d\d-\d\d"/g)?.length, f.trend.length);
  assert.match(chart[4], /^ {4}y-axis "us" [\d.]+ --> [\d.]+$/);
  assert.equal(chart[5].replace(/^ {4}line \[|\]$/g, '').split(', ').length, f.trend.length);
  assert.equal(chart.at(-1), '```');
  assert.equal(trendChart([], 't', 'us'), '');
});

test('recovery: back within the threshold closes with the numbers (golden); still slower does not', () => {
  const baseline = lognormalSamples(50, 100, 0.01, 900);
  const still = checkRecovery(baseline, lognormalSamples(50, 109, 0.01, 901), 'lower');
  assert.equal(still.recovered, false);
  const back = checkRecovery(baseline, lognormalSamples(50, 100.2, 0.01, 902), 'lower');
  assert.equal(back.recovered, true);
  assert.ok(back.ratioCi !== null && back.ratioCi[0] > 0.98 && back.ratioCi[1] < 1.02);
  const comment = renderRecoveryComment({ series: 'main:parse:time:6cba252bf2cb', benchmark: 'parse', metric: 'time', unit: 'us', recovery: back, lastNight: { sha: sha('night 49'), time: '2026-02-19T02:00:00.000Z' }, nights: 5, owner: 'octo-org', repo: 'widgets' });
  assertGolden(golden('regression-recovery.md'), `${comment}\n`);
});

test('the regression issue shows where the change lives when the profile is there, and always the command to get it', async () => {
  const { readFileSync } = await import('node:fs');
  const { parseCallgrind } = await import('../../src/formats/callgrind-profile.ts');
  const { diffProfiles } = await import('../../src/compare/profile-diff.ts');
  const dir = fileURLToPath(new URL('../../fixtures/callgrind/', import.meta.url));
  const side = (name: string, iterations: number) => ({ profile: parseCallgrind(readFileSync(`${dir}${name}.out`, 'utf8'), name), iterations });
  const f = finding();
  const log = bisectLog(f);
  const profile = diffProfiles('parse', side('base', 20), side('head', 30));
  const without = renderRegressionIssue({ finding: f, bisect: log, owner: 'o', repo: 'r', reproduce: { bench: './bench.sh' } }).body;
  const body = renderRegressionIssue({ finding: f, bisect: log, owner: 'o', repo: 'r', reproduce: { bench: './bench.sh' }, profile }).body;
  assert.ok(!without.includes('### Where it changed'));
  const culprit = log.culprit?.sha as string;
  for (const text of [without, body]) assert.ok(text.includes(`benchbot profile --base '${culprit}^1' --head ${culprit} --bench ./bench.sh --benchmark parse`), text);
  const section = body.slice(body.indexOf('### Where it changed'), body.indexOf('### Trend'));
  assert.match(section, /<details><summary>Where <code>parse<\/code> changed: \+777 instructions per iteration \(\+7\.58%\), 98\.8% of it in <code>mix_bits\(unsigned long\)<\/code><\/summary>/);
  assert.match(section, /<\/details>\n\n$/);
});

test('the regression issue shows a perf record profile with its samples and sampling error', async () => {
  const { readFileSync } = await import('node:fs');
  const { gunzipSync } = await import('node:zlib');
  const { parsePerfScript } = await import('../../src/formats/perf-script-profile.ts');
  const { diffProfiles } = await import('../../src/compare/profile-diff.ts');
  const dir = fileURLToPath(new URL('../../fixtures/perf-record/', import.meta.url));
  const side = (name: string) => ({ profile: parsePerfScript(gunzipSync(readFileSync(`${dir}${name}.txt.gz`)).toString('utf8'), name, { within: (fn) => fn === 'one_iteration' }), iterations: 400_000 });
  const f = finding();
  const profile = diffProfiles('parse', side('cpp-base'), side('cpp-head'));
  const body = renderRegressionIssue({ finding: f, bisect: bisectLog(f), owner: 'o', repo: 'r', reproduce: { bench: './bench.sh' }, profile }).body;
  const section = body.slice(body.indexOf('### Where it changed'), body.indexOf('### Trend'));
  assert.match(section, /<details><summary>Where <code>parse<\/code> changed: \+[\d,.]+ ns of CPU time per iteration \(\+[\d.]+%\), [\d.]+% ±[\d.]+ of it in <code>mix_bits<\/code><\/summary>/);
  assert.match(section, /[\d,]+ samples, head .*[\d,]+ samples \(perf, cpu-clock\)/);
  assert.match(section, /sampled: ± is one standard error/);
});

test('a bisection that followed counted work says so in the issue; one on wall time adds nothing', () => {
  const f = finding();
  const log = bisectLog(f);
  const timed = renderRegressionIssue({ finding: f, bisect: log, owner: 'o', repo: 'r' }).body;
  const counted = renderRegressionIssue({ finding: { ...f, metric: 'instructions', unit: 'count' }, bisect: { ...log, metric: 'instructions' }, owner: 'o', repo: 'r' }).body;
  assert.ok(!timed.includes('Followed the benchmark'));
  assert.match(counted, /### Culprit[\s\S]*Followed the benchmark's instruction count under valgrind with a fixed iteration schedule: one count per probe/);
});
