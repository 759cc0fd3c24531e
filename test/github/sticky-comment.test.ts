import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isStickyComment, upsertStickyComment, withMarker } from '../../src/github/sticky-comment.ts';
import type { StickyCommentOptions } from '../../src/github/sticky-comment.ts';
import { useStandInClient } from '../support/use-stand-in-client.ts';
import { compareRuns } from '../../src/compare/compare-runs.ts';
import { renderMarkdown } from '../../src/report/markdown-report.ts';
import { ATTACK } from '../report/markdown-tree.ts';
import type { Account } from '../support/github-api-stand-in.ts';

const MARKER = '<!-- benchbot:report -->';
const target = { owner: 'octo-org', repo: 'widgets', issueNumber: 12 };
const bot: Account = { login: 'github-actions[bot]', type: 'Bot' };
const alice: Account = { login: 'alice', type: 'User' };

const github = useStandInClient();

function upsert(body: string, extra: Partial<StickyCommentOptions> = {}) {
  return upsertStickyComment(github.client, { ...target, marker: MARKER, body, ...extra });
}

const onIssue = () => github.standIn.state.comments.filter((c) => c.issueNumber === target.issueNumber);
const writes = () => github.standIn.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.template}`);

test('first run creates the comment with the marker as its first line; later runs update that same comment', async () => {
  const first = await upsert('## benchbot: 1 regression');
  assert.equal(first.action, 'created');
  assert.equal(onIssue().length, 1);
  assert.equal(onIssue()[0].body, `${MARKER}\n## benchbot: 1 regression`);
  assert.equal(first.url, `https://github.com/octo-org/widgets/issues/12#issuecomment-${first.id}`);

  const second = await upsert('## benchbot: no regressions');
  assert.deepEqual(second, { action: 'updated', id: first.id, url: first.url, deletedIds: [], truncated: false });
  assert.equal(onIssue().length, 1);
  assert.equal(onIssue()[0].body, `${MARKER}\n## benchbot: no regressions`);
});

test('an identical body is left alone: no write at all', async () => {
  const first = await upsert('same report');
  github.standIn.requests.length = 0;
  const again = await upsert('same report');
  assert.deepEqual(again, { action: 'unchanged', id: first.id, url: first.url, deletedIds: [], truncated: false });
  assert.deepEqual(writes(), []);
});

test('a body GitHub hands back with CRLF line ends counts as unchanged', async () => {
  const seeded = github.standIn.addComment({ ...target, body: `${MARKER}\r\nline one\r\nline two`, user: bot });
  const result = await upsert('line one\nline two');
  assert.equal(result.action, 'unchanged');
  assert.equal(result.id, seeded.id);
});

test('not fooled by humans quoting or copying the marker, nor by other bots', async () => {
  const quoted = github.standIn.addComment({ ...target, body: `> ${MARKER}\n> ## benchbot: 3 regressions\n\nIs this real?`, user: alice });
  const copied = github.standIn.addComment({ ...target, body: `${MARKER}\nI pasted the report here`, user: alice });
  const otherBot = github.standIn.addComment({ ...target, body: `${MARKER}\nsome other app`, user: { login: 'other-app[bot]', type: 'Bot' } });
  const result = await upsert('## benchbot: all clear');
  assert.equal(result.action, 'created');
  assert.notEqual(result.id, quoted.id);
  assert.equal(onIssue().length, 4);
  assert.equal(github.standIn.state.comments.find((c) => c.id === quoted.id)?.body, quoted.body);
  assert.equal(github.standIn.state.comments.find((c) => c.id === copied.id)?.body, copied.body);
  assert.equal(github.standIn.state.comments.find((c) => c.id === otherBot.id)?.body, otherBot.body);
});

