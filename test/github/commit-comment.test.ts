import assert from 'node:assert/strict';
import { test } from 'node:test';
import { upsertCommitComment } from '../../src/github/commit-comment.ts';
import { COMMIT_ALERT_MARKER } from '../../src/report/commit-alert.ts';
import { useStandInClient } from '../support/use-stand-in-client.ts';

const where = { owner: 'octo-org', repo: 'widgets', sha: 'c'.repeat(40), marker: COMMIT_ALERT_MARKER };
const github = useStandInClient();
const onCommit = () => github.standIn.state.commitComments.filter((c) => c.commitId === where.sha);
const writes = () => github.standIn.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.template}`);

test('a commit gets one bot comment per marker: created, left alone when the body is the same, updated when it changed', async () => {
  const first = await upsertCommitComment(github.client, { ...where, body: '**1 benchmark slower**' });
  assert.equal(first.action, 'created');
  assert.deepEqual(onCommit().map((c) => c.body), [`${COMMIT_ALERT_MARKER}\n**1 benchmark slower**`]);
  assert.equal(first.url, `https://github.com/octo-org/widgets/commit/${where.sha}#commitcomment-${first.id}`);
  github.standIn.requests.length = 0;
  assert.deepEqual(await upsertCommitComment(github.client, { ...where, body: '**1 benchmark slower**' }), { action: 'unchanged', id: first.id, url: first.url });
  assert.deepEqual(writes(), []);
  const changed = await upsertCommitComment(github.client, { ...where, body: '**2 benchmarks slower**' });
  assert.equal(changed.action, 'updated');
  assert.equal(changed.id, first.id);
  assert.deepEqual(writes(), ['PATCH /repos/{owner}/{repo}/comments/{comment_id}']);
  assert.deepEqual(onCommit().map((c) => c.body), [`${COMMIT_ALERT_MARKER}\n**2 benchmarks slower**`]);
});

test('a person\'s comment that starts with the marker is not the bot\'s: a new one is made beside it, and the person\'s stays as it was', async () => {
  github.standIn.state.commitComments.push({ id: 5, owner: where.owner, repo: where.repo, commitId: where.sha, body: `${COMMIT_ALERT_MARKER}\nquoted`, user: { login: 'mallory', type: 'User' }, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' });
  const made = await upsertCommitComment(github.client, { ...where, body: 'report' });
  assert.equal(made.action, 'created');
  assert.deepEqual(onCommit().map((c) => [c.user.login, c.body]), [['mallory', `${COMMIT_ALERT_MARKER}\nquoted`], ['github-actions[bot]', `${COMMIT_ALERT_MARKER}\nreport`]]);
});

test('a report longer than GitHub allows is cut with a note', async () => {
  const made = await upsertCommitComment(github.client, { ...where, body: `| a |\n${'| row |\n'.repeat(12_000)}` });
  assert.equal(made.action, 'created');
  const body = onCommit()[0].body;
  assert.ok(new TextEncoder().encode(body).length <= 65536);
  assert.match(body, /benchbot truncated this comment/);
});
