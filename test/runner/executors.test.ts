import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { createExecutor, parseExecutorSpec, type Executor, type SshSpec } from '../../src/runner/executor.ts';
import { machineKey } from '../../src/model/fingerprint.ts';
import { RunnerError } from '../../src/runner/git-checkout.ts';
import { LocalExecutor, OUTPUT_CAP_BYTES, shellQuote } from '../../src/runner/local-executor.ts';
import { startSshd, type SshServer } from '../support/sshd.ts';

// Quotes, $, ;, spaces, a backslash, a glob, a newline and non-ASCII: what a remote shell must not reinterpret.
const TRICKY = `it's "quoted" $HOME; a  b \\n * \`x\` ünï\nline2`;
const TRICKY_COMMAND = `printf '%s|' ${shellQuote(TRICKY)} "$BB_VALUE"; echo; echo to-stderr >&2; exit 7`;
const TRICKY_ENV = { BB_VALUE: `v'a"l $x;y` };

/** alive is false for a zombie too: an orphan waits for PID 1 to reap it, which in some containers takes seconds. */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat[stat.lastIndexOf(')') + 2] !== 'Z';
  } catch {
    return false;
  }
}

async function eventuallyDead(pid: number): Promise<boolean> {
  for (let i = 0; i < 50 && alive(pid); i++) await sleep(50);
  return !alive(pid);
}

/** A small tree as a built worktree would be: nested files, an executable, a .git pointer. */
function makeTree(root: string): string {
  const dir = join(root, 'tree');
  mkdirSync(join(dir, 'sub dir'), { recursive: true });
  writeFileSync(join(dir, 'sub dir', 'data.txt'), 'payload\n');
  writeFileSync(join(dir, 'bench.sh'), '#!/bin/sh\necho "bench ran in $(pwd)"\n');
  chmodSync(join(dir, 'bench.sh'), 0o755);
  writeFileSync(join(dir, '.git'), 'gitdir: /nowhere\n');
  return dir;
}

/** The checks every executor must pass, whatever carries the commands. */
function sharedBehaviour(name: string, make: () => Executor, scratch: () => string): void {
  test(`${name}: a command with quotes, $, ; and spaces runs as written, with env, exit code and stderr`, async () => {
    const result = await make().run(TRICKY_COMMAND, { cwd: scratch(), timeoutMs: 20_000, env: TRICKY_ENV });
    assert.equal(result.stdout, `${TRICKY}|${TRICKY_ENV.BB_VALUE}|\n`);
    assert.equal(result.stderr, 'to-stderr\n');
    assert.equal(result.exitCode, 7);
    assert.equal(result.timedOut, false);
    assert.ok(result.durationMs > 0);
  });

  test(`${name}: runs in cwd, even one with spaces`, async () => {
    const dir = join(scratch(), 'a dir; with $pace');
    mkdirSync(dir, { recursive: true });
    const result = await make().run('pwd', { cwd: dir, timeoutMs: 20_000 });
    assert.equal(result.stdout.trim(), dir);
    assert.equal(result.exitCode, 0);
  });

  test(`${name}: a timeout kills the whole process group, grandchildren included`, async () => {
    const pidFile = join(scratch(), `${name}-grandchild.pid`);
    const started = Date.now();
    const result = await make().run(`sleep 60 & echo $! > ${shellQuote(pidFile)}; wait`, { cwd: scratch(), timeoutMs: 700, killGraceMs: 300 });
    assert.equal(result.timedOut, true);
    assert.notEqual(result.exitCode, 0);
    assert.ok(Date.now() - started < 15_000, 'returned long before the sleep would have ended');
    const grandchild = Number(readFileSync(pidFile, 'utf8'));
    assert.ok(await eventuallyDead(grandchild), `grandchild ${grandchild} is still alive`);
    assert.doesNotMatch(result.stderr, /benchbot-timeout-/);
  });

  test(`${name}: a command that ignores SIGTERM is SIGKILLed after the grace period`, async () => {
    const result = await make().run(`trap '' TERM; sleep 30`, { cwd: scratch(), timeoutMs: 500, killGraceMs: 300 });
    assert.equal(result.timedOut, true);
    assert.notEqual(result.exitCode, 0);
  });

  test(`${name}: a background straggler does not hold the run open`, async () => {
    const started = Date.now();
    const result = await make().run('sleep 30 & echo done', { cwd: scratch(), timeoutMs: 20_000 });
    assert.equal(result.stdout, 'done\n');
    assert.equal(result.timedOut, false);
    assert.ok(Date.now() - started < 10_000);
  });

  test(`${name}: fingerprint describes this machine (the far side is this machine)`, async () => {
    const [there, here] = await Promise.all([make().fingerprint(['bench']), new LocalExecutor().fingerprint()]);
    assert.equal(machineKey(there), machineKey(here));
    assert.deepEqual(there.runnerLabels, ['bench']);
    const load = await make().loadAverage();
    assert.ok(typeof load === 'number' && load >= 0);
  });
}

