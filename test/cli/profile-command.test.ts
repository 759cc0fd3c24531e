// `benchbot profile` end to end, as a user runs it: a Google Benchmark
// suite in a git repository whose head commit adds work to one function
// (mix, called by the benchmark and kept out of line), both commits built and
// run under valgrind. The profile must name that function first, with most of
// the change; unknown commits and benchmarks are input errors (exit 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { parseRunArgs } from '../../src/cli/run-command.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

function tool(command: string): boolean {
  return spawnSync('sh', ['-c', `command -v ${command}`]).status === 0;
}

function benchbot(cwd: string, ...args: string[]) {
  // A private machine lock: other test files (and other runs on this machine) must not make this one wait.
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BENCHBOT_LOCK: join(cwd, 'machine.lock'), GITHUB_ACTIONS: '' } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const SUITE = (rounds: number) => `#include <benchmark/benchmark.h>
#include <cstdint>
__attribute__((noinline)) uint64_t mix(uint64_t x) {
  for (int i = 0; i < ${rounds}; i++) x = (x ^ (x >> 31)) * 0x9e3779b97f4a7c15ULL;
  return x;
}
__attribute__((noinline)) uint64_t sum_to(uint64_t n) { uint64_t s = 0; for (uint64_t i = 0; i < n; i++) s += i * i; return s; }
static void BM_Mix(benchmark::State& state) {
  uint64_t h = 1;
  for (auto _ : state) { for (int k = 0; k < 64; k++) h = mix(h + k); h += sum_to(200); benchmark::DoNotOptimize(h); }
}
BENCHMARK(BM_Mix);
static void BM_Other(benchmark::State& state) { for (auto _ : state) benchmark::DoNotOptimize(sum_to(100)); }
BENCHMARK(BM_Other);
BENCHMARK_MAIN();
`;

/** makeRepo commits the suite at `base` and, with mix doing 10 rounds instead of 8, at `head`. */
function makeRepo(): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-profile-'));
  const git = (...args: string[]) => assert.equal(spawnSync('git', args, { cwd: dir, encoding: 'utf8' }).status, 0, `git ${args.join(' ')}`);
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'test');
  writeFileSync(join(dir, 'build.sh'), '#!/bin/sh\nexec g++ -O2 -g -o bench bench.cpp -lbenchmark -lpthread\n', { mode: 0o755 });
  // A short minimum time keeps the wall-time rounds quick; a schedule given through the environment (the instruction count's) wins.
  writeFileSync(join(dir, 'bench.sh'), '#!/bin/sh\nexec ./bench --benchmark_format=json --benchmark_repetitions=1 --benchmark_min_time="${BENCHMARK_MIN_TIME:-0.05}" "$@"\n', { mode: 0o755 });
  writeFileSync(join(dir, '.gitignore'), 'bench\n.benchbot/\n');
  writeFileSync(join(dir, 'bench.cpp'), SUITE(8));
  git('add', '.');
  git('commit', '-q', '-m', 'suite');
  git('tag', 'base');
  writeFileSync(join(dir, 'bench.cpp'), SUITE(10));
  git('commit', '-q', '-am', 'mix: two more rounds');
  git('tag', 'head');
  return dir;
}

const ready = tool('valgrind') && tool('g++') && spawnSync('sh', ['-c', 'echo "#include <benchmark/benchmark.h>" | g++ -x c++ -fsyntax-only -']).status === 0;

