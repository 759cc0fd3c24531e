import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { ActionInputError, inputEnvName, readActionInputs } from '../../src/action/action-inputs.ts';
import { overallVerdict, runAction } from '../../src/action/run-action.ts';
import { captureStdout } from './run-step.ts';

function env(inputs: Record<string, string>, extra: Record<string, string> = {}): Record<string, string> {
  const result: Record<string, string> = { GITHUB_WORKSPACE: '/work/space', HOME: '/home/runner', ...extra };
  for (const [name, value] of Object.entries(inputs)) result[inputEnvName(name)] = value;
  return result;
}

test('readActionInputs: the defaults the README documents', () => {
  const s = readActionInputs(env({ bench: './bench', build: '', format: '', 'check-name': '', comment: '' }));
  assert.equal(s.bench, './bench');
  assert.equal(s.build, undefined);
  assert.equal(s.format, undefined);
  assert.equal(s.minRuns, 10);
  assert.equal(s.maxRuns, 40);
  assert.equal(s.threshold, 0.02);
  assert.equal(s.alpha, 0.05);
  assert.deepEqual(s.executor, { kind: 'local' });
  assert.equal(s.store, join('/home/runner', '.benchbot', 'benchbot.db'));
  assert.equal(s.comment, 'always');
  assert.equal(s.failOn, 'regression');
  assert.equal(s.mode, 'pr');
  assert.equal(s.workingDirectory, '/work/space');
  assert.equal(s.checkName, 'benchbot');
  assert.equal(s.artifactName, 'benchbot-results');
  assert.equal(s.role, 'measure');
  assert.equal(s.githubToken, '');
  assert.equal(s.shard, undefined);
  assert.deepEqual(s.rules, []);
  assert.equal(s.filter, undefined);
});

test('readActionInputs: /bench REGEX and the config thresholds arrive as filter and thresholds', () => {
  const s = readActionInputs(env({ bench: 'b', filter: '^BM_Parse', thresholds: 'BM_Net*=10%\n\n  BM_Net/64=15%  \n' }));
  assert.ok(s.filter?.test('BM_Parse/64') && !s.filter.test('BM_Sort'));
  assert.deepEqual(s.rules, [{ glob: 'BM_Net*', threshold: 0.1 }, { glob: 'BM_Net/64', threshold: 0.15 }]);
});

test('readActionInputs: store none, the database URL from the environment, shards and nightly names', () => {
  assert.equal(readActionInputs(env({ bench: 'b', store: 'none' })).store, undefined);
  assert.equal(readActionInputs(env({ bench: 'b' }, { BENCHBOT_DATABASE_URL: 'postgres://h/db' })).store, 'postgres://h/db');
  // An unset secret arrives as an empty variable and must not hide the default.
  assert.match(readActionInputs(env({ bench: 'b' }, { BENCHBOT_DATABASE_URL: '' })).store ?? '', /benchbot\.db$/);
  const shard = readActionInputs(env({ bench: 'b', shard: '2/4' }));
  assert.deepEqual(shard.shard, { index: 2, count: 4 });
  assert.equal(shard.artifactName, 'benchbot-results-shard-2-of-4');
  assert.equal(readActionInputs(env({ bench: 'b', shard: '1/1' })).shard, undefined);
  const nightly = readActionInputs(env({ bench: 'b', mode: 'nightly' }));
  assert.equal(nightly.checkName, 'benchbot nightly');
  assert.equal(nightly.artifactName, 'benchbot-nightly-results');
  assert.equal(readActionInputs(env({ bench: 'b', 'check-name': 'none' })).checkName, '');
  const report = readActionInputs(env({ merge: 'shards', 'github-token': 'ghs_x' }));
  assert.equal(report.merge, '/work/space/shards');
  assert.equal(report.role, 'report');
  assert.equal(report.artifactName, 'benchbot-report');
  assert.equal(report.githubToken, 'ghs_x');
  assert.equal(readActionInputs(env({ merge: 'r', mode: 'nightly' })).artifactName, 'benchbot-nightly');
  assert.deepEqual(readActionInputs(env({ bench: 'b', executor: 'device', 'device-run': 'adb shell {cmd}', 'device-push': 'adb push {src} {dst}' })).executor, { kind: 'device', run: 'adb shell {cmd}', push: 'adb push {src} {dst}' });
});