describe('parseExecutorSpec', () => {
  test('local is the default', () => {
    assert.deepEqual(parseExecutorSpec(''), { kind: 'local' });
    assert.deepEqual(parseExecutorSpec('local'), { kind: 'local' });
  });

  test('ssh URLs: user, port, directory, home-relative directory, IPv6, identity and known_hosts', () => {
    assert.deepEqual(parseExecutorSpec('ssh://box'), { kind: 'ssh', host: 'box' });
    assert.deepEqual(parseExecutorSpec('ssh://bench@box.lan:2222/srv/bench'), { kind: 'ssh', user: 'bench', host: 'box.lan', port: 2222, dir: '/srv/bench' });
    assert.deepEqual(parseExecutorSpec('ssh://bench@box/~/bb'), { kind: 'ssh', user: 'bench', host: 'box', dir: '~/bb' });
    assert.deepEqual(parseExecutorSpec('ssh://[::1]:22'), { kind: 'ssh', host: '::1', port: 22 });
    assert.deepEqual(parseExecutorSpec('ssh://box?identity=/k/id_ed25519&known_hosts=/k/kh'), { kind: 'ssh', host: 'box', identity: '/k/id_ed25519', knownHosts: '/k/kh' });
  });

  test('device: templates from the --device-* flags, optional directory', () => {
    assert.deepEqual(parseExecutorSpec('device', { run: 'adb shell {cmd}', push: 'adb push {src} {dst}', pull: 'adb pull {src} {dst}' }), {
      kind: 'device',
      run: 'adb shell {cmd}',
      push: 'adb push {src} {dst}',
      pull: 'adb pull {src} {dst}',
    });
    assert.deepEqual(parseExecutorSpec('device:/data/local/tmp/bb', { run: 'adb shell {cmd}' }), { kind: 'device', run: 'adb shell {cmd}', dir: '/data/local/tmp/bb' });
  });

  test('errors name the flag and the valid forms', () => {
    const cases: [() => unknown, RegExp][] = [
      [() => parseExecutorSpec('docker://x'), /--executor: .*local \(default\), ssh:\/\/\[user@\]host/],
      [() => parseExecutorSpec('ssh://'), /--executor: .*(not a valid ssh URL|no host)/],
      [() => parseExecutorSpec('ssh://u:secret@box'), /--executor: .*password/],
      [() => parseExecutorSpec('ssh://box?port=1'), /--executor: unknown ssh URL parameter "port"/],
      [() => parseExecutorSpec('device'), /--device-run/],
      [() => parseExecutorSpec('device', { run: 'adb shell' }), /--device-run: .*\{cmd\}/],
      [() => parseExecutorSpec('device', { run: 'adb shell {cmd}', push: 'adb push {src}' }), /--device-push: .*\{src\} and \{dst\}/],
      [() => parseExecutorSpec('device', { run: 'adb shell {cmd}', pull: 'adb pull {dst}' }), /--device-pull: /],
    ];
    for (const [call, message] of cases) assert.throws(call, message);
  });

  test('createExecutor makes the executor the spec describes', async () => {
    assert.equal(createExecutor({ kind: 'local' }).description, 'local');
    assert.equal(createExecutor({ kind: 'ssh', user: 'bench', host: 'box', port: 22 }).description, 'ssh://bench@box:22');
    assert.equal(createExecutor({ kind: 'ssh', host: '::1' }).description, 'ssh://[::1]');
    assert.equal(createExecutor({ kind: 'device', run: 'adb shell {cmd}' }).description, 'device (adb shell {cmd})');
    assert.throws(() => createExecutor({ kind: 'ssh', host: '-oProxyCommand=x' }), RunnerError);
  });
});

describe('shellQuote', () => {
  test('survives sh for any text', async () => {
    for (const text of [TRICKY, '', "'", "''", 'plain', '-n', '$(touch /tmp/pwned)', 'a\\b', '~', '*']) {
      const result = await new LocalExecutor().run(`printf %s ${shellQuote(text)}`, { cwd: tmpdir(), timeoutMs: 10_000 });
      assert.equal(result.stdout, text);
    }
  });
});