test('benchbot profile names the function a commit slowed, first, with most of the change', { skip: ready ? false : 'needs valgrind, g++ and Google Benchmark (scripts/prepare-tests.sh installs them)', timeout: 120_000 }, (t) => {
  const dir = makeRepo();
  const started = Date.now();
  const run = benchbot(dir, 'profile', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh', '--benchmark', 'BM_Mix', '--output', 'json');
  t.diagnostic(`profiled both sides in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(run.status, 0, run.stderr);
  const diff = JSON.parse(run.stdout);
  assert.equal(diff.benchmark, 'BM_Mix');
  assert.equal(diff.tool, 'callgrind');
  assert.ok(diff.change > 0, `change ${diff.change}`);
  assert.match(diff.self[0].name, /^mix\(unsigned long\)$/);
  assert.equal(diff.self[0].object, 'bench');
  assert.ok(diff.self[0].share >= 0.8, `share ${diff.self[0].share}`);
  // sum_to did the same work on both sides.
  assert.ok(!diff.self.some((f: { name: string }) => f.name.startsWith('sum_to')), JSON.stringify(diff.self));

  const text = benchbot(dir, 'profile', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh', '--benchmark', 'BM_Mix');
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^where BM_Mix changed: \+[\d,]+ instructions per iteration \(\+[\d.]+%\), \d+\.\d% of it in mix\(unsigned long\)\n/);
  assert.match(text.stdout, /\nperf record: .*\ncallgrind files \(kcachegrind, callgrind_annotate\): \S+\.callgrind \S+\.callgrind\n?$/);
});

test('benchbot profile: an unknown commit or benchmark is an input error that says what to fix', { skip: ready ? false : 'needs valgrind, g++ and Google Benchmark', timeout: 120_000 }, () => {
  const dir = makeRepo();
  const common = ['--bench', './bench.sh', '--build', './build.sh'];
  const commit = benchbot(dir, 'profile', '--base', 'base', '--head', 'nope', ...common, '--benchmark', 'BM_Mix');
  assert.equal(commit.status, 2);
  assert.match(commit.stderr, /--head nope: no such commit, branch or tag/);
  const name = benchbot(dir, 'profile', '--base', 'base', '--head', 'head', ...common, '--benchmark', 'BM_Mixx');
  assert.equal(name.status, 2);
  assert.match(name.stderr, /--benchmark BM_Mixx: base [0-9a-f]{12} has no such benchmark \(did you mean BM_Mix\?\); it has BM_Mix, BM_Other/);
  const missing = benchbot(dir, 'profile', '--base', 'base', '--head', 'head', ...common);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /--benchmark is required/);
  const harness = benchbot(dir, 'profile', '--base', 'base', '--head', 'head', ...common, '--benchmark', 'BM_Mix', '--format', 'hyperfine', '--with', 'callgrind');
  assert.equal(harness.status, 2);
  assert.match(harness.stderr, /--format hyperfine: a callgrind profile needs a fixed iteration schedule/);
  const unknown = benchbot(dir, 'profile', '--base', 'base', '--head', 'head', ...common, '--benchmark', 'BM_Mix', '--format', 'hyperfin');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /--format: unknown format "hyperfin" \(did you mean hyperfine\?\)/);
});

test('benchbot run profiles the benchmark it found regressed: the JSON report\'s profiles, the PR comment\'s folded block', { skip: ready ? false : 'needs valgrind, g++ and Google Benchmark', timeout: 120_000 }, (t) => {
  const dir = makeRepo();
  const started = Date.now();
  const markdownFile = join(dir, 'comment.md');
  const run = benchbot(dir, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh', '--max-load', '1000', '--no-store',
    '--min-runs', '5', '--max-runs', '5', '--output', 'json', '--export-markdown', markdownFile);
  t.diagnostic(`run with its profile in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(run.status, 1, run.stderr);
  const report = JSON.parse(run.stdout);
  assert.ok(report.comparisons.some((c: { benchmark: string; verdict: string }) => c.benchmark === 'BM_Mix' && c.verdict === 'regressed'));
  assert.deepEqual(report.profiles.map((p: { benchmark: string }) => p.benchmark), ['BM_Mix']);
  assert.equal(report.profiles[0].self[0].name, 'mix(unsigned long)');
  assert.ok(report.profiles[0].self[0].share >= 0.8);
  assert.deepEqual(report.profile_notes, []);
  const markdown = readFileSync(markdownFile, 'utf8');
  assert.match(markdown, /\n<details><summary>Where <code>BM_Mix<\/code> changed: \+[\d,]+ instructions per iteration \(\+[\d.]+%\), \d+\.\d% of it in <code>mix\(unsigned long\)<\/code><\/summary>\n/);
  // After the tables, before the footer's statistics.
  assert.ok(markdown.indexOf('<summary>Where') < markdown.indexOf('How these verdicts were reached'));

  assert.equal(parseRunArgs(['--base', 'a', '--head', 'b', '--bench', 'x', '--no-profile'], dir, {}).profile, false, '--no-profile turns it off');
  assert.equal(parseRunArgs(['--base', 'a', '--head', 'b', '--bench', 'x'], dir, {}).profile, true);
});
