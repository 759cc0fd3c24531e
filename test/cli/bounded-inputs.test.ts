import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/benchbot.js');

function benchbot(args: string[], options: { input?: string; timeoutMs?: number } = {}) {
  const started = performance.now();
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', input: options.input, timeout: options.timeoutMs ?? 60_000 });
  return { status: run.status, signal: run.signal, stdout: run.stdout, stderr: run.stderr, ms: performance.now() - started };
}

/** sparse makes a file of the given size that occupies no disk and is never read. */
function sparse(path: string, bytes: number): void {
  writeFileSync(path, '');
  truncateSync(path, bytes);
}

test('compare --filter (a+)+$ on a 41-character name finishes at once (RE2, no backtracking)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-filter-'));
  const hostile = 'a'.repeat(41) + '!';
  const side = (shift: number) =>
    JSON.stringify({ version: 1, benchmarks: [hostile, 'xa', 'other'].map((benchmark) => ({ benchmark, unit: 'ns', values: [10, 11, 12, 13, 14].map((v) => v + shift) })) });
  writeFileSync(join(dir, 'base.json'), side(0));
  writeFileSync(join(dir, 'head.json'), side(0));
  // A backtracking engine took over 20 s on this name; the process is killed at 20 s.
  const run = benchbot(['compare', join(dir, 'base.json'), join(dir, 'head.json'), '--filter', '(a+)+$', '--output', 'json'], { timeoutMs: 20_000 });
  assert.equal(run.signal, null, `killed after ${Math.round(run.ms)} ms`);
  assert.equal(run.status, 0, run.stderr);
  assert.deepEqual(JSON.parse(run.stdout).comparisons.map((c: { benchmark: string }) => c.benchmark), ['xa']);
});

test('compare --filter refuses what RE2 cannot run, saying why', () => {
  const run = benchbot(['compare', 'fixtures/benchbot/handwritten.json', 'fixtures/benchbot/handwritten.json', '--filter', '(a)\\1']);
  assert.equal(run.status, 2);
  assert.match(run.stderr, /--filter \(a\)\\1: not a valid regular expression \(RE2 syntax: no backreferences or lookaround\)/);
});

test('an input above V8\'s string limit (and below the old limit) is refused by size, naming the file, without reading it', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-size-'));
  // 0x1fffffe8 + 8 bytes: readFileSync crashed with "Cannot create a string longer than 0x1fffffe8".
  const huge = join(dir, 'huge.json');
  sparse(huge, 0x1fffffe8 + 8);
  const run = benchbot(['parse', huge]);
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /huge\.json: is 536,870,896 bytes; benchbot reads inputs of at most 268,435,456 bytes \(256 MiB\)/);
  assert.doesNotMatch(run.stderr, /\n\s+at |Cannot create a string/);

  const justOver = join(dir, 'over.txt');
  sparse(justOver, 256 * 1024 * 1024 + 1);
  const over = benchbot(['compare', justOver, 'fixtures/go/single-package.txt']);
  assert.equal(over.status, 2, over.stderr);
  assert.match(over.stderr, /over\.txt: is 268,435,457 bytes/);
});

test('a criterion directory is bounded per file and in total, checked before reading', () => {
  const root = mkdtempSync(join(tmpdir(), 'benchbot-criterion-'));
  const bench = (name: string) => {
    const dir = join(root, 'target', 'criterion', name, 'new');
    mkdirSync(dir, { recursive: true });
    return dir;
  };
  const sample = readFileSync('fixtures/criterion/target/criterion/fib 15/new/sample.json', 'utf8');
  writeFileSync(join(bench('fine'), 'sample.json'), sample);
  sparse(join(bench('huge'), 'sample.json'), 300 * 1024 * 1024);
  const one = benchbot(['parse', join(root, 'target', 'criterion')]);
  assert.equal(one.status, 2, one.stderr);
  assert.match(one.stderr, /huge\/new\/sample\.json: is 314,572,800 bytes; benchbot reads inputs of at most 268,435,456 bytes/);

  sparse(join(bench('huge'), 'sample.json'), 150 * 1024 * 1024);
  sparse(join(bench('large'), 'sample.json'), 150 * 1024 * 1024);
  const total = benchbot(['parse', join(root, 'target', 'criterion')]);
  assert.equal(total.status, 2, total.stderr);
  assert.match(total.stderr, /criterion: result files \(new\/\*\.json\) hold more than 268,435,456 bytes together/);
});

test('a pipe is still an input (read to its end, within the limit)', () => {
  // A real pipe, as `<(cmd)` or `cmd | benchbot parse /dev/stdin` give.
  const run = spawnSync('sh', ['-c', `cat fixtures/benchbot/handwritten.json | "${process.execPath}" "${BIN}" parse /dev/stdin`], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });
  assert.equal(run.status, 0, run.stderr);
  assert.equal(JSON.parse(run.stdout).format, 'benchbot');
});
