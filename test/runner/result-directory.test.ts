import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createExecutor, parseExecutorSpec, type Executor } from '../../src/runner/executor.ts';
import { LocalExecutor } from '../../src/runner/local-executor.ts';
import { measureRound, type RoundOutcome } from '../../src/runner/measure-round.ts';
import { parseResultBundle, RESULT_BUNDLE } from '../../src/runner/result-directory.ts';
import { startSshd, type SshServer } from '../support/sshd.ts';

// A fake bench command that writes a criterion-like tree as criterion 0.7
// does: new/ gets benchmark.json, sample.json (10 samples, iters 1..10,
// times scaled by the benchmark's ns per iteration) and estimates.json, then
// new/ is copied to base/ for the next run to compare with. `crit NAME DIR
// NS` writes one benchmark.
const CRIT = `crit() {
  d="target/criterion/$2"
  mkdir -p "$d/new" "$d/base" "$d/report"
  printf '{"group_id":"%s","function_id":null,"value_str":null,"throughput":null,"full_id":"%s","directory_name":"%s","title":"%s"}' "$1" "$1" "$2" "$1" > "$d/new/benchmark.json"
  awk -v ns="$3" 'BEGIN { printf "{\\"sampling_mode\\":\\"Linear\\",\\"iters\\":[1,2,3,4,5,6,7,8,9,10],\\"times\\":["; for (i = 1; i <= 10; i++) printf "%s%.1f", (i > 1 ? "," : ""), i * ns; printf "]}" }' > "$d/new/sample.json"
  echo '{}' > "$d/new/estimates.json"
  cp "$d/new/"* "$d/base/"
}
`;

function checkout(): { dir: string; scratch: string } {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-resultdir-'));
  writeFileSync(join(dir, 'crit.sh'), CRIT);
  return { dir, scratch: mkdtempSync(join(tmpdir(), 'benchbot-resultdir-scratch-')) };
}

function round(dir: string, scratch: string, bench: string, resultFile = 'target/criterion', format?: string, tag = 'round 1', executor: Executor = new LocalExecutor()): Promise<RoundOutcome> {
  return measureRound({ bench: `. ./crit.sh; ${bench}`, resultFile, format, roundTimeoutMs: 30_000 }, executor, dir, scratch, tag);
}

function numbers(outcome: RoundOutcome): Record<string, number[]> {
  assert.ok(!('failure' in outcome), `round failed: ${'failure' in outcome ? outcome.failure.message : ''}`);
  return Object.fromEntries(outcome.measurements.map((m) => [`${m.benchmark} ${m.metric}`, m.values]));
}

function failure(outcome: RoundOutcome): string {
  assert.ok('failure' in outcome, `expected a failed round, got ${JSON.stringify(outcome).slice(0, 300)}`);
  return outcome.failure.message;
}

test('a result directory gives every sample criterion wrote in the round, named by benchmark.json', async () => {
  const { dir, scratch } = checkout();
  const outcome = await round(dir, scratch, "crit 'fib 15' 'fib 15' 100; crit checksum/fold/256 checksum/fold/256 40");
  assert.ok(!('failure' in outcome));
  assert.equal(outcome.format, 'criterion');
  assert.deepEqual(numbers(outcome), { 'checksum/fold/256 time': Array(10).fill(40), 'fib 15 time': Array(10).fill(100) });
});

