// benchbot bisect end to end: the CLI on generated repositories of merged pull requests.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createExecutor } from '../../src/runner/executor.ts';
import { openStore } from '../../src/store/open-store.ts';
import { makeMergeRepo } from './merge-repo.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

function benchbot(cwd: string, ...args: string[]) {
  const env = { ...process.env, BENCHBOT_LOCK: join(cwd, '.git', 'machine.lock'), BENCHBOT_DATABASE_URL: '' };
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

// --max-load 1000: the test suite keeps the machine busy; the load guard is tested in test/runner/load-guard.test.ts.
const bench = ['--bench', './bench.sh', '--build', './build.sh', '--rounds', '8', '--max-load', '1000'];

test('bisect names the merge and PR that slowed parse, in about log2(merges) sessions', () => {
  const repo = makeMergeRepo({ merges: 32, culprit: 21 });
  const run = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', 'main', ...bench, '--output', 'json');
  assert.equal(run.status, 0, run.stderr);
  const log = JSON.parse(run.stdout);
  assert.equal(log.status, 'found');
  assert.deepEqual(log.culprit, { sha: repo.culprit.sha, subject: repo.culprit.subject, pr: 121 });
  assert.equal(log.benchmark, 'parse');
  assert.equal(log.metric, 'time');
  assert.equal(log.bad, repo.bad);
  assert.ok(log.sessions <= Math.ceil(1.5 * Math.log2(32)), `sessions ${log.sessions}`);
  assert.equal(log.steps.length, log.sessions, 'every session is a step: the references are arms of the probe sessions');
  for (const s of log.steps) {
    assert.match(s.sha, /^[0-9a-f]{40}$/);
    assert.ok(s.kind === 'probe' ? ['good', 'bad'].includes(s.verdict) : s.verdict === 'confirmed', `${s.kind} ${s.verdict}`);
    assert.equal(s.n, 8);
    assert.ok(s.ratio_ci[0] <= s.ratio && s.ratio <= s.ratio_ci[1]);
  }
  const confirm = log.steps.filter((s: { kind: string }) => s.kind === 'confirm');
  assert.equal(confirm.length, 1, 'the culprit is confirmed against its own parent before it is named');
  assert.equal(confirm[0].sha, repo.culprit.sha);
  assert.equal(log.culprits[0].confirmation.parent, repo.merges[19].sha);
  assert.ok(log.culprits[0].share > 0.9 && log.culprits[0].share <= 1, `share ${log.culprits[0].share}`);
  assert.equal(log.steps.at(-1).sha === repo.culprit.sha || log.steps.some((s: { sha: string }) => s.sha === repo.culprit.sha), true, 'the culprit itself was measured');
  assert.equal(log.candidates.find((c: { sha: string }) => c.sha === repo.culprit.sha).author, 'Bo Chen');
});

test('--parallel 3 probes three merges per step: fewer steps, the same culprit, and a markdown bisect log', () => {
  const repo = makeMergeRepo({ merges: 32, culprit: 9 });
  const run = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad, ...bench, '--parallel', '3', '--benchmark', 'parse');
  assert.equal(run.status, 0, run.stderr);
  assert.match(run.stdout, /^### benchbot bisect: parse \(time\)/);
  assert.match(run.stdout, new RegExp(`\\*\\*Culprit:\\*\\* #109 \`${repo.culprit.sha.slice(0, 12)}\` Merge pull request #109`));
  const steps = Number(/ in (\d+) steps? over 32 candidate merges/.exec(run.stdout)?.[1]);
  assert.ok(steps >= 2 && steps <= 4, `steps ${steps}`);
  assert.match(run.stdout, /\| # \| Commit \| PR \| Subject \| Verdict \| n \| Ratio vs good \(CI\) \|/);
});

test('a merge that does not build is skipped; next to the culprit it leaves a two-merge range', () => {
  const repo = makeMergeRepo({ merges: 16, culprit: 9, broken: [8] });
  const run = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad, ...bench, '--output', 'json');
  assert.equal(run.status, 0, run.stderr);
  const log = JSON.parse(run.stdout);
  assert.equal(log.status, 'range');
  assert.equal(log.culprit, null);
  assert.deepEqual(log.range.map((c: { pr: number }) => c.pr), [108, 109]);
  const skip = log.steps.find((s: { verdict: string }) => s.verdict === 'skip');
  assert.equal(skip.sha, repo.merges[7].sha);
  assert.match(skip.reason, /build of .* failed with exit code 1/);
});

test('ends that do not differ: not reproducible after the first session, with the numbers', () => {
  const repo = makeMergeRepo({ merges: 8, culprit: 5, factor: 1 });
  const run = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad, ...bench, '--output', 'json');
  assert.equal(run.status, 0, run.stderr);
  const log = JSON.parse(run.stdout);
  assert.equal(log.status, 'not-reproducible');
  assert.equal(log.reference.reproducible, false);
  assert.ok(Math.abs(log.reference.ratio - 1) < 0.01);
  assert.equal(log.sessions, 1);
  assert.deepEqual(log.steps.map((s: { kind: string; verdict: string }) => [s.kind, s.verdict]), [['probe', 'unknown']]);
});