test('a bot comment that mentions the marker later in its body is not ours', () => {
  const base = { id: 1, html_url: 'x', created_at: '2025-01-01T00:00:00Z', user: bot };
  assert.equal(isStickyComment({ ...base, body: `${MARKER}\nreport` }, MARKER), true);
  assert.equal(isStickyComment({ ...base, body: `${MARKER}  \r\nreport` }, MARKER), true);
  assert.equal(isStickyComment({ ...base, body: `  ${MARKER}\nreport` }, MARKER), false, 'only at the very start');
  assert.equal(isStickyComment({ ...base, body: `${MARKER} and more\nreport` }, MARKER), false, 'alone on its line');
  assert.equal(isStickyComment({ ...base, body: `intro\n${MARKER}\nreport` }, MARKER), false);
  assert.equal(isStickyComment({ ...base, body: `${MARKER}\nreport`, user: null }, MARKER), false);
  assert.equal(isStickyComment({ ...base, body: `${MARKER}\nreport`, user: { login: 'GitHub-Actions[bot]', type: 'Bot' } }, MARKER), true);
  assert.equal(withMarker(MARKER, `${MARKER}\nbody`), `${MARKER}\nbody`);
  assert.equal(withMarker(MARKER, 'body'), `${MARKER}\nbody`);
});

test('the bot comment is found beyond the first page of comments', async () => {
  for (let i = 0; i < 230; i++) github.standIn.addComment({ ...target, body: `chatter ${i}`, user: alice });
  const ours = github.standIn.addComment({ ...target, body: `${MARKER}\nold report`, user: bot });
  for (let i = 0; i < 20; i++) github.standIn.addComment({ ...target, body: `more chatter ${i}`, user: alice });
  const result = await upsert('new report');
  assert.equal(result.action, 'updated');
  assert.equal(result.id, ours.id);
  assert.equal(onIssue().length, 251);
  assert.equal(github.standIn.requests.filter((r) => r.method === 'GET').length, 3);
});

test('duplicates from racing runs: the oldest is kept and updated, later ones deleted', async () => {
  const oldest = github.standIn.addComment({ ...target, body: `${MARKER}\nreport from run 1`, user: bot });
  github.standIn.addComment({ ...target, body: 'a human in between', user: alice });
  const dup1 = github.standIn.addComment({ ...target, body: `${MARKER}\nreport from run 2`, user: bot });
  const dup2 = github.standIn.addComment({ ...target, body: `${MARKER}\nreport from run 3`, user: bot });
  const result = await upsert('report from run 4');
  assert.equal(result.action, 'updated');
  assert.equal(result.id, oldest.id);
  assert.deepEqual(result.deletedIds, [dup1.id, dup2.id]);
  assert.deepEqual(onIssue().map((c) => c.body), [`${MARKER}\nreport from run 4`, 'a human in between']);
});

test('duplicates are cleaned even when the kept body is current, and a duplicate already gone is fine', async () => {
  const kept = github.standIn.addComment({ ...target, body: `${MARKER}\ncurrent`, user: bot });
  const dup1 = github.standIn.addComment({ ...target, body: `${MARKER}\ncurrent`, user: bot });
  const dup2 = github.standIn.addComment({ ...target, body: `${MARKER}\ncurrent`, user: bot });
  // Another run deleted dup1 between our list and our delete.
  github.standIn.failNext({ method: 'DELETE', path: `/repos/octo-org/widgets/issues/comments/${dup1.id}`, status: 404, body: { message: 'Not Found', documentation_url: 'https://docs.github.com/rest' } });
  const result = await upsert('current');
  assert.deepEqual(result, { action: 'deleted-duplicates', id: kept.id, url: result.url, deletedIds: [dup1.id, dup2.id], truncated: false });
  assert.deepEqual(onIssue().map((c) => c.id), [kept.id, dup1.id]);
});

test('on-change: no new comment for a report without changes, but an existing one is still updated', async () => {
  const skipped = await upsert('nothing changed', { mode: 'on-change', hasChanges: false });
  assert.deepEqual(skipped, { action: 'skipped', deletedIds: [], truncated: false });
  assert.equal(onIssue().length, 0);
  assert.deepEqual(writes(), []);

  const created = await upsert('1 regression', { mode: 'on-change', hasChanges: true });
  assert.equal(created.action, 'created');
  const updated = await upsert('fixed: nothing changed', { mode: 'on-change', hasChanges: false });
  assert.equal(updated.action, 'updated');
  assert.equal(updated.id, created.id);
  assert.equal(onIssue()[0].body, `${MARKER}\nfixed: nothing changed`);
});