describe('local executor', () => {
  let root = '';
  before(() => (root = mkdtempSync(join(tmpdir(), 'bb-local-'))));
  after(() => rmSync(root, { recursive: true, force: true }));
  sharedBehaviour('local', () => new LocalExecutor(), () => root);

  test('prepare uses the directory in place; fetch copies', async () => {
    const executor = new LocalExecutor();
    const tree = makeTree(root);
    assert.equal(await executor.prepare(tree, 'head'), tree);
    await executor.fetch(join(tree, 'sub dir', 'data.txt'), join(root, 'fetched', 'data.txt'));
    assert.equal(readFileSync(join(root, 'fetched', 'data.txt'), 'utf8'), 'payload\n');
    await executor.fetch(join(tree, 'bench.sh'), join(tree, 'bench.sh'));
  });

  test('output beyond the cap is dropped with a note', async () => {
    const result = await new LocalExecutor().run(`head -c ${OUTPUT_CAP_BYTES + 1000} /dev/zero`, { cwd: root, timeoutMs: 60_000 });
    assert.equal(result.exitCode, 0);
    assert.match(result.stdout, /\[benchbot: output truncated: 1000 bytes beyond the first 67108864 were dropped\]\n$/);
  });

  test('a missing cwd is a RunnerError, not a crash', async () => {
    await assert.rejects(new LocalExecutor().run('true', { cwd: join(root, 'missing'), timeoutMs: 1000 }), RunnerError);
  });
});

describe('ssh executor (real OpenSSH server on loopback)', () => {
  let server: SshServer;
  let executor: Executor;
  let spec: SshSpec;
  before(async () => {
    server = await startSshd();
    spec = { kind: 'ssh', user: server.user, host: server.host, port: server.port, identity: server.identity, knownHosts: server.knownHosts, dir: join(server.dir, 'remote'), sshArgs: ['-F', '/dev/null'] };
    executor = createExecutor(spec);
  });
  after(async () => {
    await executor?.close();
    await server?.stop();
  });
  sharedBehaviour('ssh', () => executor, () => server.dir);

  test('prepare ships the tree (modes kept, .git left out) and replaces an earlier copy', async () => {
    const tree = makeTree(join(server.dir, 'local'));
    const first = await executor.prepare(tree, 'head/abc 123');
    assert.equal(first, join(server.dir, 'remote', 'head_abc_123'));
    writeFileSync(join(first, 'stale.txt'), 'left from an earlier run');
    const path = await executor.prepare(tree, 'head/abc 123');
    assert.equal(path, first);
    assert.deepEqual(readdirSync(path).sort(), ['bench.sh', 'sub dir']);
    const result = await executor.run('./bench.sh && cat "sub dir/data.txt"', { cwd: path, timeoutMs: 20_000 });
    assert.equal(result.stdout, `bench ran in ${path}\npayload\n`);
  });

  test('prepare into the default directory under the remote home', async () => {
    const home = createExecutor({ ...spec, dir: '~/.cache/benchbot-test' });
    try {
      const path = await home.prepare(makeTree(join(server.dir, 'home')), 'base');
      assert.ok(path.startsWith('/') && path.endsWith('/.cache/benchbot-test/base'), path);
      assert.ok(existsSync(join(path, 'bench.sh')));
      rmSync(join(path, '..'), { recursive: true, force: true });
    } finally {
      await home.close();
    }
  });

  test('fetch copies bytes exactly; a missing file is a RunnerError naming it', async () => {
    const bytes = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 31) % 256));
    writeFileSync(join(server.dir, 'out file.bin'), bytes);
    await executor.fetch(join(server.dir, 'out file.bin'), join(server.dir, 'back', 'copy.bin'));
    assert.deepEqual(readFileSync(join(server.dir, 'back', 'copy.bin')), bytes);
    await assert.rejects(executor.fetch(join(server.dir, 'nope.json'), join(server.dir, 'back', 'nope.json')), (error: unknown) => error instanceof RunnerError && /nope\.json/.test(error.message));
    assert.equal(existsSync(join(server.dir, 'back', 'nope.json')), false);
  });

  test('an unreachable host fails with ssh exit 255 and a RunnerError from prepare', async () => {
    const dead = createExecutor({ ...spec, port: 1 });
    try {
      const result = await dead.run('true', { cwd: '/', timeoutMs: 20_000 });
      assert.equal(result.exitCode, 255);
      assert.match(result.stderr, /refused|connect/i);
      await assert.rejects(dead.prepare(makeTree(join(server.dir, 'dead')), 'x'), (error: unknown) => error instanceof RunnerError && error.message.includes(`ssh://${server.user}@127.0.0.1:1`) && /ssh failed.*refused/i.test(error.message));
    } finally {
      await dead.close();
    }
  });

  test('close ends the shared connection', async () => {
    const own = createExecutor(spec);
    await own.run('true', { cwd: '/', timeoutMs: 20_000 });
    const sockets = readdirSync('/tmp').filter((name) => name.startsWith('bb-ssh-'));
    await own.close();
    const left = readdirSync('/tmp').filter((name) => name.startsWith('bb-ssh-'));
    assert.ok(left.length < sockets.length);
  });

  test('device executor over `ssh ... {cmd}` (as for a jailbroken iPhone)', async () => {
    const ssh = `ssh -F /dev/null -o BatchMode=yes -i ${shellQuote(server.identity)} -o UserKnownHostsFile=${shellQuote(server.knownHosts)} -p ${server.port} ${server.user}@127.0.0.1`;
    const device = createExecutor(parseExecutorSpec('device', { run: `${ssh} {cmd}` }));
    const result = await device.run(TRICKY_COMMAND, { cwd: server.dir, timeoutMs: 20_000, env: TRICKY_ENV });
    assert.equal(result.stdout, `${TRICKY}|${TRICKY_ENV.BB_VALUE}|\n`);
    assert.equal(result.exitCode, 7);
  });
});

