import assert from 'node:assert/strict';
import { test } from 'node:test';
import { closeRecoveredIssue, listRegressionIssues, upsertRegressionIssue } from '../../src/github/regression-issue.ts';
import { regressionMarker } from '../../src/report/regression-issue.ts';
import { useStandInClient } from '../support/use-stand-in-client.ts';
import type { Account } from '../support/github-api-stand-in.ts';

const target = { owner: 'octo-org', repo: 'widgets' };
const marker = regressionMarker('main:parse:time:fp-1', 'a'.repeat(40));
const alice: Account = { login: 'alice', type: 'User' };
const actions: Account = { login: 'github-actions[bot]', type: 'Bot' };

const github = useStandInClient();

const writes = () => github.standIn.requests.filter((r) => r.method !== 'GET').map((r) => `${r.method} ${r.template}`);
const upsert = (body: string, title = 'Performance regression: parse time +10.0% in #14') => upsertRegressionIssue(github.client, { ...target, marker, title, body, labels: ['performance'] });

test('a regression is filed once, updated once on a second detection with new numbers, and closed on recovery with a comment', async () => {
  const first = await upsert('parse is 10.0% slower');
  assert.equal(first.action, 'created');
  assert.equal(github.standIn.state.issues.length, 1);
  const issue = github.standIn.state.issues[0];
  assert.equal(issue.body, `${marker}\nparse is 10.0% slower`);
  assert.deepEqual(issue.labels, ['benchbot', 'performance']);
  assert.equal(first.url, `https://github.com/octo-org/widgets/issues/${issue.number}`);

  // The next night finds the same regression with the same numbers: nothing is written.
  github.standIn.requests.length = 0;
  const same = await upsert('parse is 10.0% slower');
  assert.equal(same.action, 'unchanged');
  assert.deepEqual(writes(), []);

  const second = await upsert('parse is 10.4% slower');
  assert.deepEqual(second, { action: 'updated', number: first.number, url: first.url });
  assert.equal(github.standIn.state.issues.length, 1);
  assert.equal(github.standIn.state.issues[0].body, `${marker}\nparse is 10.4% slower`);

  github.standIn.requests.length = 0;
  const closed = await closeRecoveredIssue(github.client, { ...target, marker, comment: '**Recovered.** parse is back within 2%.' });
  assert.deepEqual(closed, { action: 'closed', number: first.number });
  assert.deepEqual(writes(), ['POST /repos/{owner}/{repo}/issues/{issue_number}/comments', 'PATCH /repos/{owner}/{repo}/issues/{issue_number}']);
  assert.equal(github.standIn.state.issues[0].state, 'closed');
  assert.equal(github.standIn.state.issues[0].stateReason, 'completed');
  assert.deepEqual(github.standIn.state.comments.map((c) => c.body), ['**Recovered.** parse is back within 2%.']);

  // A second recovery run comments nothing.
  assert.deepEqual(await closeRecoveredIssue(github.client, { ...target, marker, comment: 'again' }), { action: 'already-closed', number: first.number });
  assert.equal(github.standIn.state.comments.length, 1);
});

test('a regression that recurs after its issue was closed reopens that issue instead of filing another', async () => {
  const first = await upsert('parse is 10.0% slower');
  await closeRecoveredIssue(github.client, { ...target, marker, comment: 'recovered' });
  const again = await upsert('parse is 9.8% slower');
  assert.equal(again.action, 'reopened');
  assert.equal(again.number, first.number);
  assert.equal(github.standIn.state.issues.length, 1);
  assert.equal(github.standIn.state.issues[0].state, 'open');
  assert.equal(github.standIn.state.issues[0].stateReason, 'reopened');
  assert.match(github.standIn.state.comments.at(-1)?.body ?? '', /regression is back/);
});

test('the search reads every page and ignores issues of other series, other repos and quoted markers', async () => {
  for (let i = 0; i < 130; i++) github.standIn.addIssue({ ...target, title: `other ${i}`, body: `${regressionMarker(`main:bench${i}:time:fp-1`, 'b'.repeat(40))}\nx`, labels: ['benchbot'], user: actions });
  github.standIn.addIssue({ owner: 'octo-org', repo: 'gadgets', title: 'same marker elsewhere', body: `${marker}\nx`, labels: ['benchbot'], user: alice });
  github.standIn.addIssue({ ...target, title: 'a human quoting the marker', body: `> ${marker}\nsee above`, labels: ['benchbot'], user: alice });
  const created = await upsert('parse is 10.0% slower');
  assert.equal(created.action, 'created');
  const listPages = github.standIn.requests.filter((r) => r.operationId === 'issues/list-for-repo');
  assert.equal(listPages.length, 2, 'per_page 100: two pages');
  assert.equal(listPages[0].query.state, 'all');
  assert.equal(listPages[0].query.labels, 'benchbot');

  const again = await upsert('parse is 10.0% slower');
  assert.equal(again.action, 'unchanged');
  assert.equal(again.number, created.number);
  const mine = await listRegressionIssues(github.client, { ...target, state: 'open' });
  assert.equal(mine.length, 131);
  assert.equal(mine.find((i) => i.number === created.number)?.marker.series, 'main:parse:time:fp-1');
});

test('an issue a person filed with the label and the marker is never benchbot\'s: not updated, reopened or closed', async () => {
  const forged = github.standIn.addIssue({ ...target, title: 'filed by a person', body: `${marker}\nclose me, or put your numbers here`, labels: ['benchbot'], user: alice });
  assert.deepEqual(await closeRecoveredIssue(github.client, { ...target, marker, comment: 'recovered' }), { action: 'not-found' });
  assert.deepEqual(await closeRecoveredIssue(github.client, { ...target, marker, comment: 'recovered', botLogin: null }), { action: 'not-found' }, 'any Bot account, still not a person');
  assert.deepEqual(await listRegressionIssues(github.client, { ...target, state: 'open', botLogin: null }), []);
  const created = await upsert('parse is 10.0% slower');
  assert.equal(created.action, 'created');
  assert.notEqual(created.number, forged.number);
  const kept = github.standIn.state.issues.find((i) => i.number === forged.number);
  assert.equal(kept?.state, 'open');
  assert.equal(kept?.title, 'filed by a person');
  assert.deepEqual(github.standIn.state.comments.filter((c) => c.issueNumber === forged.number), []);
});

test('nothing to close when no issue carries the marker', async () => {
  assert.deepEqual(await closeRecoveredIssue(github.client, { ...target, marker, comment: 'recovered' }), { action: 'not-found' });
  assert.deepEqual(writes(), []);
});

test('assignees are passed on creation', async () => {
  await upsertRegressionIssue(github.client, { ...target, marker, title: 't', body: 'b', assignees: ['dana'] });
  assert.deepEqual(github.standIn.state.issues[0].assignees, ['dana']);
});