test('readActionInputs: every bad value is an error that names the input', () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{}, /^bench: required/],
    [{ bench: 'b', 'min-runs': '1' }, /^min-runs: "1" is not a whole number of at least 2/],
    [{ bench: 'b', 'max-runs': 'lots' }, /^max-runs: "lots"/],
    [{ bench: 'b', 'min-runs': '30', 'max-runs': '20' }, /^max-runs: 20 is below min-runs 30/],
    [{ bench: 'b', threshold: 'big' }, /^threshold: "big" is not a percentage/],
    [{ bench: 'b', threshold: '0.5' }, /^threshold: "0.5" is ambiguous: write 0\.5% or 50%/],
    [{ bench: 'b', thresholds: 'BM_*=0.1' }, /^thresholds: "BM_\*=0.1" is not GLOB=PERCENT: 0.1 is ambiguous: write 0\.1% or 10%/],
    [{ bench: 'b', alpha: '0.7' }, /^alpha: "0.7"/],
    [{ bench: 'b', executor: 'ftp://x' }, /^executor: /],
    [{ bench: 'b', executor: 'device' }, /^executor: device needs device-run, a command template/],
    [{ bench: 'b', executor: 'device', 'device-run': 'adb shell' }, /^device-run: "adb shell" has no \{cmd\}/],
    [{ bench: 'b', format: 'csv' }, /^format: unknown format "csv"; use one of: /],
    [{ bench: 'b', comment: 'sometimes' }, /^comment: "sometimes" is not one of always, on-change, never/],
    [{ bench: 'b', 'fail-on': 'improvement' }, /^fail-on: "improvement" is not one of regression, never/],
    [{ bench: 'b', counters: 'yes' }, /^counters: "yes" is not true or false/],
    [{ bench: 'b', shard: '5/4' }, /^shard: "5\/4" is not INDEX\/COUNT/],
    [{ bench: 'b', shard: '1/2', merge: 'dir' }, /^shard: /],
    [{ bench: 'b', 'max-load': '-1' }, /^max-load: "-1"/],
    [{ bench: 'b', 'pr-number': '0' }, /^pr-number: "0"/],
    [{ bench: 'b', 'artifact-name': 'a/b' }, /^artifact-name: "a\/b"/],
    [{ bench: 'b', filter: '(' }, /^filter: "\(" is not a regular expression/],
    [{ bench: 'b', thresholds: 'BM_*=lots' }, /^thresholds: "BM_\*=lots" is not GLOB=PERCENT/],
  ];
  for (const [inputs, message] of cases) {
    assert.throws(() => readActionInputs(env(inputs)), (error: unknown) => error instanceof ActionInputError && message.test(error.message), JSON.stringify(inputs));
  }
});

test('the measuring role refuses a token in its environment, naming where it came from and where it belongs', () => {
  const cases: [Record<string, string>, Record<string, string>, RegExp][] = [
    [{ bench: 'b', 'github-token': 'ghs_0123456789abcdefghijklmnopqrstuvwxyz' }, {}, /^github-token: the measuring step runs the repository's build and bench commands.*give github-token to the report job/],
    [{ bench: 'b' }, { GITHUB_TOKEN: 'ghs_0123456789abcdefghijklmnopqrstuvwxyz' }, /^GITHUB_TOKEN is set in the measuring step's environment.*remove it from this job/],
    [{ bench: 'b' }, { GH_TOKEN: 'gho_x' }, /^GH_TOKEN is set/],
  ];
  for (const [inputs, extra, message] of cases) {
    assert.throws(() => readActionInputs(env(inputs, extra)), (error: unknown) => error instanceof ActionInputError && message.test(error.message), JSON.stringify(extra));
  }
  // An empty variable (an unset secret) is no token.
  assert.equal(readActionInputs(env({ bench: 'b', 'github-token': '' }, { GITHUB_TOKEN: '' })).githubToken, '');
  // The report role runs no repository code and is where the token belongs.
  assert.equal(readActionInputs(env({ merge: 'r', 'github-token': 'ghs_x' }, { GITHUB_TOKEN: 'ghs_y' })).githubToken, 'ghs_x');
});

test('runAction turns a bad input into one ::error:: line naming it and exit code 2', async () => {
  const lines: string[] = [];
  const code = await captureStdout(lines, () => runAction({ env: env({ bench: 'b', threshold: '2 percent' }), log: (l) => lines.push(l), now: () => '2026-01-01T00:00:00Z' }));
  assert.equal(code, 2);
  // '%' is escaped as %25 in workflow commands, as GitHub's toolkit does.
  assert.deepEqual(lines, ['::error title=benchbot::threshold: "2 percent" is not a percentage such as 2%25 or 0.5%25']);
});

test('overallVerdict names the most important outcome', () => {
  const zero = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0, new: 0, removed: 0, error: 0, geomeanRatio: null };
  assert.equal(overallVerdict(zero), 'unchanged');
  assert.equal(overallVerdict({ ...zero, inconclusive: 1 }), 'inconclusive');
  assert.equal(overallVerdict({ ...zero, inconclusive: 1, improved: 1 }), 'improved');
  assert.equal(overallVerdict({ ...zero, improved: 1, error: 1 }), 'error');
  assert.equal(overallVerdict({ ...zero, regressed: 1, error: 1 }), 'regressed');
});

test('readActionInputs: instructions is false, true, or the pattern of the benchmarks to count; never beside counters', () => {
  assert.equal(readActionInputs(env({ bench: 'b' })).instructions, undefined);
  assert.equal(readActionInputs(env({ bench: 'b', instructions: 'false' })).instructions, undefined);
  // No repeats: the count resolves them by harness (3; 5 layouts for pytest-benchmark).
  assert.deepEqual(readActionInputs(env({ bench: 'b', instructions: 'true' })).instructions, {});
  const some = readActionInputs(env({ bench: 'b', instructions: '^BM_Sum' })).instructions;
  assert.equal(some?.repeats, undefined);
  assert.ok(some?.filter?.test('BM_Sum/64') && !some.filter.test('BM_Hash'));
  assert.throws(() => readActionInputs(env({ bench: 'b', instructions: '(a' })), (e: Error) => e instanceof ActionInputError && /^instructions: "\(a" is neither true, false nor a benchmark-name pattern/.test(e.message));
  assert.throws(() => readActionInputs(env({ bench: 'b', instructions: 'true', counters: 'true' })), (e: Error) => e instanceof ActionInputError && /^instructions: not with counters/.test(e.message));
});
