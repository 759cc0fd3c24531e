import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Tiny real benchmark projects for instruction counting (valgrind-count.ts):
// a Google Benchmark C++ program (two functions and a fixture) and a Go
// package (two functions and a sub-benchmark), each with benchmarks
// of real (if small) work. `extraLoop` adds a second pass over the data to
// one benchmark only (BM_Sum, BenchmarkSum), the injected change a count
// must see in that benchmark and nowhere else.

/** CountedKind is the harness of a generated project. */
export type CountedKind = 'google-benchmark' | 'go';

const GBENCH = (extra: boolean) => `#include <benchmark/benchmark.h>
#include <cstdint>
#include <vector>

static void BM_Sum(benchmark::State& state) {
  std::vector<std::int64_t> v(512);
  for (std::size_t i = 0; i < v.size(); i++) v[i] = static_cast<std::int64_t>(i * 7 % 13);
  for (auto _ : state) {
    std::int64_t s = 0;
    for (auto x : v) s += x;
${extra ? '    for (auto x : v) s ^= x * 3;\n' : ''}    benchmark::DoNotOptimize(s);
  }
}
BENCHMARK(BM_Sum);

static void BM_Hash(benchmark::State& state) {
  for (auto _ : state) {
    std::uint64_t h = 1469598103934665603ull;
    for (std::int64_t i = 0; i < state.range(0); i++) { h ^= static_cast<std::uint64_t>(i); h *= 1099511628211ull; }
    benchmark::DoNotOptimize(h);
  }
}
BENCHMARK(BM_Hash)->Arg(256);

class Table : public benchmark::Fixture {
 public:
  std::vector<std::int64_t> rows = std::vector<std::int64_t>(128, 5);
};
BENCHMARK_F(Table, Scan)(benchmark::State& state) {
  for (auto _ : state) {
    std::int64_t s = 0;
    for (auto x : rows) s += x;
    benchmark::DoNotOptimize(s);
  }
}

BENCHMARK_MAIN();
`;

const GO_SUM = (extra: boolean) => `package counted

// Sum adds the values${extra ? ', then mixes them once more' : ''}.
func Sum(xs []int) int {
\ts := 0
\tfor _, x := range xs {
\t\ts += x
\t}
${extra ? '\tfor _, x := range xs {\n\t\ts ^= x * 3\n\t}\n' : ''}\treturn s
}

// Hash is FNV-1a over n integers.
func Hash(n int) uint64 {
\th := uint64(1469598103934665603)
\tfor i := 0; i < n; i++ {
\t\th ^= uint64(i)
\t\th *= 1099511628211
\t}
\treturn h
}
`;

const GO_TEST = `package counted

import (\n\t"fmt"\n\t"testing"\n)

var sinkInt int
var sinkU64 uint64

func BenchmarkSum(b *testing.B) {
\txs := make([]int, 512)
\tfor i := range xs {
\t\txs[i] = i * 7 % 13
\t}
\tfor i := 0; i < b.N; i++ {
\t\tsinkInt += Sum(xs)
\t}
}

func BenchmarkHash(b *testing.B) {
\tfor b.Loop() {
\t\tsinkU64 += Hash(256)
\t}
}

func BenchmarkSizes(b *testing.B) {
\tfor _, n := range []int{64, 512} {
\t\tb.Run(fmt.Sprintf("n=%d", n), func(b *testing.B) {
\t\t\txs := make([]int, n)
\t\t\tfor i := 0; i < b.N; i++ {
\t\t\t\tsinkInt += Sum(xs)
\t\t\t}
\t\t})
\t}
}
`;

/** writeCountedProject writes a project of `kind` into dir (its build script, bench script and sources). */
export function writeCountedProject(dir: string, kind: CountedKind, options: { extraLoop?: boolean } = {}): void {
  mkdirSync(dir, { recursive: true });
  const extra = options.extraLoop === true;
  if (kind === 'google-benchmark') {
    writeFileSync(join(dir, 'bench.cc'), GBENCH(extra));
    writeFileSync(join(dir, 'build.sh'), '#!/bin/sh\nset -e\ng++ -O2 -g -o bench bench.cc -lbenchmark -lpthread\n');
    writeFileSync(join(dir, 'bench.sh'), '#!/bin/sh\nexec ./bench --benchmark_format=json --benchmark_min_time=0.01 "$@"\n');
  } else {
    writeFileSync(join(dir, 'go.mod'), 'module example.com/counted\n\ngo 1.24\n');
    writeFileSync(join(dir, 'counted.go'), GO_SUM(extra));
    writeFileSync(join(dir, 'counted_test.go'), GO_TEST);
    writeFileSync(join(dir, 'build.sh'), '#!/bin/sh\nset -e\ngo vet ./...\n');
    writeFileSync(join(dir, 'bench.sh'), '#!/bin/sh\nexec go test -run "^$" -bench . -benchtime 2000x .\n');
  }
  chmodSync(join(dir, 'build.sh'), 0o755);
  chmodSync(join(dir, 'bench.sh'), 0o755);
  writeFileSync(join(dir, '.gitignore'), 'bench\n.benchbot/\n.benchbot-*\n');
}

/** buildCountedProject runs the project's build script, failing the test with its output. */
export function buildCountedProject(dir: string): void {
  const built = spawnSync('./build.sh', { cwd: dir, encoding: 'utf8', env: goEnv() });
  if (built.status !== 0) throw new Error(`build.sh in ${dir} exited ${built.status}: ${built.stderr}`);
}

/** goEnv keeps Go's caches where the test machine has them and off the network. */
export function goEnv(): NodeJS.ProcessEnv {
  return { ...process.env, GOPROXY: 'off', GOTOOLCHAIN: 'local' };
}

/** toolchainMissing says which tool a kind needs and this machine lacks (a test prints it and skips), or undefined. */
export function toolchainMissing(kind: CountedKind): string | undefined {
  const need: [string, string[]][] = [['valgrind', ['--version']], kind === 'go' ? ['go', ['version']] : ['g++', ['--version']]];
  for (const [cmd, args] of need) {
    const r = spawnSync(cmd, args, { encoding: 'utf8' });
    if (r.error || r.status !== 0) return `${cmd} is not installed`;
  }
  if (kind === 'google-benchmark') {
    const header = spawnSync('g++', ['-x', 'c++', '-E', '-o', '/dev/null', '-'], { input: '#include <benchmark/benchmark.h>\n', encoding: 'utf8' });
    if (header.status !== 0) return 'Google Benchmark is not installed (Debian: libbenchmark-dev)';
  }
  return undefined;
}

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', '-c', 'commit.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
}

/** makeCountedRepo is a git repository of a `kind` project: tag `base`, and tag `head` with the extra loop in one benchmark. */
export function makeCountedRepo(kind: CountedKind): { dir: string; baseSha: string; headSha: string } {
  const dir = mkdtempSync(join(tmpdir(), `benchbot-counted-${kind}-`));
  execFileSync('git', ['init', '-q', '-b', 'main', dir]);
  writeCountedProject(dir, kind);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'tag', 'base');
  writeCountedProject(dir, kind, { extraLoop: true });
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'head: a second pass in Sum');
  git(dir, 'tag', 'head');
  return { dir, baseSha: git(dir, 'rev-parse', 'base'), headSha: git(dir, 'rev-parse', 'head') };
}
