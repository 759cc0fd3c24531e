import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LocalExecutor } from '../../src/runner/local-executor.ts';
import { measureRound, type RoundOutcome } from '../../src/runner/measure-round.ts';

// What a round leaves behind is written by the code under test. Reading it
// must end in numbers or a round failure that says why, soon after the
// command: never a hang, a crash, or gigabytes copied and read.

async function round(bench: string, resultFile?: string, format = 'benchbot'): Promise<{ outcome: RoundOutcome; ms: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-round-'));
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-scratch-'));
  const started = performance.now();
  const outcome = await measureRound({ bench, format, resultFile, roundTimeoutMs: 30_000 }, new LocalExecutor(), dir, scratch, 'round 1');
  return { outcome, ms: performance.now() - started };
}

function failure(outcome: RoundOutcome): string {
  assert.ok('failure' in outcome, `expected a failed round, got ${JSON.stringify(outcome).slice(0, 200)}`);
  return outcome.failure.message;
}

test('a result file larger than the input limit fails the round by its size, unread and uncopied', async () => {
  // Sparse: 300 MB that take no disk; copying or reading it would.
  const { outcome, ms } = await round('truncate -s 300M out.json', 'out.json');
  assert.match(failure(outcome), /out\.json: is 314,572,800 bytes; benchbot reads inputs of at most 268,435,456 bytes/);
  assert.ok(ms < 10_000, `took ${Math.round(ms)} ms`);
});

test('a result file that is a FIFO fails the round at once instead of blocking forever', { timeout: 20_000 }, async () => {
  const { outcome } = await round('mkfifo out.json', 'out.json');
  assert.match(failure(outcome), /out\.json: is not a regular file/);
});

test('a hostile 200 k-character line on stdout is read within a bounded time, as a failure that names the output', async () => {
  const { outcome, ms } = await round(`printf 'x%200000stime: [' ''`, undefined, 'cargo-bench');
  assert.match(failure(outcome), /round 1 output:1: criterion estimate line is truncated/);
  // The old reader spent about 36 s on such a line; linear reading, milliseconds.
  assert.ok(ms < 10_000, `took ${Math.round(ms)} ms`);
});
