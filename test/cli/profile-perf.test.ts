// `benchbot profile --with perf` end to end, as a user runs it, with no
// valgrind involved: perf record samples the benchmark at native speed
// (cpu-clock on this PMU-less VM, cycles where there is a PMU).
// 1. A Google Benchmark suite whose head commit adds two rounds to mix():
//    the profile names mix first, beyond sampling noise, with each side's
//    sample count and the sampling error of every share.
// 2. A JavaScript benchmark run whole (`--format command`) from a file the
//    pull request named with markdown and HTML in it: V8's perf map (benchbot
//    passes --perf-basic-prof) names the JavaScript function, so the file name
//    reaches the function names, and the PR comment's block keeps it inert.
// Skipped, with the reason printed, where perf cannot sample.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { liveText, outsideCode, structure } from '../report/markdown-tree.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

function sh(command: string): boolean {
  return spawnSync('sh', ['-c', command], { stdio: 'ignore' }).status === 0;
}

function benchbot(cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BENCHBOT_LOCK: join(cwd, 'machine.lock'), GITHUB_ACTIONS: '' } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

function repo(files: (version: 'base' | 'head') => Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-perf-'));
  const git = (...args: string[]) => assert.equal(spawnSync('git', args, { cwd: dir, encoding: 'utf8' }).status, 0, `git ${args.join(' ')}`);
  git('init', '-q', '-b', 'main');
  git('config', 'user.email', 't@example.com');
  git('config', 'user.name', 'test');
  for (const version of ['base', 'head'] as const) {
    for (const [name, text] of Object.entries(files(version))) writeFileSync(join(dir, name), text, { mode: name.endsWith('.sh') ? 0o755 : 0o644 });
    git('add', '.');
    git('commit', '-q', '-m', version);
    git('tag', version);
  }
  return dir;
}

const perf = sh('perf record -q -e cpu-clock -c 100000 -o /tmp/benchbot-perf-probe.data -- true && rm -f /tmp/benchbot-perf-probe.data');
const googleBenchmark = sh('command -v g++') && sh('echo "#include <benchmark/benchmark.h>" | g++ -x c++ -fsyntax-only -');
const why = perf ? undefined : 'perf record cannot sample here (Debian: apt-get install linux-perf; kernel.perf_event_paranoid <= 2)';

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
BENCHMARK_MAIN();
`;

test('benchbot profile --with perf names the function a commit slowed, beyond sampling noise', { skip: why ?? (googleBenchmark ? false : 'needs g++ and Google Benchmark (scripts/prepare-tests.sh installs them)'), timeout: 120_000 }, (t) => {
  const dir = repo((v) => ({
    'bench.cpp': SUITE(v === 'base' ? 8 : 12),
    'build.sh': '#!/bin/sh\nexec g++ -O2 -g -o bench bench.cpp -lbenchmark -lpthread\n',
    'bench.sh': '#!/bin/sh\nexec ./bench --benchmark_format=json --benchmark_min_time="${BENCHMARK_MIN_TIME:-0.5}" "$@"\n',
    '.gitignore': 'bench\n.benchbot/\n',
  }));
  const started = Date.now();
  const run = benchbot(dir, 'profile', '--with', 'perf', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh', '--benchmark', 'BM_Mix', '--output', 'json');
  t.diagnostic(`profiled both sides in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(run.status, 0, run.stderr);
  const diff = JSON.parse(run.stdout);
  t.diagnostic(`samples ${diff.base.samples} / ${diff.head.samples}; change ${diff.change.toFixed(0)} ± ${diff.sampling.error.toFixed(0)} ns; ${diff.self.slice(0, 3).map((f: { name: string; object: string; share: number; shareError: number; base: number; head: number }) => `${f.name} [${f.object}] ${(f.base * 100).toFixed(1)}->${(f.head * 100).toFixed(1)} ${(f.share * 100).toFixed(1)}% ±${(f.shareError * 100).toFixed(1)}`).join(', ')}`);
  assert.equal(diff.tool, 'perf');
  assert.equal(diff.event, 'cpu-clock');
  assert.ok(diff.base.samples > 500 && diff.head.samples > 500, `samples ${diff.base.samples} / ${diff.head.samples}`);
  assert.equal(diff.sampling.noise, false);
  assert.ok(diff.change > 0);
  const first = diff.self.find((f: { noise: boolean }) => !f.noise);
  assert.equal(first.name, 'mix');
  assert.equal(first.object, 'bench');
  assert.ok(first.share >= 0.5, `share ${first.share}`);
  assert.ok(first.shareError > 0 && first.shareError < 0.5, `share error ${first.shareError}`);
  // The harness's frames above the benchmark function are not the benchmark.
  assert.ok(!diff.self.some((f: { name: string }) => /^main$|RunSpecifiedBenchmarks/.test(f.name)), JSON.stringify(diff.self.map((f: { name: string }) => f.name)));

  const text = benchbot(dir, 'profile', '--with', 'perf', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', './build.sh', '--benchmark', 'BM_Mix');
  assert.equal(text.status, 0, text.stderr);
  assert.match(text.stdout, /^where BM_Mix changed: \+[\d,]+ ns of CPU time per iteration \(\+[\d.]+%\), [\d.]+% ±[\d.]+ of it in mix\n/);
  assert.match(text.stdout, /[\d,]+ samples, head [0-9a-f]{12} .* [\d,]+ samples \(perf, cpu-clock\)/);
  assert.match(text.stdout, /sampled: ± is one standard error/);
  assert.match(text.stdout, /\nperf record: sampling cpu-clock|\nperf record: sampling cycles/);
});

