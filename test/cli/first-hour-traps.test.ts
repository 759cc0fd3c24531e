// The traps a new user hit in their first hour (issue 21, part 6), each
// through the real CLI as they met it: a spawned `benchbot` with the
// arguments they typed, its exit status and what it printed.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/benchbot.js');
const GO_BASE = 'fixtures/comparisons/go-benchmem-base.txt';
const GO_HEAD = 'fixtures/comparisons/go-benchmem-head.txt';

function benchbot(args: string[], cwd = ROOT) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BENCHBOT_DATABASE_URL: '' } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

test('a threshold has one reading: 1 and 1% are the same, 50 and 50% too, and a bare 0.5 is refused naming 0.5% and 50%', () => {
  const compare = (...flags: string[]) => benchbot(['compare', join(ROOT, GO_BASE), join(ROOT, GO_HEAD), '--output', 'json', ...flags]);
  const percentOf = (run: ReturnType<typeof benchbot>) => JSON.parse(run.stdout).threshold;
  assert.equal(percentOf(compare('--threshold', '1')), percentOf(compare('--threshold', '1%')));
  assert.equal(percentOf(compare('--threshold', '1')), 0.01);
  assert.equal(percentOf(compare('--threshold', '50')), 0.5);
  assert.equal(percentOf(compare('--threshold', '50%')), 0.5);
  for (const [args, message] of [
    [['--threshold', '0.5'], /--threshold 0\.5 is ambiguous: write 0\.5% or 50%/],
    [['--threshold', '.05'], /--threshold \.05 is ambiguous: write \.05% or 5%/],
    [['--threshold-for', 'Benchmark*=0.1'], /--threshold-for Benchmark\*=0\.1: 0\.1 is ambiguous: write 0\.1% or 10%/],
  ] as const) {
    const run = compare(...args);
    assert.equal(run.status, 2, args.join(' '));
    assert.match(run.stderr, message);
  }
  // The same rule in every command that reads a threshold, before anything is opened or run.
  for (const command of [['scan'], ['dashboard', '--out', '/tmp/benchbot-unused'], ['run', '--base', 'a', '--head', 'b', '--bench', 'true'], ['bisect', '--good', 'a', '--bad', 'b', '--bench', 'true']]) {
    const run = benchbot([...command, '--threshold', '0.5']);
    assert.equal(run.status, 2, command[0]);
    assert.match(run.stderr, /0\.5 is ambiguous: write 0\.5% or 50%/, command[0]);
  }
});