test('each round reads only what it wrote: last round\'s new/ (now base/) and benchmarks it did not run are not read', async () => {
  const { dir, scratch } = checkout();
  const first = await round(dir, scratch, 'crit a a 100; crit gone gone 7', undefined, undefined, 'round 1');
  assert.deepEqual(Object.keys(numbers(first)).sort(), ['a time', 'gone time']);
  const second = await round(dir, scratch, 'crit a a 200', undefined, undefined, 'round 2');
  // `gone`'s new/ is from round 1; `a` counts once, with round 2's values.
  assert.deepEqual(numbers(second), { 'a time': Array(10).fill(200) });
  assert.match(readFileSync(join(dir, 'target/criterion/gone/base/sample.json'), 'utf8'), /"times":\[7\.0,/, "criterion's base/ is left alone (its change: lines still work)");
  assert.ok(existsSync(join(dir, 'target/criterion/gone/new/estimates.json')), 'only sample.json and benchmark.json of new/ are cleared');
  assert.ok(!existsSync(join(dir, 'target/criterion/gone/new/sample.json')));
  const third = await round(dir, scratch, 'true', undefined, undefined, 'round 3');
  assert.match(failure(third), /target\/criterion: is a directory, but the round wrote no criterion results in it \(no <benchmark>\/new\/sample\.json\)/);
});

test('the bench command cannot skip the collection with exit, and its exit status is the round\'s', async () => {
  const { dir, scratch } = checkout();
  assert.deepEqual(numbers(await round(dir, scratch, 'crit a a 5; exit 0')), { 'a time': Array(10).fill(5) });
  const failed = await round(dir, scratch, 'crit a a 5; echo boom >&2; exit 3');
  assert.equal('failure' in failed && failed.failure.exitCode, 3);
  assert.match(failure(failed), /exit code 3: boom/);
});

test('a directory that is not criterion\'s says what one holds; --format other than criterion is refused by name', async () => {
  const { dir, scratch } = checkout();
  const plain = await round(dir, scratch, 'mkdir -p out && echo "a: 1 ns" > out/results.txt', 'out');
  assert.match(failure(plain), /out: is a directory, but the round wrote no criterion results in it .*name criterion's output directory \(target\/criterion/);
  const wrongFormat = await round(dir, scratch, 'crit a a 5', 'target/criterion/', 'google-benchmark');
  assert.match(failure(wrongFormat), /target\/criterion: is a directory; a result directory is read as criterion's \(target\/criterion\): use --format criterion or leave --format out/);
  assert.deepEqual(numbers(await round(dir, scratch, 'crit a a 5', 'target/criterion', 'criterion')), { 'a time': Array(10).fill(5) });
});

test('a subdirectory of target/criterion works, and a relative or absolute path alike', async () => {
  const { dir, scratch } = checkout();
  const group = await round(dir, scratch, 'crit g/x g/x 3; crit h h 4', 'target/criterion/g');
  assert.deepEqual(numbers(group), { 'g/x time': Array(10).fill(3) });
  const absolute = await round(dir, scratch, 'crit h h 4', join(dir, 'target/criterion'));
  assert.deepEqual(numbers(absolute), { 'h time': Array(10).fill(4) });
});

test('names with spaces, newlines and multi-byte characters survive the packing', async () => {
  const { dir, scratch } = checkout();
  // No benchmark.json: the name comes from the path, so the path must arrive intact.
  const outcome = await round(dir, scratch, `crit x "$(printf 'naïve sort\\nµs')" 9 && rm "target/criterion/$(printf 'naïve sort\\nµs')/new/benchmark.json"; crit 'ü ü' 'ü ü' 8`);
  assert.deepEqual(numbers(outcome), { 'naïve sort\nµs time': Array(10).fill(9), 'ü ü time': Array(10).fill(8) });
  assert.ok(!('failure' in outcome) && outcome.warnings.some((w) => /no benchmark\.json beside it/.test(w.message)));
});

test('a link anywhere in the result directory is refused, and what it points at is never read', async () => {
  const { dir, scratch } = checkout();
  writeFileSync(join(dir, 'secret.txt'), 'TOP-SECRET-KEY');
  const outcome = await round(dir, scratch, `crit a a 5 && ln -sf "$PWD/secret.txt" target/criterion/a/new/sample.json`);
  const message = failure(outcome);
  assert.match(message, /target\/criterion: holds a symbolic link \("a\/new\/sample\.json"\); benchbot does not follow links inside a result directory/);
  assert.doesNotMatch(message, /TOP-SECRET/);
  assert.doesNotMatch(readFileSync(join(dir, RESULT_BUNDLE), 'utf8'), /TOP-SECRET/);
  const linkedDir = await round(dir, scratch, `rm target/criterion/a/new/sample.json; mkdir -p elsewhere/new && ln -s "$PWD/elsewhere" target/criterion/b`, undefined, undefined, 'round 2');
  assert.match(failure(linkedDir), /holds a symbolic link \("b"\)/);
});

test('result files above the input limit stop the collection inside the round, uncopied', async () => {
  const { dir, scratch } = checkout();
  // Sparse: 300 MB that take no disk; copying them into the bundle would.
  const outcome = await round(dir, scratch, 'crit a a 5 && truncate -s 300M target/criterion/a/new/sample.json');
  assert.match(failure(outcome), /target\/criterion: holds a result file \("a\/new\/sample\.json"\) above 268,435,456 bytes/);
  assert.ok(readFileSync(join(dir, RESULT_BUNDLE)).length < 1000);
});

test('a result file that is a regular file is read as before, and a missing one fails the round by name', async () => {
  const { dir, scratch } = checkout();
  const file = await round(dir, scratch, 'echo "a: 12 ns" > out.txt', 'out.txt', 'plain');
  assert.deepEqual(numbers(file), { 'a time': [12] });
  const missing = await round(dir, scratch, 'true', 'nothing.json');
  assert.match(failure(missing), /nothing\.json: does not exist after the round: the bench command wrote no results there \(--result-file is relative to the checkout\)/);
});

/** tarOf packs files (relative path -> content) with the real tar, in `format` (gnu, pax, ustar), links given as `-> target`. */
function tarOf(files: Record<string, string>, format = 'gnu'): Buffer {
  const root = mkdtempSync(join(tmpdir(), 'benchbot-tar-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    if (text.startsWith('-> ')) symlinkSync(text.slice(3), join(root, path));
    else writeFileSync(join(root, path), text);
  }
  return execFileSync('tar', [`--format=${format}`, '-cf', '-', ...Object.keys(files).map((p) => `./${p}`)], { cwd: root });
}

const TAR = Buffer.from('benchbot-result-bundle 2 tar\n');

test('parseResultBundle reads what GNU, pax and ustar tar write, long names included', () => {
  const long = `${'g'.repeat(70)}/${'f'.repeat(60)}/new/sample.json`;
  const files = { 'a/new/sample.json': '{"x": "é"}', [long]: '{}', 'b/new/benchmark.json': '' };
  for (const format of ['gnu', 'pax', 'ustar']) {
    const bundle = parseResultBundle(Buffer.concat([TAR, tarOf(files, format)]), 'target/criterion/');
    assert.deepEqual(bundle, {
      kind: 'directory',
      files: [
        { path: 'target/criterion/a/new/sample.json', text: '{"x": "é"}' },
        { path: 'target/criterion/b/new/benchmark.json', text: '' },
        { path: `target/criterion/${long}`, text: '{}' },
      ],
    }, format);
  }
  // find runs tar more than once on many files: archives one after another.
  const twice = parseResultBundle(Buffer.concat([TAR, tarOf({ 'a/new/sample.json': '1' }), tarOf({ 'b/new/sample.json': '2' })]), 't');
  assert.deepEqual(twice.kind === 'directory' && twice.files.map((f) => f.text), ['1', '2']);
});

test('parseResultBundle refuses damaged, truncated and linking bundles by the result path', () => {
  const good = Buffer.concat([TAR, tarOf({ 'a/new/sample.json': '{"sampling_mode":"Linear"}' })]);
  assert.deepEqual(parseResultBundle(Buffer.from('benchbot-result-bundle 2 not-a-directory\n'), 'x'), { kind: 'not-a-directory' });
  const flipped = Buffer.from(good);
  flipped[TAR.length + 10] ^= 1;
  assert.throws(() => parseResultBundle(flipped, 't'), /^FormatError: t: the round left a damaged \.benchbot-result-bundle \(bad tar header checksum at byte 0\)/);
  assert.throws(() => parseResultBundle(good.subarray(0, TAR.length + 520), 't'), /t: the round left a damaged \.benchbot-result-bundle \(truncated at byte 520/);
  assert.throws(() => parseResultBundle(Buffer.concat([good, Buffer.from('xyz')]), 't'), /damaged .*3 stray bytes at the end/);
  assert.throws(() => parseResultBundle(Buffer.concat([TAR, tarOf({ 'a/new/sample.json': '-> /etc/passwd' })]), 't'), /t: holds a link \("a\/new\/sample\.json"\); benchbot does not follow links/);
  assert.throws(() => parseResultBundle(Buffer.from('{"not": "a bundle"}'), 't'), /t: the round left no readable \.benchbot-result-bundle/);
  assert.throws(() => parseResultBundle(Buffer.from('benchbot-result-bundle 2 unlisted\n'), 't'), /t: is a directory the round cannot enter/);
  assert.throws(() => parseResultBundle(Buffer.from('benchbot-result-bundle 2 what\n'), 't'), /damaged .*kind "what"/);
});

test('the bundle file is left in the checkout, not in the result directory', async () => {
  const { dir, scratch } = checkout();
  mkdirSync(join(dir, 'target'), { recursive: true });
  await round(dir, scratch, 'crit a a 5');
  assert.ok(existsSync(join(dir, RESULT_BUNDLE)));
  assert.ok(!existsSync(join(dir, 'target/criterion', RESULT_BUNDLE)));
});

// The wrapper runs where the round runs and the bundle comes back through
// the executor's fetch, so a directory works wherever a result file does.
async function remoteRounds(executor: Executor, root: string): Promise<void> {
  const { dir: local, scratch } = checkout();
  const there = await executor.prepare(local, 'base 1');
  assert.notEqual(there, local, 'the tree was shipped');
  const first = await round(there, scratch, "crit 'fib 15' 'fib 15' 100; crit gone gone 7", undefined, undefined, 'round 1', executor);
  assert.deepEqual(numbers(first), { 'fib 15 time': Array(10).fill(100), 'gone time': Array(10).fill(7) });
  const second = await round(there, scratch, "crit 'fib 15' 'fib 15' 50", undefined, undefined, 'round 2', executor);
  assert.deepEqual(numbers(second), { 'fib 15 time': Array(10).fill(50) });
  const missing = await round(there, scratch, 'true', 'nowhere', undefined, 'round 3', executor);
  assert.match(failure(missing), /nowhere: does not exist after the round/);
  assert.ok(!existsSync(join(local, 'target')), `nothing ran in the local tree (${root})`);
}

// Device hosts and small Linux boxes run busybox: its sh, find, head and
// tar must pack the same bundle. Debian's busybox package (scripts/prepare-tests.sh installs it).
test('busybox sh, find, head and tar pack the same bundle', { skip: spawnSync('busybox', ['true']).status === 0 ? false : 'busybox is not installed (Debian: busybox)' }, async () => {
  const { dir, scratch } = checkout();
  const bin = mkdtempSync(join(tmpdir(), 'benchbot-busybox-'));
  for (const applet of ['sh', 'find', 'head', 'tar', 'env', 'rm', 'mkdir', 'printf', 'awk', 'cp', 'ln', 'cat', 'truncate']) symlinkSync(execFileSync('sh', ['-c', 'command -v busybox'], { encoding: 'utf8' }).trim(), join(bin, applet));
  const executor = new LocalExecutor();
  const env = { PATH: bin };
  const run = (bench: string, tag: string) => measureRound({ bench: `. ./crit.sh; ${bench}`, resultFile: 'target/criterion', roundTimeoutMs: 30_000, env }, executor, dir, scratch, tag);
  const long = `${'g'.repeat(70)}/${'f'.repeat(60)}`;
  assert.deepEqual(numbers(await run(`crit 'fib 15' 'fib 15' 100; crit gone gone 7; crit ${long} ${long} 3`, 'round 1')), { 'fib 15 time': Array(10).fill(100), 'gone time': Array(10).fill(7), [`${long} time`]: Array(10).fill(3) });
  assert.deepEqual(numbers(await run("crit 'fib 15' 'fib 15' 50", 'round 2')), { 'fib 15 time': Array(10).fill(50) });
  assert.match(failure(await run('ln -s /etc/passwd target/criterion/gone/new/sample.json', 'round 3')), /holds a symbolic link \("gone\/new\/sample\.json"\)/);
});

describe('result directories through remote executors', () => {
  test('device executor (push/pull templates on this machine)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'benchbot-resultdir-device-'));
    const executor = createExecutor(parseExecutorSpec(`device:${join(root, 'on device')}`, { run: 'sh -c {cmd}', push: 'cp -R {src} {dst}', pull: 'cp {src} {dst}' }));
    await remoteRounds(executor, root);
  });

  describe('ssh executor (real OpenSSH server on loopback)', () => {
    let server: SshServer;
    let executor: Executor;
    before(async () => {
      server = await startSshd();
      executor = createExecutor({ kind: 'ssh', user: server.user, host: server.host, port: server.port, identity: server.identity, knownHosts: server.knownHosts, dir: join(server.dir, 'remote'), sshArgs: ['-F', '/dev/null'] });
    });
    after(async () => {
      await executor?.close();
      await server?.stop();
    });
    test('ssh executor', async () => {
      await remoteRounds(executor, server.dir);
    });
  });
});