test('benchbot profile --with callgrind refuses a harness it cannot count, and names --with perf', { skip: why, timeout: 60_000 }, () => {
  const dir = repo((v) => ({ 'bench.sh': `#!/bin/sh\necho ${v}\n` }));
  const run = benchbot(dir, 'profile', '--with', 'callgrind', '--format', 'hyperfine', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--benchmark', 'x');
  assert.equal(run.status, 2);
  assert.match(run.stderr, /--format hyperfine: a callgrind profile needs a fixed iteration schedule.*--with perf samples any harness/);
  const bad = benchbot(dir, 'profile', '--with', 'gprof', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--benchmark', 'x');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--with gprof: use callgrind or perf/);
});

/** HOSTILE is a file name a pull request could choose: markdown, HTML, a mention, a table pipe and a backtick. */
const HOSTILE = 'w`@octocat <img src=x onerror=alert(1)>|[x](https:__evil.example)*_';

const JS = (rounds: number) => `'use strict';
function work(n) {
  let h = 1;
  for (let i = 0; i < n; i++) for (let r = 0; r < ${rounds}; r++) h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) + i;
  return h;
}
let sink = 0;
for (let k = 0; k < 400; k++) sink += work(20000);
console.log(sink);
`;

test('benchbot profile --with perf of a whole JavaScript command: V8\'s perf map names the function, and a hostile file name stays inert', { skip: why, timeout: 120_000 }, (t) => {
  const dir = repo((v) => ({ [`${HOSTILE}.js`]: JS(v === 'base' ? 4 : 8), 'bench.sh': `#!/bin/sh\nexec "${process.execPath}" ./'${HOSTILE}.js'\n`, '.gitignore': '.benchbot/\n' }));
  const started = Date.now();
  const run = benchbot(dir, 'profile', '--with', 'perf', '--format', 'command', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--output', 'json');
  t.diagnostic(`profiled both sides in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(run.status, 0, run.stderr);
  const diff = JSON.parse(run.stdout);
  t.diagnostic(`samples ${diff.base.samples} / ${diff.head.samples}, unnamed ${diff.base.unnamed} / ${diff.head.unnamed}; first ${diff.self[0]?.name}`);
  assert.equal(diff.tool, 'perf');
  assert.equal(diff.benchmark, 'command');
  const work = diff.self.find((f: { name: string; noise: boolean }) => f.name.includes('work') && f.name.includes(HOSTILE));
  assert.ok(work, `V8's perf map names work in ${HOSTILE}.js: ${JSON.stringify(diff.self.map((f: { name: string; object: string }) => `${f.name} [${f.object}]`))}`);
  assert.equal(work.object, '[perf map]');
  // One function at both commits: V8's tier mark, the source position and the checkout's path are not part of its name.
  assert.equal(work.name, `JS:work ${HOSTILE}.js`);
  assert.ok(work.base > 0 && work.head > work.base, `${work.base} -> ${work.head}`);

  const markdown = benchbot(dir, 'profile', '--with', 'perf', '--format', 'command', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--output', 'markdown');
  assert.equal(markdown.status, 0, markdown.stderr);
  const shown = markdown.stdout;
  assert.ok(shown.includes('work'), shown);
  // Nothing from the name is live: no tag, link, image, mention; the structure is benchbot's alone.
  assert.ok(!/<img/i.test(outsideCode(shown).replace(/&lt;img/g, '')), shown);
  assert.deepEqual(liveText(shown).filter((l) => /octocat|evil/.test(l)), [], shown);
  assert.ok(!structure(shown).some((n) => /^(link|image)\b/.test(n) || /^html "(?!<details><summary>|<\/details>|<\/?sub>|<\/?code>)/.test(n)), structure(shown).join('\n'));
  assert.ok(!/<img/i.test(shown.split('\n')[0]), 'the summary line holds the name escaped');
});

/** TIMED is a JavaScript benchmark as the JS harnesses run one: for a time budget, printed as benchmark.js prints it. */
const TIMED = (size: number) => `'use strict';
function work(n) {
  let h = 1;
  for (let i = 0; i < n * ${size}; i++) h = Math.imul(h ^ (h >>> 15), 0x2c1b3c6d) + i;
  return h;
}
function other(n) {
  let s = 0;
  for (let i = 0; i < n * 4; i++) s = (s + i * i) % 1000003;
  return s;
}
let sink = 0;
let ops = 0;
const start = process.hrtime.bigint();
while (process.hrtime.bigint() - start < 500_000_000n) { sink += work(1000) + other(1000); ops++; }
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
console.log(\`step x \${Math.round(ops / seconds).toLocaleString('en-US')} ops/sec ±1.00% (10 runs sampled)\`);
if (sink === 0.5) console.log(sink);
`;

test('benchbot run samples a regressed JavaScript benchmark\'s whole command with perf record: where the CPU time moved', { skip: why, timeout: 120_000 }, (t) => {
  // 8 times the work in `work` (throughput about 0.4-0.5 of the base here; with 4 times, 0.53-0.66, and one fresh-clone CI run
  // under load settled it not regressed in 5 rounds).
  const dir = repo((v) => ({ 'bench.js': TIMED(v === 'base' ? 2 : 16), 'bench.sh': `#!/bin/sh\nexec "${process.execPath}" bench.js\n`, '.gitignore': '.benchbot/\n' }));
  const started = Date.now();
  const run = benchbot(dir, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--format', 'benchmark-js', '--max-load', '1000', '--no-store',
    '--min-runs', '5', '--max-runs', '5', '--output', 'json', '--export-markdown', join(dir, 'comment.md'));
  t.diagnostic(`run with its profile in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  const report = JSON.parse(run.stdout);
  // What the rounds decided, printed before the exit code is checked: a fresh-clone CI at load ~20 once saw this run exit 0.
  t.diagnostic(`verdicts: ${JSON.stringify(report.comparisons.map((c: { metric: string; verdict: string; ratio: number; ratio_ci: number[] }) => [c.metric, c.verdict, c.ratio, c.ratio_ci]))}`);
  assert.equal(run.status, 1, run.stderr);
  assert.equal(report.comparisons.find((c: { benchmark: string }) => c.benchmark === 'step')?.verdict, 'regressed');
  assert.equal(report.profiles.length, 1, JSON.stringify(report.profile_notes));
  const profile = report.profiles[0];
  t.diagnostic(`moved ${(profile.moved * 100).toFixed(1)}%; ${profile.self.slice(0, 3).map((f: { name: string; object: string; share: number; shareError: number; base: number; head: number }) => `${f.name} [${f.object}] ${(f.base * 100).toFixed(1)}->${(f.head * 100).toFixed(1)} ${(f.share * 100).toFixed(1)}% ±${(f.shareError * 100).toFixed(1)}`).join(', ')}`);
  assert.equal(profile.benchmark, 'step');
  assert.equal(profile.tool, 'perf');
  assert.equal(profile.scope, 'command');
  assert.ok(profile.moved > 0.05, `moved ${profile.moved}`);
  const into = profile.self.find((f: { noise: boolean; change: number }) => !f.noise && f.change > 0);
  assert.equal(into?.name, 'JS:work bench.js');
  assert.match(report.profile_notes.join('\n'), /benchmark-js runs its benchmarks in one process: the profile of step is of the whole bench command, sampled by perf record/);
  assert.match(readFileSync(join(dir, 'comment.md'), 'utf8'), /<details><summary>Where <code>step<\/code> changed: [\d.]+% of the CPU time moved between functions, [\d.]+% ±[\d.]+ of it into <code>JS:work bench\.js<\/code><\/summary>/);
});

test('benchbot profile --with perf of a Go benchmark: a fixed schedule through go test -exec, the slowed function first', { skip: why ?? (sh('command -v go') ? false : 'needs go (scripts/prepare-tests.sh installs golang-go)'), timeout: 120_000 }, (t) => {
  const module = fileURLToPath(new URL('../../fixtures/capture/callgrind/go/', import.meta.url));
  const files = Object.fromEntries(['go.mod', 'mix.go', 'mix_test.go', 'bench.sh'].map((f) => [f, readFileSync(join(module, f), 'utf8')]));
  const dir = repo((v) => ({ ...files, 'mix.go': v === 'base' ? files['mix.go'] : files['mix.go'].replace('i < 8', 'i < 10'), '.gitignore': '.benchbot/\n' }));
  const started = Date.now();
  const run = benchbot(dir, 'profile', '--with', 'perf', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--benchmark', 'BenchmarkMix', '--output', 'json');
  t.diagnostic(`profiled both sides in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  assert.equal(run.status, 0, run.stderr);
  const diff = JSON.parse(run.stdout);
  const first = diff.self.find((f: { noise: boolean }) => !f.noise);
  t.diagnostic(`samples ${diff.base.samples} / ${diff.head.samples} over ${diff.base.iterations} / ${diff.head.iterations} iterations; ${first?.name} ${(first?.share * 100).toFixed(1)}% ±${(first?.shareError * 100).toFixed(1)}`);
  assert.equal(diff.tool, 'perf');
  assert.equal(diff.base.iterations, diff.head.iterations, 'one fixed schedule on both sides');
  assert.equal(first?.name, 'example.com/mix.Mix');
  assert.ok(first.share >= 0.5, `share ${first.share}`);
  // The testing package's frames above the benchmark are cut: not ranked, not the benchmark.
  assert.ok(!diff.self.some((f: { name: string }) => f.name.startsWith('testing.')), JSON.stringify(diff.self.map((f: { name: string }) => f.name)));
});
