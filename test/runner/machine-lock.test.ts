import assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { hostname, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { after, before, test } from 'node:test';
import { RunnerError } from '../../src/runner/git-checkout.ts';
import { acquireMachineLock, defaultLockPath, type LockHolder } from '../../src/runner/machine-lock.ts';

const MODULE = pathToFileURL(join(import.meta.dirname, '../../src/runner/machine-lock.ts')).href;
// A child that takes the lock, logs start/end around holding it, and prints `locked` once it has it.
const CHILD = `
import { acquireMachineLock } from ${JSON.stringify(MODULE)};
import { appendFileSync } from 'node:fs';
const [path, log, holdMs] = process.argv.slice(1);
const lock = await acquireMachineLock(path, { timeoutMs: 20000, pollMs: 10 });
appendFileSync(log, 'start ' + process.pid + '\\n');
process.stdout.write('locked\\n');
await new Promise((done) => setTimeout(done, Number(holdMs)));
appendFileSync(log, 'end ' + process.pid + '\\n');
lock.release();
`;

let dir = '';
before(() => (dir = mkdtempSync(join(tmpdir(), 'bb-lock-'))));
after(() => rmSync(dir, { recursive: true, force: true }));

function holder(path: string, holdMs: number, log = join(dir, 'unused.log')): { child: ChildProcess; locked: Promise<void> } {
  const child = spawn(process.execPath, ['--input-type=module', '-e', CHILD, path, log, String(holdMs)], { stdio: ['ignore', 'pipe', 'inherit'] });
  const locked = new Promise<void>((done, fail) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('locked') && done());
    child.once('exit', (code) => fail(new Error(`lock holder exited (${code}) before taking the lock`)));
  });
  return { child, locked };
}

async function kill(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const gone = once(child, 'exit');
  child.kill('SIGKILL');
  await gone;
}

test('two processes contending take turns: their holds never overlap', async () => {
  const path = join(dir, 'contend.lock');
  const log = join(dir, 'contend.log');
  const a = holder(path, 300, log);
  const b = holder(path, 300, log);
  await Promise.all([once(a.child, 'exit'), once(b.child, 'exit')]);
  const lines = readFileSync(log, 'utf8').trim().split('\n').map((line) => line.split(' '));
  assert.deepEqual(lines.map(([what]) => what), ['start', 'end', 'start', 'end']);
  assert.equal(lines[0][1], lines[1][1]);
  assert.equal(lines[2][1], lines[3][1]);
  assert.notEqual(lines[0][1], lines[2][1]);
  assert.equal(existsSync(path), false, 'the last holder removed the lock');
});

test('a lock left by a SIGKILLed holder is taken over', async () => {
  const path = join(dir, 'stale.lock');
  const h = holder(path, 60_000);
  await h.locked;
  const stale = JSON.parse(readFileSync(path, 'utf8')) as LockHolder;
  assert.equal(stale.pid, h.child.pid);
  await kill(h.child);
  const lock = await acquireMachineLock(path, { timeoutMs: 5000, pollMs: 10 });
  assert.equal((JSON.parse(readFileSync(path, 'utf8')) as LockHolder).pid, process.pid);
  lock.release();
  assert.equal(existsSync(path), false);
});

test('waiting too long fails naming the holder, the path and how to override', async () => {
  const path = join(dir, 'busy.lock');
  const h = holder(path, 60_000);
  try {
    await h.locked;
    const waitedFor: (number | undefined)[] = [];
    await assert.rejects(acquireMachineLock(path, { timeoutMs: 300, pollMs: 20, onWait: (held) => waitedFor.push(held?.pid) }), (error: unknown) => {
      assert.ok(error instanceof RunnerError);
      assert.match(error.message, new RegExp(`held by pid ${h.child.pid} on ${hostname()}`));
      assert.ok(error.message.includes(path));
      assert.match(error.message, /--lock-timeout/);
      assert.match(error.message, /BENCHBOT_LOCK/);
      return true;
    });
    assert.deepEqual(waitedFor, [h.child.pid]);
  } finally {
    await kill(h.child);
  }
});

test('release is idempotent and never removes a lock someone else holds', async () => {
  const path = join(dir, 'own.lock');
  const lock = await acquireMachineLock(path, { timeoutMs: 1000 });
  assert.equal(lock.holder.pid, process.pid);
  lock.release();
  const other = { pid: process.pid, host: hostname(), since: 'now', command: 'other', token: 'someone-else' };
  writeFileSync(path, JSON.stringify(other));
  lock.release();
  assert.equal(existsSync(path), true);
  rmSync(path);
});

test('a recycled pid (same pid, other start time) is stale', { skip: !existsSync('/proc/self/stat') && 'no /proc here' }, async () => {
  const path = join(dir, 'recycled.lock');
  writeFileSync(path, JSON.stringify({ pid: process.pid, host: hostname(), since: 'then', processStart: '1', command: 'old', token: 't' }));
  const lock = await acquireMachineLock(path, { timeoutMs: 1000, pollMs: 10 });
  lock.release();
});

test('a holder on another host is never presumed dead', async () => {
  const path = join(dir, 'remote-holder.lock');
  writeFileSync(path, JSON.stringify({ pid: 999_999_999, host: `not-${hostname()}`, since: 'then', command: 'x', token: 't' }));
  await assert.rejects(acquireMachineLock(path, { timeoutMs: 100, pollMs: 10 }), /held by pid 999999999 on not-/);
  rmSync(path);
});

test('an unreadable lock file is respected while fresh and taken over once old', async () => {
  const path = join(dir, 'garbage.lock');
  writeFileSync(path, '');
  await assert.rejects(acquireMachineLock(path, { timeoutMs: 100, pollMs: 10 }), /cannot be read/);
  const old = new Date(Date.now() - 60_000);
  utimesSync(path, old, old);
  const lock = await acquireMachineLock(path, { timeoutMs: 1000, pollMs: 10 });
  lock.release();
});

test('defaultLockPath: BENCHBOT_LOCK, else one machine-wide file', () => {
  assert.equal(defaultLockPath({ BENCHBOT_LOCK: '/var/lock/bb.lock' }), '/var/lock/bb.lock');
  assert.equal(defaultLockPath({ TMPDIR: '/home/me/tmp' }), '/tmp/benchbot-machine.lock');
});
