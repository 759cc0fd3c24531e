/**
 * The report job against a results artifact written by an attacker (the
 * measuring job ran their code, so they control every byte of it): a
 * `summary` and `verdict`s that say "all unchanged" beside raw samples that
 * show a 10% regression, and a `head_sha` naming another commit. The report
 * job recomputes everything from the samples and reports only on the
 * commits it was given, through the real GitHub client against the API
 * stand-in.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { assertAllValid, startGitHubApiStandIn, type GitHubApiStandIn } from '../support/github-api-stand-in.ts';
import { lognormalSamples } from '../support/samples.ts';
import { runStep, writeEvent } from './run-step.ts';

const BASE_SHA = 'b'.repeat(40);
const HEAD_SHA = 'c'.repeat(40);
const OTHER_SHA = 'd'.repeat(40);

let standIn: GitHubApiStandIn;
before(async () => {
  standIn = await startGitHubApiStandIn();
});
after(async () => {
  assertAllValid(standIn);
  await standIn.close();
});

/** forgedPart writes one results artifact: honest samples (parse 10% slower at head), a forged report.json. */
function forgedPart(dir: string, options: { headSha?: string; benchmarks?: string[]; seed?: number } = {}): string {
  mkdirSync(dir, { recursive: true });
  const seed = options.seed ?? 1;
  const side = (parseLevel: number, offset: number) => JSON.stringify({
    version: 1,
    benchmarks: (options.benchmarks ?? ['parse', 'hash']).map((name, i) => ({ benchmark: name, unit: 'us', values: lognormalSamples(20, name === 'parse' ? parseLevel : 50, 0.003, seed * 100 + offset + i) })),
  });
  writeFileSync(join(dir, 'base.json'), side(100, 0));
  writeFileSync(join(dir, 'head.json'), side(110, 10));
  writeFileSync(join(dir, 'report.json'), JSON.stringify({
    version: 1,
    comparisons: [{ benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower', verdict: 'unchanged', ratio: 1, warnings: [] }],
    summary: { regressed: 0, improved: 0, unchanged: 2, inconclusive: 0, new: 0, removed: 0, error: 0, geomean_ratio: 1 },
    verdict: 'unchanged',
    head_sha: options.headSha ?? HEAD_SHA,
    base_sha: BASE_SHA,
    environment: 'Attacker CPU <img src=x>, 1 cores',
  }));
  return dir;
}

async function report(merge: string, pr: number) {
  const work = mkdtempSync(join(tmpdir(), 'benchbot-forged-'));
  const summaryFile = join(work, 'summary.md');
  writeFileSync(summaryFile, '');
  const before = { checks: standIn.state.checkRuns.length, requests: standIn.requests.length };
  const env = { HOME: work, RUNNER_TEMP: work, GITHUB_REPOSITORY: 'octo/fixture', GITHUB_API_URL: standIn.url, GITHUB_EVENT_PATH: writeEvent(work, { number: pr, baseSha: BASE_SHA, headSha: HEAD_SHA }), GITHUB_STEP_SUMMARY: summaryFile, GITHUB_SERVER_URL: 'https://github.com', GITHUB_RUN_ID: '31' };
  const run = await runStep({ merge, 'github-token': 'ghs_test' }, env);
  return {
    ...run,
    checks: standIn.state.checkRuns.slice(before.checks),
    comments: standIn.state.comments.filter((c) => c.issueNumber === pr),
    requests: standIn.requests.slice(before.requests).filter((r) => !r.path.startsWith('/__')),
    summary: readFileSync(summaryFile, 'utf8'),
  };
}

test('a forged summary.regressed: 0 beside regressed rows: the report job counts 1 regression and the check fails', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-results-'));
  const r = await report(forgedPart(dir), 31);
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.equal(r.outputs.verdict, 'regressed');
  assert.equal(r.outputs.regressions, '1');
  assert.equal(r.outputs.fail, 'true');
  assert.equal(r.checks.length, 1);
  assert.equal(r.checks[0].conclusion, 'failure');
  assert.equal(r.checks[0].headSha, HEAD_SHA);
  assert.match(r.checks[0].output.title ?? '', /^1 regression/);
  assert.equal(r.comments.length, 1);
  assert.match(r.comments[0].body, /### benchbot: 1 regression/);
  assert.match(r.comments[0].body, /(`|<code>)parse(`|<\/code>)[^\n]*regressed/);
  assert.match(r.summary, /### benchbot: 1 regression/);
  // The footer is two lines: the statistics behind a <details>, then one line with the environment and the link to the run.
  const footer = r.comments[0].body.slice(r.comments[0].body.lastIndexOf('<details><summary>How these verdicts were reached</summary>'));
  const after = footer.slice(footer.indexOf('</details>') + '</details>'.length).split('\n').filter((l) => l !== '');
  assert.equal(after.length, 1, footer);
  assert.match(after[0], /^<sub>Environment: .*\[Workflow run\]\(https:\/\/github\.com\/octo\/fixture\/actions\/runs\/31\) · JSON report: artifact `[^`]+`<\/sub>$/);
  // The artifact's machine line is shown as inert text, never as HTML.
  assert.doesNotMatch(r.comments[0].body, /<img/);
  const published = JSON.parse(readFileSync(join(r.outputs['artifact-path'], 'report.json'), 'utf8'));
  assert.equal(published.summary.regressed, 1);
  assert.equal(published.head_sha, HEAD_SHA);
  assert.equal(published.comparisons.find((c: { benchmark: string }) => c.benchmark === 'parse').verdict, 'regressed');
});

test('sharded or not, the same path: two forged shards are pooled and recomputed', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-results-'));
  forgedPart(join(dir, 'benchbot-results-shard-1-of-2'), { benchmarks: ['parse'], seed: 2 });
  forgedPart(join(dir, 'benchbot-results-shard-2-of-2'), { benchmarks: ['hash'], seed: 3 });
  const r = await report(dir, 32);
  assert.equal(r.code, 0, r.lines.join('\n'));
  assert.equal(r.outputs.regressions, '1');
  assert.deepEqual(r.checks.map((c) => [c.headSha, c.conclusion]), [[HEAD_SHA, 'failure']]);
  assert.match(r.comments[0].body, /Merged from 2 shards/);
});

test('results that name another head commit are refused: nothing is written to GitHub', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-results-'));
  const r = await report(forgedPart(dir, { headSha: OTHER_SHA }), 33);
  assert.equal(r.code, 2);
  assert.match(r.lines.join('\n'), new RegExp(`::error title=benchbot::merge: .* holds results of head ${OTHER_SHA}, but this run reports on ${HEAD_SHA}`));
  assert.deepEqual(r.requests, [], 'no request reached GitHub');
  assert.equal(r.checks.length, 0);
});

test('a results artifact without raw samples is refused, whatever its summary says', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-results-'));
  writeFileSync(join(dir, 'report.json'), JSON.stringify({ version: 1, comparisons: [], summary: { regressed: 0 }, head_sha: HEAD_SHA }));
  const r = await report(dir, 34);
  assert.equal(r.code, 2);
  assert.match(r.lines.join('\n'), /::error title=benchbot::merge: no base\.json and head\.json under /);
  assert.deepEqual(r.requests, []);
});

/**
 * A link in the artifact points at a file of the report job's runner. Its
 * target is itself a readable benchbot JSON whose benchmark name is the
 * secret, so following the link would put the secret in the report, and
 * the next test's target is not JSON, so a parse error quoting it would
 * show it in an annotation: neither may happen.
 */
for (const file of ['base.json', 'head.json', 'report.json'] as const) {
  test(`a ${file} that is a symbolic link is refused by name; its target is never read`, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'benchbot-results-'));
    forgedPart(dir);
    const secret = join(mkdtempSync(join(tmpdir(), 'benchbot-secret-')), 'id_ed25519');
    writeFileSync(secret, file === 'report.json'
      ? 'SECRETKEY1-not-json'
      : JSON.stringify({ version: 1, benchmarks: [{ benchmark: 'SECRETKEY1', unit: 'us', values: lognormalSamples(20, 100, 0.003, 9) }] }));
    rmSync(join(dir, file));
    symlinkSync(secret, join(dir, file));
    const r = await report(dir, 35);
    assert.equal(r.code, 2, r.lines.join('\n'));
    const log = r.lines.join('\n');
    assert.match(log, new RegExp(`::error title=benchbot[^:]*::.*${file.replace('.', '\\.')}:? .*(symbolic link|not links)`));
    assert.doesNotMatch(`${log}\n${r.summary}`, /SECRETKEY/);
    assert.deepEqual(r.requests, [], 'no request reached GitHub');
  });
}

test('a head.json linked to a file that is not JSON: refused as a link, no byte of the target in any annotation', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-results-'));
  forgedPart(dir);
  const secret = join(mkdtempSync(join(tmpdir(), 'benchbot-secret-')), 'token');
  writeFileSync(secret, 'ghp_SECRETKEY1234567890\n');
  rmSync(join(dir, 'head.json'));
  symlinkSync(secret, join(dir, 'head.json'));
  const r = await report(dir, 36);
  assert.equal(r.code, 2);
  assert.match(r.lines.join('\n'), /head\.json: is a symbolic link; benchbot does not follow links/);
  assert.doesNotMatch(r.lines.join('\n'), /ghp_|SECRET/);
});
