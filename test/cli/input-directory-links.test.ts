// A criterion directory is read without following symbolic links: a
// `new/sample.json` that links to a file outside (or a linked benchmark
// folder) is an input error naming the link, and the linked file's content
// never reaches the output. A FIFO in its place is refused instead of
// blocking the reader forever.
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

const node = process.execPath;
const cli = new URL('../../src/cli/benchbot.ts', import.meta.url).pathname;
const fixture = new URL('../../fixtures/criterion/target/criterion', import.meta.url).pathname;
const scratch = mkdtempSync(join(tmpdir(), 'benchbot-links-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

// Outside the input directory: a private file an attacker would like to see in a PR comment.
const outside = join(scratch, 'outside');
mkdirSync(outside);
const MARKER = 'root:x:0:0:TOP-SECRET-MARKER:/root:/bin/bash';
writeFileSync(join(outside, 'passwd'), `${MARKER}\n`);
// A valid sample outside, so that a followed link would be read without any error at all.
cpSync(join(fixture, 'fib 15', 'new'), join(outside, 'bench', 'new'), { recursive: true });
writeFileSync(join(outside, 'bench', 'new', 'benchmark.json'), JSON.stringify({ group_id: 'exfiltrated', function_id: null, value_str: null, throughput: null, full_id: `exfiltrated ${MARKER}`, directory_name: 'exfiltrated', title: `exfiltrated ${MARKER}` }));

function criterionCopy(name: string): string {
  const dir = join(scratch, name, 'criterion');
  cpSync(fixture, dir, { recursive: true });
  return dir;
}

function runCli(args: string[]): Promise<{ code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(node, [cli, ...args], { cwd: scratch, stdio: ['ignore', 'pipe', 'pipe'], timeout: 20_000 });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
}

test('the fixture copy reads cleanly (the control for the cases below)', async () => {
  const result = await runCli(['parse', criterionCopy('control')]);
  assert.equal(result.code, 0, result.stderr);
});

test('a new/sample.json linking to a file outside is refused, naming the link; the file never shows', async () => {
  const dir = criterionCopy('file-link');
  const link = join(dir, 'fib 15', 'new', 'sample.json');
  unlinkSync(link);
  symlinkSync(join(outside, 'passwd'), link);
  for (const command of [['parse', dir], ['compare', dir, dir]]) {
    const result = await runCli(command);
    assert.equal(result.code, 2, `${command[0]}: ${result.stderr}`);
    assert.match(result.stderr, /criterion\/fib 15\/new\/sample\.json: is a symbolic link/);
    assert.match(result.stderr, /copy the file into the directory/);
    assert.doesNotMatch(result.stdout + result.stderr, /TOP-SECRET|root:x/);
  }
});

test('a link to a valid sample outside is refused too, not silently read', async () => {
  const dir = criterionCopy('valid-link');
  const link = join(dir, 'fib 15', 'new', 'benchmark.json');
  unlinkSync(link);
  symlinkSync(join(outside, 'bench', 'new', 'benchmark.json'), link);
  const result = await runCli(['parse', dir]);
  assert.equal(result.code, 2, result.stdout);
  assert.match(result.stderr, /fib 15\/new\/benchmark\.json: is a symbolic link/);
  assert.doesNotMatch(result.stdout + result.stderr, /TOP-SECRET|exfiltrated|\/outside\//);
});

test('a linked benchmark folder is refused, naming the link', async () => {
  const dir = criterionCopy('dir-link');
  symlinkSync(join(outside, 'bench'), join(dir, 'linked'));
  const result = await runCli(['parse', dir]);
  assert.equal(result.code, 2, result.stdout);
  assert.match(result.stderr, /criterion\/linked: is a symbolic link/);
  assert.doesNotMatch(result.stdout + result.stderr, /TOP-SECRET|exfiltrated|\/outside\//);
});

test('a FIFO as new/sample.json is refused at once instead of blocking the reader', async () => {
  const dir = criterionCopy('fifo');
  const fifo = join(dir, 'fib 15', 'new', 'sample.json');
  unlinkSync(fifo);
  execFileSync('mkfifo', [fifo]);
  const result = await runCli(['parse', dir]);
  assert.equal(result.signal, null, 'the reader did not hang until killed');
  assert.equal(result.code, 2, result.stdout);
  assert.match(result.stderr, /fib 15\/new\/sample\.json: is not a regular file/);
});

test('bisect-log (the bisect workflow report job) refuses a bisect.json that is a link; the target never shows', async () => {
  const dir = join(scratch, 'bisect-artifact');
  mkdirSync(dir);
  symlinkSync(join(outside, 'passwd'), join(dir, 'bisect.json'));
  const result = await runCli(['bisect-log', join(dir, 'bisect.json')]);
  assert.equal(result.code, 2, result.stdout);
  assert.match(result.stderr, /bisect\.json: is a symbolic link/);
  assert.doesNotMatch(result.stdout + result.stderr, /TOP-SECRET|root:x/);
});