test('a near miss is answered with the name it most likely meant: a format, a flag, a command, an output, the missing --from', () => {
  const cases: [string[], RegExp][] = [
    [['parse', GO_BASE, '--format', 'googlebenchmark'], /unknown format "googlebenchmark" \(did you mean google-benchmark\?\)/],
    [['run', '--base', 'a', '--head', 'b', '--bench', 'true', '--format', 'googlebenchmark'], /unknown format "googlebenchmark" \(did you mean google-benchmark\?\)/],
    [['compare', GO_BASE, GO_HEAD, '--treshold', '5%'], /unknown option --treshold; did you mean --threshold\?/],
    [['scan', '--treshold', '5%'], /unknown option --treshold; did you mean --threshold\?/],
    [['run', '--base', 'a', '--head', 'b', '--bench', 'true', '--max-run', '9'], /unknown option --max-run; did you mean --max-runs\?/],
    [['compare', GO_BASE, GO_HEAD, '--output', 'jsn'], /--output jsn: use one of .* \(did you mean json\?\)/],
    [['scna'], /unknown command "scna" \(did you mean scan\?\)/],
    [['import', 'fixtures/github-action-benchmark/sui-data.js', '--store', '/nonexistent-dir/never.db'], /sui-data\.js is github-action-benchmark's history \(data\.js\), not a benchbot export: add --from github-action-benchmark/],
  ];
  for (const [args, message] of cases) {
    const run = benchbot(args);
    assert.equal(run.status, 2, args.join(' '));
    assert.match(run.stderr, message, args.join(' '));
  }
  // Nothing close is not a guess: the known options are listed instead.
  const far = benchbot(['compare', GO_BASE, GO_HEAD, '--zzz']);
  assert.equal(far.status, 2);
  assert.doesNotMatch(far.stderr, /did you mean/);
  assert.match(far.stderr, /--threshold-for .*are the options/);
});

test('compare of two files that share no benchmark is an input error naming names from each side; an empty benchmarks list is warned about', () => {
  const disjoint = benchbot(['compare', GO_BASE, 'fixtures/hyperfine/basic.json']);
  assert.equal(disjoint.status, 2, disjoint.stdout);
  assert.equal(disjoint.stdout, '');
  assert.match(disjoint.stderr, /BASE and HEAD share no benchmark/);
  assert.match(disjoint.stderr, /BASE \(fixtures\/comparisons\/go-benchmem-base\.txt\) has "BenchmarkAdler32\/size=64"/);
  assert.match(disjoint.stderr, /HEAD \(fixtures\/hyperfine\/basic\.json\) has "sleep 0\.01"/);

  const dir = mkdtempSync(join(tmpdir(), 'benchbot-traps-'));
  const empty = join(dir, 'empty.json');
  writeFileSync(empty, '{"benchmarks": []}\n');
  const parsed = benchbot(['parse', empty]);
  assert.equal(parsed.status, 0, parsed.stderr);
  assert.match(JSON.parse(parsed.stdout).warnings[0].message, /empty\.json: holds no benchmark/);
  const againstEmpty = benchbot(['compare', empty, 'fixtures/google-benchmark/repetitions.json']);
  assert.equal(againstEmpty.status, 2);
  assert.match(againstEmpty.stderr, /BASE \(.*empty\.json\) holds no benchmark; HEAD .* has "BM_Sort\/1024"/);
  // Sides with benchmarks in common still compare, however many are new or removed.
  assert.notEqual(benchbot(['compare', GO_BASE, GO_HEAD, '--output', 'json']).status, 2);
});

test('an output path that cannot be written is an input error naming the flag (exit 2), not a stack trace', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-traps-'));
  const store = join(dir, 'history.db');
  assert.equal(benchbot(['import', join(ROOT, 'fixtures/github-action-benchmark/sui-data.js'), '--from', 'github-action-benchmark', '--store', store], dir).status, 0);
  writeFileSync(join(dir, 'site'), 'a file where the site should go');
  const cases: [string[], RegExp][] = [
    [['dashboard', '--store', store, '--out', 'site'], /--out site: cannot write there: it is a file, not a directory/],
    [['dashboard', '--store', store, '--out', 'site/inner'], /--out site\/inner: cannot write there: a part of the path is a file/],
    [['export', '--store', store, '--output', join(dir, 'missing/dir/x.ndjson')], /--output .*missing\/dir\/x\.ndjson: cannot write there: its directory does not exist; create .*missing\/dir first/],
    // Refused before a single round is measured.
    [['nightly', '--bench', 'true', '--dashboard', 'site'], /--dashboard .*site: cannot write there: it is a file, not a directory/],
    [['run', '--base', 'a', '--head', 'b', '--bench', 'true', '--export-markdown', join(dir, 'missing/comment.md')], /--export-markdown .*missing\/comment\.md: cannot write there: its directory does not exist/],
  ];
  for (const [args, message] of cases) {
    const run = benchbot(args, dir);
    assert.equal(run.status, 2, args.join(' '));
    assert.match(run.stderr, message);
    assert.doesNotMatch(run.stderr, /\n\s+at /, 'no stack trace');
  }
  assert.equal(readFileSync(join(dir, 'site'), 'utf8'), 'a file where the site should go');
});

test('commands that only read refuse a store that does not exist, naming the path and how to make one, and create nothing', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-traps-'));
  const cases: [string[], RegExp][] = [
    [['scan', '--store', 'typo.db'], /no store at .*\/typo\.db: nothing has been stored there/],
    [['export'], /no store at .*\/\.benchbot\/benchbot\.db/],
    [['dashboard', '--out', 'site'], /no store at .*\/\.benchbot\/benchbot\.db/],
    [['ack', 'main:BM_A:time:m', '--at', 'abcdef0', '--reason', 'x'], /no store at /],
  ];
  for (const [args, message] of cases) {
    const run = benchbot(args, dir);
    assert.equal(run.status, 2, args.join(' '));
    assert.match(run.stderr, message);
    assert.match(run.stderr, /--store PATH .* benchbot run and benchbot import store runs/);
  }
  assert.deepEqual(readdirSync(dir), [], 'nothing created');
});
