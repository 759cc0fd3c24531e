import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CHECK_RUN_TEXT_LIMIT, conclusionFor, publishCheckRun, truncateForCheckRun } from '../../src/github/check-run.ts';
import { GitHubError } from '../../src/github/github-client.ts';
import { useStandInClient } from '../support/use-stand-in-client.ts';
import { compareRuns } from '../../src/compare/compare-runs.ts';
import { renderMarkdown } from '../../src/report/markdown-report.ts';
import { ATTACK, liveText, structure } from '../report/markdown-tree.ts';

const repo = { owner: 'octo-org', repo: 'widgets' };
const headSha = '3f786850e387550fdab836ed7e6dc881de23001b';
const utf8Length = (s: string) => new TextEncoder().encode(s).length;

const github = useStandInClient();

test('conclusionFor: failure only when something regressed and failOn is regression', () => {
  assert.equal(conclusionFor({ regressed: 2 }, 'regression'), 'failure');
  assert.equal(conclusionFor({ regressed: 2 }, 'never'), 'neutral');
  assert.equal(conclusionFor({ regressed: 0 }, 'regression'), 'success');
  assert.equal(conclusionFor({ regressed: 0 }, 'never'), 'success');
});

test('publishCheckRun creates a completed check run whose body GitHub\'s schema accepts', async () => {
  const result = await publishCheckRun(github.client, { ...repo, headSha, name: 'benchbot', conclusion: 'failure', title: '1 regression', summary: '## benchbot\n\n| bench | ratio |', text: 'details', detailsUrl: 'https://example.com/run/1' });
  assert.deepEqual(result, { id: result.id, url: `https://github.com/octo-org/widgets/runs/${result.id}`, truncated: false });
  const [req] = github.standIn.requests;
  assert.equal(`${req.method} ${req.template}`, 'POST /repos/{owner}/{repo}/check-runs');
  assert.deepEqual(req.body, {
    name: 'benchbot',
    head_sha: headSha,
    status: 'completed',
    conclusion: 'failure',
    details_url: 'https://example.com/run/1',
    output: { title: '1 regression', summary: '## benchbot\n\n| bench | ratio |', text: 'details' },
  });
  const [run] = github.standIn.state.checkRuns;
  assert.equal(run.status, 'completed');
  assert.equal(run.conclusion, 'failure');
  assert.equal(run.headSha, headSha);
});

test('publishCheckRun with checkRunId updates that run', async () => {
  const created = await publishCheckRun(github.client, { ...repo, headSha, name: 'benchbot', conclusion: 'neutral', title: 'first', summary: 'a' });
  const updated = await publishCheckRun(github.client, { ...repo, headSha, name: 'benchbot', conclusion: 'success', title: 'second', summary: 'b', checkRunId: created.id });
  assert.equal(updated.id, created.id);
  assert.equal(github.standIn.requests[1].method, 'PATCH');
  assert.equal(github.standIn.state.checkRuns.length, 1);
  assert.equal(github.standIn.state.checkRuns[0].conclusion, 'success');
  assert.equal(github.standIn.state.checkRuns[0].output.title, 'second');
});

test('an over-long summary is truncated with a note and still accepted', async () => {
  const row = '| BM_Sort/1024 | 1.02x | unchanged |\n';
  const summary = row.repeat(3000);
  assert.ok(summary.length > CHECK_RUN_TEXT_LIMIT);
  const result = await publishCheckRun(github.client, { ...repo, headSha, name: 'benchbot', conclusion: 'success', title: 't', summary, text: summary });
  assert.equal(result.truncated, true);
  const sent = (github.standIn.requests[0].body as { output: { summary: string; text: string } }).output;
  assert.ok(utf8Length(sent.summary) <= CHECK_RUN_TEXT_LIMIT);
  const note = `| unchanged |\n\n---\n_benchbot truncated this text: it was ${utf8Length(summary)} bytes and GitHub allows 65535.`;
  assert.ok(sent.summary.includes(note), `summary ends with ${JSON.stringify(sent.summary.slice(-200))}`);
  assert.ok(sent.text.endsWith('the full report._\n'));
});

test('without truncation the same summary is refused: the stand-in enforces maxLength', async () => {
  const summary = 'x'.repeat(CHECK_RUN_TEXT_LIMIT + 1);
  await assert.rejects(github.client.request('POST', '/repos/{owner}/{repo}/check-runs', { ...repo, name: 'benchbot', head_sha: headSha, status: 'completed', conclusion: 'success', output: { title: 't', summary } }), (e: unknown) => e instanceof GitHubError && e.status === 422 && /body\/output\/summary must NOT have more than 65535 characters/.test(e.message));
  assert.equal(github.standIn.requests[0].errors.length, 1);
  github.standIn.requests.length = 0;
});

test('truncateForCheckRun counts UTF-8 bytes and never splits a character', () => {
  const text = 'é🚀'.repeat(20_000);
  const { text: cut, truncated } = truncateForCheckRun(text);
  assert.equal(truncated, true);
  assert.ok(utf8Length(cut) <= CHECK_RUN_TEXT_LIMIT);
  assert.ok(!cut.includes('\uFFFD'));
  assert.ok(cut.startsWith('é🚀é🚀'));
  assert.deepEqual(truncateForCheckRun('short'), { text: 'short', truncated: false });
  assert.equal(truncateForCheckRun('a'.repeat(10), 10).truncated, false);
  assert.throws(() => truncateForCheckRun('a'.repeat(100), 20), /leaves no room for the note/);
});

test('the check run carrying a hostile benchmark: title one line without live mentions, summary rendered inert (issue 10)', async () => {
  const hostile = 'BM_x @octocat #12\n\n<img src=x>';
  const m = (values: number[]) => ({ benchmark: hostile, metric: 'real_time', unit: ATTACK, better: 'lower' as const, values });
  const report = compareRuns({ measurements: [m([100, 101, 102, 99, 100, 101])], warnings: [], hints: {} }, { measurements: [m([120, 121, 122, 119, 120, 121])], warnings: [], hints: {} });
  const summary = renderMarkdown(report).split('\n').slice(1).join('\n');
  await publishCheckRun(github.client, { ...repo, headSha, name: 'benchbot', conclusion: 'failure', title: `Regressed: ${hostile}`, summary });
  const output = (github.standIn.requests[0].body as { output: { title: string; summary: string } }).output;
  assert.ok(!output.title.includes('\n'));
  assert.ok(!/@octocat|#12/.test(output.title), output.title);
  assert.ok(!structure(output.summary).some((n) => /^(image|link)\b|^html "(?!<\/?(code|details|summary|sub)>)/.test(n)), structure(output.summary).join('\n'));
  assert.deepEqual(liveText(output.summary), []);
  assert.ok(!output.summary.includes('<img') && !output.summary.includes('<!--'), output.summary);
});
