// A delivery's body is JSON-parsed once (issue 24, item 4), through the real server: the body reader keeps the text,
// the signature is checked on that text, @octokit/webhooks parses it once, and the handlers read Probot's
// context.payload (the `/bench` line is found once, commentCommandOf). Counted by watching JSON.parse for the body's
// text during deliveries of a realistic ~20 KB payload: a plain comment, a `/bench help`, a redelivery, and one
// signed with the previous secret during a rotation.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { commentEvent, sign, startHarness, type Harness } from './app-harness.ts';

const PREVIOUS = 'the previous secret';
let h: Harness;
before(async () => {
  h = await startHarness({ previousSecrets: [PREVIOUS] });
});
after(() => h.close());

/** padded makes a payload the size of GitHub's real issue_comment deliveries (16-22 KB: full user, issue and repository objects). */
function padded(payload: Record<string, any>): Record<string, any> {
  payload.issue.body = `${'A pull request description that goes on. '.repeat(160)}`;
  return payload;
}

test('each delivery body is parsed once, whatever the delivery does', async (t) => {
  const parse = JSON.parse;
  const bodies = new Map<string, number>();
  JSON.parse = function (text: string, reviver?: (this: any, key: string, value: any) => any) {
    if (typeof text === 'string' && bodies.has(text)) bodies.set(text, (bodies.get(text) ?? 0) + 1);
    return parse(text, reviver);
  } as typeof JSON.parse;
  try {
    const help = padded(commentEvent(h, { body: '/bench help', login: 'stranger', pr: 9 }));
    const cases: [string, Record<string, any>, string, string?][] = [
      ['a plain comment', padded(commentEvent(h, { body: 'Nice work!', login: 'reviewer' })), randomUUID()],
      ['a /bench help', help, 'same-id'],
      ['its redelivery', help, 'same-id'],
      ['a comment signed with the previous secret', padded(commentEvent(h, { body: 'Thanks', login: 'reviewer' })), randomUUID(), PREVIOUS],
    ];
    for (const [what, payload, id, secret] of cases) {
      const body = JSON.stringify(payload);
      bodies.set(body, 0);
      const started = performance.now();
      const response = await fetch(h.app.webhookUrl, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-github-event': 'issue_comment', 'x-github-delivery': id, 'x-hub-signature-256': sign(body, secret) } });
      assert.equal(response.status, 200, `${what}: ${await response.text()}`);
      assert.equal(bodies.get(body), 1, `${what} (${body.length} bytes): parsed once`);
      t.diagnostic(`${what}: ${body.length} bytes, parsed ${bodies.get(body)} time, answered in ${(performance.now() - started).toFixed(1)} ms`);
      bodies.delete(body);
    }
  } finally {
    JSON.parse = parse;
  }
  const body = JSON.stringify(padded(commentEvent(h, { body: 'x', login: 'reviewer' })));
  const started = performance.now();
  for (let i = 0; i < 200; i++) JSON.parse(body);
  t.diagnostic(`one parse of a ${body.length}-byte payload: ${((performance.now() - started) / 200 * 1000).toFixed(0)} us`);
});