describe('device executor (local templates)', () => {
  let root = '';
  before(() => (root = mkdtempSync(join(tmpdir(), 'bb-device-'))));
  after(() => rmSync(root, { recursive: true, force: true }));
  const templates = { run: 'sh -c {cmd}', push: 'cp -R {src} {dst}', pull: 'cp {src} {dst}' };
  sharedBehaviour('device', () => createExecutor(parseExecutorSpec(`device:${join(root, 'on-device')}`, templates)), () => root);

  test('prepare pushes into DIR/label (replacing an earlier push); fetch pulls', async () => {
    const executor = createExecutor(parseExecutorSpec(`device:${join(root, 'on device')}`, templates));
    const tree = makeTree(join(root, 'host'));
    const path = await executor.prepare(tree, 'base 1');
    assert.equal(path, join(root, 'on device', 'base_1'));
    writeFileSync(join(path, 'stale.txt'), 'x');
    assert.equal(await executor.prepare(tree, 'base 1'), path);
    assert.equal(existsSync(join(path, 'stale.txt')), false);
    assert.ok(statSync(join(path, 'bench.sh')).mode & 0o100);
    const result = await executor.run('./bench.sh > result.txt', { cwd: path, timeoutMs: 20_000 });
    assert.equal(result.exitCode, 0, result.stderr);
    await executor.fetch(join(path, 'result.txt'), join(root, 'pulled', 'result.txt'));
    assert.equal(readFileSync(join(root, 'pulled', 'result.txt'), 'utf8'), `bench ran in ${path}\n`);
  });

  test('without push and pull the paths are shared', async () => {
    const executor = createExecutor(parseExecutorSpec('device', { run: 'sh -c {cmd}' }));
    const tree = makeTree(join(root, 'shared'));
    assert.equal(await executor.prepare(tree, 'head'), tree);
    await executor.fetch(join(tree, 'sub dir', 'data.txt'), join(root, 'shared-out', 'data.txt'));
    assert.equal(readFileSync(join(root, 'shared-out', 'data.txt'), 'utf8'), 'payload\n');
  });

  test('a failing push or pull is a RunnerError naming the flag and the command', async () => {
    const executor = createExecutor(parseExecutorSpec(`device:${join(root, 'x')}`, { run: 'sh -c {cmd}', push: 'false {src} {dst}', pull: 'false {src} {dst}' }));
    await assert.rejects(executor.prepare(makeTree(join(root, 'fail')), 'h'), /pushing .* \(--device-push\) failed \(exit 1\) running "false /);
    await assert.rejects(executor.fetch('/x', join(root, 'y')), /--device-pull/);
  });

  test('a broken run template makes fingerprint fail clearly', async () => {
    const executor = createExecutor(parseExecutorSpec('device', { run: 'no-such-adb-binary shell {cmd}' }));
    await assert.rejects(executor.fingerprint(), (error: unknown) => error instanceof RunnerError && /cannot read the machine fingerprint on device \(no-such-adb-binary shell \{cmd\}\) \(exit 127\)/.test(error.message));
  });
});