test('the stored nightly A/B of good vs bad (same job, same machine) is the reference session: not measured again', async () => {
  const repo = makeMergeRepo({ merges: 8, culprit: 6 });
  const fingerprint = await createExecutor({ kind: 'local' }).fingerprint();
  const store = await openStore(undefined, { cwd: repo.dir });
  const values = (center: number) => Array.from({ length: 10 }, (_, i) => center * (1 + 0.001 * ((i * 7) % 5)));
  const run = (sha: string, role: 'base' | 'nightly', parse: number, time: string) => ({
    sha, role, ...(role === 'nightly' ? { branch: 'main' } : {}), fingerprint: { ...fingerprint, loadAverage: 0.42 }, time, harness: 'plain', warnings: [], hints: {},
    measurements: [{ benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower' as const, values: values(parse) }],
  });
  // The nightly job of that night measured last night's commit (good) beside tonight's (bad), interleaved.
  await store.ingestRuns([run(repo.good, 'base', 100, '2026-01-02T02:00:00Z'), run(repo.bad, 'nightly', 108, '2026-01-02T02:00:00Z')]);
  await store.close();
  const out = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad, ...bench, '--output', 'json');
  assert.equal(out.status, 0, out.stderr);
  assert.match(out.stderr, new RegExp(`references: the stored nightly A/B of ${repo.good.slice(0, 12)} vs ${repo.bad.slice(0, 12)} on this machine`));
  const log = JSON.parse(out.stdout);
  assert.equal(log.culprit.pr, 106);
  assert.equal(log.reference.sessions, log.steps.filter((s: { kind: string }) => s.kind === 'probe').length + 1);
  assert.equal(log.sessions, log.steps.length - 1, 'the stored reference session is not counted');
});

test('the xxhash case: a session of the culprit lands in the other cluster; the innocent next merge is not named, the culprit is', () => {
  // The first round of merge #121 ever run puts the machine in the fast cluster for 9 rounds: with the culprit
  // measured on its own, its whole session looked good and the bisect named #122 (a merge that changed nothing).
  const repo = makeMergeRepo({ merges: 32, culprit: 21, otherCluster: 21 });
  const run = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad, ...bench, '--output', 'json');
  assert.equal(run.status, 0, run.stderr);
  const log = JSON.parse(run.stdout);
  const named = log.culprits.filter((c: { confirmation: { verdict: string } | null }) => c.confirmation?.verdict === 'confirmed').map((c: { pr: number }) => c.pr);
  assert.ok(!named.includes(122), `named ${named}`);
  assert.equal(log.status, 'found');
  assert.deepEqual(named, [121]);
  assert.equal(log.culprit.pr, 121);
  assert.ok(log.culprits.reduce((a: number, c: { share: number | null }) => a + (c.share ?? 0), 0) <= 1);
});

test('usage errors name the flag and exit 2', () => {
  const repo = makeMergeRepo({ merges: 2, culprit: 2 });
  const missing = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /--bench is required/);
  const parallel = benchbot(repo.dir, 'bisect', '--good', repo.good, '--bad', repo.bad, '--bench', 'x', '--parallel', '0');
  assert.equal(parallel.status, 2);
  assert.match(parallel.stderr, /--parallel 0: give a whole number of at least 1/);
  const ref = benchbot(repo.dir, 'bisect', '--good', 'nope', '--bad', repo.bad, '--bench', 'x');
  assert.equal(ref.status, 2);
  assert.match(ref.stderr, /--good nope: no such commit/);
});

test('run by the action (BENCHBOT_SETTING_NAMES=action), errors name the action inputs, not flags', () => {
  const repo = makeMergeRepo({ merges: 2, culprit: 2 });
  const env = { ...process.env, BENCHBOT_LOCK: join(repo.dir, '.git', 'machine.lock'), BENCHBOT_DATABASE_URL: '', BENCHBOT_SETTING_NAMES: 'action' };
  const run = (...args: string[]) => spawnSync(process.execPath, [BIN, 'bisect', ...args], { cwd: repo.dir, encoding: 'utf8', env });
  const ref = run('--good', 'nope', '--bad', repo.bad, '--bench', 'x');
  assert.equal(ref.status, 2);
  assert.match(ref.stderr, /bisect: good nope: no such commit/);
  const threshold = run('--good', repo.good, '--bad', repo.bad, '--bench', 'x', '--threshold', 'lots');
  assert.equal(threshold.status, 2);
  assert.match(threshold.stderr, /bisect: threshold lots is not a percentage/);
});
