import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readBisectLog, type BisectLog } from '../../src/bisect/bisect-log.ts';
import { createBisect, nextSessions, recordConfirmation, recordProbe, recordReference, toBisectJson } from '../../src/bisect/create-bisect.ts';
import { lognormalSamples } from '../support/samples.ts';

const sha = (text: string) => createHash('sha1').update(text).digest('hex');

/** A bisection over 6 merges where merge index 3 carries a 10% slowdown, as the state machine writes it. */
function finishedLog(): BisectLog {
  const candidates = Array.from({ length: 6 }, (_, i) => ({ sha: sha(`merge ${i}`), subject: `Merge pull request #${201 + i}`, pr: 201 + i, parent: i === 0 ? sha('good') : sha(`merge ${i - 1}`) }));
  const level = (commit: string) => (candidates.findIndex((c) => c.sha === commit) >= 3 ? 110 : 100);
  let state = createBisect({ candidates, good: sha('good') });
  let seed = 700;
  const draw = (mean: number) => lognormalSamples(10, mean, 0.01, seed++);
  for (let steps = 0; !state.finished && steps < 60; steps++) {
    for (const r of nextSessions(state, 1)) {
      if (r.kind === 'reference') state = recordReference(state, { good: draw(100), bad: draw(110) });
      else if (r.kind === 'probe') state = recordProbe(state, r.sha, { good: draw(100), probe: draw(level(r.sha)), bad: draw(110) });
      else state = recordConfirmation(state, r.sha, { parent: draw(r.parent === sha('good') ? 100 : level(r.parent)), probe: draw(level(r.sha)) });
    }
  }
  return { ...toBisectJson(state), benchmark: 'parse', metric: 'time', good: sha('good'), bad: candidates[5].sha, candidates: candidates.map((c) => ({ ...c, author: 'Ana Lima' })), probe_steps: 5 };
}

function fails(root: unknown): string {
  try {
    readBisectLog(root, (path, expected) => {
      throw new Error(`${path}: expected ${expected}`);
    });
  } catch (error) {
    return (error as Error).message;
  }
  return 'accepted';
}

const read = (root: unknown) => readBisectLog(root, (path, expected) => assert.fail(`${path}: expected ${expected}`));

test('a log the bisection wrote reads back with every field a report shows', () => {
  const log = finishedLog();
  assert.equal(log.status, 'found');
  assert.equal(log.culprit?.pr, 204);
  const back = read(JSON.parse(JSON.stringify(log)));
  assert.deepEqual(back.culprit, log.culprit);
  assert.deepEqual(back.range, log.range);
  assert.deepEqual(back.culprits.map(({ confirmation: _, ...c }) => c), log.culprits.map(({ confirmation: _, ...c }) => c));
  assert.deepEqual(back.steps, log.steps.map(({ kind: _k, sessions: _s, ...s }) => s));
  assert.deepEqual(back.reference, { ratio: log.reference.ratio, ratio_ci: log.reference.ratio_ci, p: log.reference.p, reproducible: log.reference.reproducible });
  assert.deepEqual([back.benchmark, back.metric, back.good, back.bad, back.probe_steps, back.sessions], [log.benchmark, log.metric, log.good, log.bad, log.probe_steps, log.sessions]);
  // A candidate's parent is not a field a report reads.
  assert.deepEqual(back.candidates, log.candidates?.map(({ parent: _, ...c }) => c));
});

test('a missing pull request number reads as null; optional fields may be absent', () => {
  const back = read({ status: 'not-reproducible', culprit: null, culprits: [], steps: [], sessions: 1, reference: { ratio: 1, ratio_ci: [0.99, 1.01], p: 0.5, reproducible: false } });
  assert.deepEqual(back, { status: 'not-reproducible', culprit: null, culprits: [], steps: [], sessions: 1, reference: { ratio: 1, ratio_ci: [0.99, 1.01], p: 0.5, reproducible: false } });
  const culprit = read({ ...back, status: 'found', culprit: { sha: sha('x'), subject: 'x' } }).culprit;
  assert.deepEqual(culprit, { sha: sha('x'), subject: 'x', pr: null });
});

test('a hostile field is refused with its path, before any report reads it', () => {
  const log = JSON.parse(JSON.stringify(finishedLog())) as Record<string, unknown>;
  const at = (path: string, patch: (x: Record<string, any>) => void) => {
    const copy = structuredClone(log) as Record<string, any>;
    patch(copy);
    return fails(copy);
  };
  assert.equal(fails([]), '$: expected an object');
  assert.equal(at('status', (x) => (x.status = 'done')), '$.status: expected running, found, range or not-reproducible');
  assert.match(at('culprit', (x) => (x.culprit.sha = 'not hex')), /^\$\.culprit: /);
  assert.match(at('culprit pr', (x) => (x.culprit.pr = 'x')), /^\$\.culprit: /);
  assert.match(at('culprits', (x) => (x.culprits[0].share = 'half')), /^\$\.culprits\[0\]: /);
  assert.equal(at('range', (x) => (x.range = 'x')), '$.range: expected an array');
  assert.equal(at('step sha', (x) => (x.steps[1].sha = '../../etc')), '$.steps[1].sha: expected a commit SHA or good..bad');
  assert.match(at('step ratio', (x) => (x.steps[0].ratio_ci = [1])), /^\$\.steps\[0\]: /);
  assert.equal(at('sessions', (x) => (x.sessions = '3')), '$.sessions: expected a number');
  assert.match(at('reference p', (x) => (x.reference.p = 'low')), /^\$\.reference: /);
  assert.equal(at('benchmark', (x) => (x.benchmark = { name: 'x' })), '$.benchmark: expected a string');
  assert.match(at('candidate', (x) => (x.candidates[2].subject = 7)), /^\$\.candidates\[2\]: /);
  assert.equal(at('author', (x) => (x.candidates[0].author = ['x'])), '$.candidates[0].author: expected a string');
  assert.equal(at('probe steps', (x) => (x.probe_steps = '<b>5</b>')), '$.probe_steps: expected a number');
  assert.equal(fails(log), 'accepted');
});
