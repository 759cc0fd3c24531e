import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createProgress } from '../../src/runner/progress.ts';

function capture(isTTY: boolean) {
  const chunks: string[] = [];
  const stream = { isTTY, write: (chunk: string) => chunks.push(chunk) } as unknown as NodeJS.WriteStream;
  return { stream, text: () => chunks.join('') };
}

function drive(progress: ReturnType<typeof createProgress>) {
  progress.group('measuring');
  progress.status('rounds: base 1, head 1');
  progress.status('rounds: base 2, head 2');
  progress.note('look 1: 0 undecided');
  progress.endGroup();
}

test('in GitHub Actions, work is wrapped in log groups and every line is kept', () => {
  const out = capture(false);
  drive(createProgress(out.stream, { GITHUB_ACTIONS: 'true' }));
  assert.equal(out.text(), '::group::measuring\nrounds: base 1, head 1\nrounds: base 2, head 2\nlook 1: 0 undecided\n::endgroup::\n');
});

test('on a terminal the status line is rewritten in place', () => {
  const out = capture(true);
  drive(createProgress(out.stream, {}));
  assert.equal(out.text(), '== measuring\n\r\x1b[2Krounds: base 1, head 1\r\x1b[2Krounds: base 2, head 2\r\x1b[2Klook 1: 0 undecided\n');
});

test('in a plain log (a pipe, a file, another CI) the per-round status is left out: a heading and a line per look', () => {
  const out = capture(false);
  drive(createProgress(out.stream, {}));
  assert.equal(out.text(), '== measuring\nlook 1: 0 undecided\n');
});