test('always mode creates even without changes', async () => {
  const result = await upsert('nothing changed', { mode: 'always', hasChanges: false });
  assert.equal(result.action, 'created');
});

test('two markers keep two separate comments', async () => {
  const report = await upsert('report');
  const other = await upsert('nightly', { marker: '<!-- benchbot:nightly -->' });
  assert.notEqual(report.id, other.id);
  assert.equal((await upsert('report v2')).id, report.id);
  assert.equal(onIssue().length, 2);
});

test('a report beyond GitHub\'s comment limit is cut with a note instead of being refused', async () => {
  const huge = '| BM_Parse/4096 | 0.98x | unchanged |\n'.repeat(3000);
  const tooLong = await github.client.request('POST', '/repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: target.owner, repo: target.repo, issue_number: target.issueNumber, body: huge }).catch((e: Error) => e);
  assert.match(String(tooLong), /failed with 422: Validation Failed: errors: .*Body is too long \(maximum is 65536 characters\)/);
  const result = await upsert(huge);
  assert.equal(result.action, 'created');
  assert.equal(result.truncated, true);
  const stored = onIssue().at(-1)!.body;
  assert.ok(stored.startsWith(`${MARKER}\n| BM_Parse/4096 |`));
  assert.ok(new TextEncoder().encode(stored).length <= 65536);
  assert.match(stored, /\| unchanged \|\n\n---\n_benchbot truncated this comment: the report is \d+ bytes and GitHub allows 65536\. The job summary has the full report\._\n$/);
  assert.equal((await upsert(huge)).action, 'unchanged');
});

test('botLogin names the app account; null accepts any Bot author', async () => {
  const appComment = github.standIn.addComment({ ...target, body: `${MARKER}\nold`, user: { login: 'benchbot[bot]', type: 'Bot' } });
  github.standIn.state.actor = { login: 'benchbot[bot]', type: 'Bot' };
  try {
    const byLogin = await upsert('new', { botLogin: 'benchbot[bot]' });
    assert.equal(byLogin.id, appComment.id);
    const anyBot = await upsert('newer', { botLogin: null });
    assert.equal(anyBot.id, appComment.id);
    assert.equal(anyBot.action, 'updated');
    // The default login (github-actions[bot]) does not own the app's comment.
    const byDefault = await upsert('newest');
    assert.equal(byDefault.action, 'created');
  } finally {
    github.standIn.state.actor = bot;
  }
});

test('a report whose unit carries a second marker (issue 10) still reconciles to one comment, marker only at the start', async () => {
  const m = (values: number[]) => ({ benchmark: 'BM_<b>@octocat', metric: 'real_time', unit: ATTACK, better: 'lower' as const, values });
  const report = compareRuns({ measurements: [m([100, 101, 102, 99, 100, 101])], warnings: [], hints: {} }, { measurements: [m([120, 121, 122, 119, 120, 121])], warnings: [], hints: {} });
  const body = renderMarkdown(report, { marker: MARKER });
  assert.equal(body.split(MARKER).length, 2, 'the unit cannot write the marker');
  assert.equal(body.split('<!--').length, 2, 'nor open a comment');

  // A human quotes the report (marker and all) before the next run.
  const first = await upsert(body, { mode: 'always' });
  github.standIn.addComment({ ...target, body: `> ${body.split('\n').join('\n> ')}\n\nwhy?`, user: alice });
  const second = await upsert(body.replace('benchbot:', 'benchbot (run 2):'));
  assert.equal(first.action, 'created');
  assert.equal(second.action, 'updated');
  assert.equal(second.id, first.id);
  const ours = onIssue().filter((c) => c.user.login === bot.login);
  assert.equal(ours.length, 1);
  assert.equal(ours[0].body.indexOf(MARKER), 0);
  assert.equal(ours[0].body.indexOf(MARKER, 1), -1);
});
