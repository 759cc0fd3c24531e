// The benchmark suites that `npm run bench:instructions` measures: the same
// five pieces of real work (a quicksort, FNV-1a, a table CRC-32, a CSV
// parser, an open-addressing hash map) written for Google Benchmark (C++),
// Go's testing package and Rust's criterion, each generated into its own temp
// git repository with the commits the targets need:
//
//   base        the suite
//   aa          base plus a README change: an A/A pair with two SHAs
//   inject-N    base plus +1% of one benchmark's work inside ONE named
//               function: a counted loop, its length calibrated under
//               callgrind so it adds 1% of that benchmark's instructions
//   layout-N    base with only an unrelated padding function grown, which
//               moves every function after it and changes no work done
//
// Every work function is kept out of line (noinline, //go:noinline,
// #[inline(never)]) so callgrind and a differential profile can name it. The
// inputs come from a fixed linear congruential generator: the same bytes in
// every build and every process.
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Harness is a benchmark library the suite is written for. */
export type Harness = 'cpp' | 'go' | 'rust';
export const HARNESSES: readonly Harness[] = ['cpp', 'go', 'rust'];

/** WorkFunction is one injectable function and the benchmark that calls it once per iteration. */
export interface WorkFunction {
  /** name is how the function appears in a callgrind profile (demangled, without arguments). */
  symbol: string;
  /** pattern picks the function out of a callgrind profile's function names. */
  pattern: RegExp;
  /** benchmark is the benchmark name as benchbot stores it. */
  benchmark: string;
  /** id is the function's name in the source (used by the templates). */
  id: string;
  /**
   * benchmarkPattern picks the benchmark's own function out of a profile,
   * where benchbot toggles its count on (Google Benchmark, Go; criterion's
   * Bencher::iter, the loop the routine runs in).
   */
  benchmarkPattern?: RegExp;
}

/** Variant says what a commit changes against base: nothing, an injected loop, or padding bytes. */
export interface Variant {
  inject?: { id: string; iterations: number; where: 'entry' | 'exit' };
  paddingBytes?: number;
  readme?: string;
}

/** SuiteSpec is one harness's suite: how to build and run it, and its templates. */
export interface SuiteSpec {
  harness: Harness;
  /** label names the harness in reports. */
  label: string;
  functions: WorkFunction[];
  build: string;
  bench: string;
  /** resultFile is benchbot's --result-file, for harnesses that write results to files. */
  resultFile?: string;
  files: (variant: Variant) => Record<string, string>;
}

const IDS = ['quicksort', 'fnv1a', 'crc32', 'parse_csv', 'hashmap_roundtrip'] as const;

// ---------------------------------------------------------------- C++ (Google Benchmark)

function cppInject(variant: Variant, id: string, where: 'entry' | 'exit'): string {
  const inj = variant.inject;
  if (!inj || inj.id !== id || inj.where !== where) return '';
  // The asm statement ties the counter to a register each iteration, so the
  // compiler can neither drop nor fold the loop: a fixed cost per iteration.
  return `  for (unsigned long inject_i = 0; inject_i < ${inj.iterations}UL; ++inject_i) asm volatile("" : "+r"(inject_i));\n`;
}

function cppFiles(variant: Variant): Record<string, string> {
  const pad = variant.paddingBytes ?? 0;
  const work = `// work.cpp: the functions the benchmarks time, each kept out of line.
#include "work.h"

#include <cstring>

// layout_padding is never called on a benchmark's path; its size only moves
// the functions after it.
extern "C" __attribute__((used, noinline)) void layout_padding() {
  asm volatile(".rept ${pad}\\n\\tnop\\n\\t.endr");
}

namespace work {

static void insertion_sort(uint32_t* v, long lo, long hi) {
  for (long i = lo + 1; i <= hi; ++i) {
    uint32_t x = v[i];
    long j = i - 1;
    while (j >= lo && v[j] > x) { v[j + 1] = v[j]; --j; }
    v[j + 1] = x;
  }
}

static void quicksort_range(uint32_t* v, long lo, long hi) {
  while (hi - lo > 16) {
    uint32_t a = v[lo], b = v[(lo + hi) / 2], c = v[hi];
    uint32_t pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
    long i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot) ++i;
      while (v[j] > pivot) --j;
      if (i <= j) { uint32_t t = v[i]; v[i] = v[j]; v[j] = t; ++i; --j; }
    }
    if (j - lo < hi - i) { quicksort_range(v, lo, j); lo = i; } else { quicksort_range(v, i, hi); hi = j; }
  }
  insertion_sort(v, lo, hi);
}

__attribute__((noinline)) void quicksort(std::vector<uint32_t>& v) {
${cppInject(variant, 'quicksort', 'entry')}  if (!v.empty()) quicksort_range(v.data(), 0, static_cast<long>(v.size()) - 1);
${cppInject(variant, 'quicksort', 'exit')}}

__attribute__((noinline)) uint64_t fnv1a(const uint8_t* data, size_t n) {
${cppInject(variant, 'fnv1a', 'entry')}  uint64_t h = 14695981039346656037ULL;
  for (size_t i = 0; i < n; ++i) { h ^= data[i]; h *= 1099511628211ULL; }
${cppInject(variant, 'fnv1a', 'exit')}  return h;
}

static uint32_t crc_table[256];
static bool crc_ready = [] {
  for (uint32_t i = 0; i < 256; ++i) {
    uint32_t c = i;
    for (int k = 0; k < 8; ++k) c = (c & 1) ? 0xEDB88320u ^ (c >> 1) : c >> 1;
    crc_table[i] = c;
  }
  return true;
}();

__attribute__((noinline)) uint32_t crc32(const uint8_t* data, size_t n) {
${cppInject(variant, 'crc32', 'entry')}  uint32_t c = 0xFFFFFFFFu;
  for (size_t i = 0; i < n; ++i) c = crc_table[(c ^ data[i]) & 0xFF] ^ (c >> 8);
${cppInject(variant, 'crc32', 'exit')}  return c ^ 0xFFFFFFFFu;
}

__attribute__((noinline)) int64_t parse_csv(const std::string& text) {
${cppInject(variant, 'parse_csv', 'entry')}  int64_t sum = 0, value = 0;
  bool negative = false, in_number = false;
  for (char ch : text) {
    if (ch >= '0' && ch <= '9') { value = value * 10 + (ch - '0'); in_number = true; }
    else if (ch == '-') negative = true;
    else if (ch == ',' || ch == '\\n') {
      if (in_number) sum += negative ? -value : value;
      value = 0; negative = false; in_number = false;
    }
  }
  if (in_number) sum += negative ? -value : value;
${cppInject(variant, 'parse_csv', 'exit')}  return sum;
}

__attribute__((noinline)) size_t hashmap_roundtrip(const std::vector<uint64_t>& keys) {
${cppInject(variant, 'hashmap_roundtrip', 'entry')}  size_t cap = 1;
  while (cap < keys.size() * 2) cap <<= 1;
  std::vector<uint64_t> slots(cap, 0);
  std::vector<uint32_t> values(cap, 0);
  for (size_t i = 0; i < keys.size(); ++i) {
    uint64_t k = keys[i] | 1;
    size_t s = (k * 0x9E3779B97F4A7C15ULL) >> 40 & (cap - 1);
    while (slots[s] != 0 && slots[s] != k) s = (s + 1) & (cap - 1);
    slots[s] = k;
    values[s] = static_cast<uint32_t>(i);
  }
  size_t hits = 0;
  for (size_t i = 0; i < keys.size(); i += 2) {
    uint64_t k = (keys[i] ^ (i & 4)) | 1;
    size_t s = (k * 0x9E3779B97F4A7C15ULL) >> 40 & (cap - 1);
    while (slots[s] != 0) {
      if (slots[s] == k) { hits += values[s] & 1 ? 2 : 1; break; }
      s = (s + 1) & (cap - 1);
    }
  }
${cppInject(variant, 'hashmap_roundtrip', 'exit')}  return hits;
}

}  // namespace work
`;
  const header = `// work.h: the work the suite measures.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace work {
void quicksort(std::vector<uint32_t>& v);
uint64_t fnv1a(const uint8_t* data, size_t n);
uint32_t crc32(const uint8_t* data, size_t n);
int64_t parse_csv(const std::string& text);
size_t hashmap_roundtrip(const std::vector<uint64_t>& keys);
}  // namespace work
`;
  const main = `// main.cpp: one benchmark per work function; inputs from a fixed LCG.
#include <benchmark/benchmark.h>

#include "work.h"

namespace {
uint64_t lcg_state = 42;
uint32_t next() { lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL; return static_cast<uint32_t>(lcg_state >> 33); }

const std::vector<uint32_t>& sort_input() { static std::vector<uint32_t> v = [] { std::vector<uint32_t> r(4096); for (auto& x : r) x = next(); return r; }(); return v; }
const std::vector<uint8_t>& bytes() { static std::vector<uint8_t> v = [] { std::vector<uint8_t> r(16384); for (auto& x : r) x = static_cast<uint8_t>(next()); return r; }(); return v; }
const std::string& csv() {
  static std::string s = [] {
    std::string r;
    for (int i = 0; i < 2000; ++i) { if (i % 3 == 0) r += '-'; r += std::to_string(next() % 100000); r += (i % 10 == 9) ? '\\n' : ','; }
    return r;
  }();
  return s;
}
const std::vector<uint64_t>& keys() { static std::vector<uint64_t> v = [] { std::vector<uint64_t> r(1024); for (auto& x : r) x = (uint64_t(next()) << 32) | next(); return r; }(); return v; }
}  // namespace

static void BM_Sort(benchmark::State& state) {
  for (auto _ : state) { std::vector<uint32_t> v = sort_input(); work::quicksort(v); benchmark::DoNotOptimize(v.data()); }
}
BENCHMARK(BM_Sort);

static void BM_Fnv1a(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(work::fnv1a(bytes().data(), bytes().size()));
}
BENCHMARK(BM_Fnv1a);

static void BM_Crc32(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(work::crc32(bytes().data(), bytes().size()));
}
BENCHMARK(BM_Crc32);

static void BM_ParseCsv(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(work::parse_csv(csv()));
}
BENCHMARK(BM_ParseCsv);

static void BM_HashMap(benchmark::State& state) {
  for (auto _ : state) benchmark::DoNotOptimize(work::hashmap_roundtrip(keys()));
}
BENCHMARK(BM_HashMap);

BENCHMARK_MAIN();
`;
  return {
    'src/work.h': header,
    'src/work.cpp': work,
    'src/main.cpp': main,
    Makefile: `CXXFLAGS ?= -O2 -g -std=c++17 -Wall
LDLIBS = -lbenchmark -lpthread
bench: src/main.o src/work.o
\t$(CXX) $(CXXFLAGS) -o $@ src/main.o src/work.o $(LDLIBS)
src/%.o: src/%.cpp src/work.h
\t$(CXX) $(CXXFLAGS) -c -o $@ $<
`,
    'bench.sh': `#!/usr/bin/env bash
# Every benchmark once, Google Benchmark JSON on stdout; extra arguments go to ./bench.
set -euo pipefail
cd "$(dirname "$0")"
min_time=0.05
if ./bench --benchmark_min_time=0.05s --benchmark_list_tests >/dev/null 2>&1; then min_time=0.05s; fi
exec ./bench --benchmark_format=json --benchmark_min_time="$min_time" "$@"
`,
    '.gitignore': 'bench\n*.o\n.benchbot/\n',
    'README.md': `# work suite (C++)\n\n${variant.readme ?? 'Five benchmarks of real work.'}\n`,
  };
}

// ---------------------------------------------------------------- Go (testing)
// The Go inputs are an eighth of the C++ ones: benchbot counts Go at a fixed
// 1000 iterations per benchmark (the runtime's own work needs that many to
// average out), where Google Benchmark 1.7 runs one.

/** goInjectVar names the package variable that sets how many iterations one function's injected loop runs. */
function goInjectVar(id: string, where: 'entry' | 'exit'): string {
  return `inject${where === 'entry' ? 'Entry' : 'Exit'}${id.split('_').map((w) => w[0].toUpperCase() + w.slice(1)).join('')}`;
}

// Every Go work function carries its injection loops in every commit, bound by
// a package variable (0 at base): an injection changes only that variable's
// value, so the machine code of every function is the same byte for byte and
// the count changes by the loop's iterations alone. A loop written into the
// function only in the injected commit (as C++ and Rust do) moved the code
// after it, and Go's assembler pads jumps with NOPs so that none crosses a
// 32-byte boundary (cmd/internal/obj/x86 padJump, the Intel JCC erratum):
// other NOPs inside the hot loop then made Fnv1a +15.3% and Crc32 +12.1%
// for an injected 1%.
function goInject(_variant: Variant, id: string, where: 'entry' | 'exit'): string {
  // A store to a package variable per iteration: the compiler keeps every one.
  return `\tfor injectI := 0; injectI < ${goInjectVar(id, where)}; injectI++ {\n\t\tinjectSink += uint64(injectI)\n\t}\n`;
}

/** goInjectVars declares the loop bounds: the injected one set to its iterations, every other 0. */
function goInjectVars(variant: Variant): string {
  const inj = variant.inject;
  return IDS.flatMap((id) => (['entry', 'exit'] as const).map((where) => {
    const n = inj && inj.id === id && inj.where === where ? inj.iterations : 0;
    return `var ${goInjectVar(id, where)} = ${n}\n`;
  })).join('');
}

function goFiles(variant: Variant): Record<string, string> {
  const pad = variant.paddingBytes ?? 0;
  // Go has no inline nops: the padding function grows by statements, about 10 bytes each.
  const padStatements = Array.from({ length: Math.round(pad / 10) }, (_, i) => `\tpadSink = padSink*${i + 3} + ${i + 1}\n`).join('');
  return {
    'go.mod': 'module example.com/worksuite\n\ngo 1.22\n',
    // The file name sorts first, so the linker lays this function out before the work.
    'a_padding.go': `package worksuite

import "os"

var padSink uint64

// layoutPadding never runs (no process has a million arguments); its size only moves the functions after it.
//
//go:noinline
func layoutPadding() {
${padStatements}}

func init() {
\tif len(os.Args) > 1<<20 {
\t\tlayoutPadding()
\t}
}
`,
    'work.go': `// Package worksuite holds the work the benchmarks measure, each function kept out of line.
package worksuite

var injectSink uint64

// The injection loops' bounds (bench/instruction-suites.ts): variables, not constants, so the code is the same whatever their values.
${goInjectVars(variant)}
func insertionSort(v []uint32, lo, hi int) {
\tfor i := lo + 1; i <= hi; i++ {
\t\tx := v[i]
\t\tj := i - 1
\t\tfor j >= lo && v[j] > x {
\t\t\tv[j+1] = v[j]
\t\t\tj--
\t\t}
\t\tv[j+1] = x
\t}
}

func quicksortRange(v []uint32, lo, hi int) {
\tfor hi-lo > 16 {
\t\ta, b, c := v[lo], v[(lo+hi)/2], v[hi]
\t\tpivot := b
\t\tif (a < b) == (b < c) {
\t\t\tpivot = b
\t\t} else if (b < a) == (a < c) {
\t\t\tpivot = a
\t\t} else {
\t\t\tpivot = c
\t\t}
\t\ti, j := lo, hi
\t\tfor i <= j {
\t\t\tfor v[i] < pivot {
\t\t\t\ti++
\t\t\t}
\t\t\tfor v[j] > pivot {
\t\t\t\tj--
\t\t\t}
\t\t\tif i <= j {
\t\t\t\tv[i], v[j] = v[j], v[i]
\t\t\t\ti++
\t\t\t\tj--
\t\t\t}
\t\t}
\t\tif j-lo < hi-i {
\t\t\tquicksortRange(v, lo, j)
\t\t\tlo = i
\t\t} else {
\t\t\tquicksortRange(v, i, hi)
\t\t\thi = j
\t\t}
\t}
\tinsertionSort(v, lo, hi)
}

//go:noinline
func Quicksort(v []uint32) {
${goInject(variant, 'quicksort', 'entry')}\tif len(v) > 0 {
\t\tquicksortRange(v, 0, len(v)-1)
\t}
${goInject(variant, 'quicksort', 'exit')}}

//go:noinline
func Fnv1a(data []byte) uint64 {
${goInject(variant, 'fnv1a', 'entry')}\th := uint64(14695981039346656037)
\tfor _, b := range data {
\t\th ^= uint64(b)
\t\th *= 1099511628211
\t}
${goInject(variant, 'fnv1a', 'exit')}\treturn h
}

var crcTable = func() (t [256]uint32) {
\tfor i := range t {
\t\tc := uint32(i)
\t\tfor k := 0; k < 8; k++ {
\t\t\tif c&1 == 1 {
\t\t\t\tc = 0xEDB88320 ^ (c >> 1)
\t\t\t} else {
\t\t\t\tc >>= 1
\t\t\t}
\t\t}
\t\tt[i] = c
\t}
\treturn
}()

//go:noinline
func Crc32(data []byte) uint32 {
${goInject(variant, 'crc32', 'entry')}\tc := uint32(0xFFFFFFFF)
\tfor _, b := range data {
\t\tc = crcTable[byte(c)^b] ^ (c >> 8)
\t}
${goInject(variant, 'crc32', 'exit')}\treturn ^c
}

//go:noinline
func ParseCsv(text string) int64 {
${goInject(variant, 'parse_csv', 'entry')}\tvar sum, value int64
\tnegative, inNumber := false, false
\tfor i := 0; i < len(text); i++ {
\t\tch := text[i]
\t\tswitch {
\t\tcase ch >= '0' && ch <= '9':
\t\t\tvalue = value*10 + int64(ch-'0')
\t\t\tinNumber = true
\t\tcase ch == '-':
\t\t\tnegative = true
\t\tcase ch == ',' || ch == '\\n':
\t\t\tif inNumber {
\t\t\t\tif negative {
\t\t\t\t\tvalue = -value
\t\t\t\t}
\t\t\t\tsum += value
\t\t\t}
\t\t\tvalue, negative, inNumber = 0, false, false
\t\t}
\t}
\tif inNumber {
\t\tif negative {
\t\t\tvalue = -value
\t\t}
\t\tsum += value
\t}
${goInject(variant, 'parse_csv', 'exit')}\treturn sum
}

//go:noinline
func HashmapRoundtrip(keys []uint64) int {
${goInject(variant, 'hashmap_roundtrip', 'entry')}\tcapacity := 1
\tfor capacity < len(keys)*2 {
\t\tcapacity <<= 1
\t}
\tmask := uint64(capacity - 1)
\tslots := make([]uint64, capacity)
\tvalues := make([]uint32, capacity)
\tfor i, key := range keys {
\t\tk := key | 1
\t\ts := (k * 0x9E3779B97F4A7C15) >> 40 & mask
\t\tfor slots[s] != 0 && slots[s] != k {
\t\t\ts = (s + 1) & mask
\t\t}
\t\tslots[s] = k
\t\tvalues[s] = uint32(i)
\t}
\thits := 0
\tfor i := 0; i < len(keys); i += 2 {
\t\tk := (keys[i] ^ uint64(i&4)) | 1
\t\ts := (k * 0x9E3779B97F4A7C15) >> 40 & mask
\t\tfor slots[s] != 0 {
\t\t\tif slots[s] == k {
\t\t\t\tif values[s]&1 == 1 {
\t\t\t\t\thits += 2
\t\t\t\t} else {
\t\t\t\t\thits++
\t\t\t\t}
\t\t\t\tbreak
\t\t\t}
\t\t\ts = (s + 1) & mask
\t\t}
\t}
${goInject(variant, 'hashmap_roundtrip', 'exit')}\treturn hits
}
`,
    'work_test.go': `package worksuite

import (
\t"strconv"
\t"testing"
)

var lcgState uint64 = 42

func next() uint32 {
\tlcgState = lcgState*6364136223846793005 + 1442695040888963407
\treturn uint32(lcgState >> 33)
}

var (
\tsortInput = func() []uint32 { r := make([]uint32, 512); for i := range r { r[i] = next() }; return r }()
\tbyteInput = func() []byte { r := make([]byte, 2048); for i := range r { r[i] = byte(next()) }; return r }()
\tcsvInput  = func() string {
\t\tr := make([]byte, 0, 2000)
\t\tfor i := 0; i < 250; i++ {
\t\t\tif i%3 == 0 {
\t\t\t\tr = append(r, '-')
\t\t\t}
\t\t\tr = strconv.AppendUint(r, uint64(next()%100000), 10)
\t\t\tif i%10 == 9 {
\t\t\t\tr = append(r, '\\n')
\t\t\t} else {
\t\t\t\tr = append(r, ',')
\t\t\t}
\t\t}
\t\treturn string(r)
\t}()
\tkeyInput = func() []uint64 { r := make([]uint64, 256); for i := range r { r[i] = uint64(next())<<32 | uint64(next()) }; return r }()
\tsink     uint64
)

func BenchmarkSort(b *testing.B) {
\tv := make([]uint32, len(sortInput))
\tfor i := 0; i < b.N; i++ {
\t\tcopy(v, sortInput)
\t\tQuicksort(v)
\t}
}

func BenchmarkFnv1a(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\tsink += Fnv1a(byteInput)
\t}
}

func BenchmarkCrc32(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\tsink += uint64(Crc32(byteInput))
\t}
}

func BenchmarkParseCsv(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\tsink += uint64(ParseCsv(csvInput))
\t}
}

func BenchmarkHashMap(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\tsink += uint64(HashmapRoundtrip(keyInput))
\t}
}
`,
    // Through \`go test\`, as Go projects run their benchmarks: benchbot counts Go by adding -exec to it.
    'bench.sh': `#!/usr/bin/env bash
# Every benchmark once (50 ms each: a round is a sample, the rounds make the statistics), go test -bench text on stdout; extra arguments go to go test.
set -euo pipefail
cd "$(dirname "$0")"
exec go test -run='^$' -bench=. -benchtime=50ms -count=1 "$@"
`,
    '.gitignore': 'worksuite.test\n.benchbot/\n',
    'README.md': `# work suite (Go)\n\n${variant.readme ?? 'Five benchmarks of real work.'}\n`,
  };
}

// ---------------------------------------------------------------- Rust (criterion)

function rustInject(variant: Variant, id: string, where: 'entry' | 'exit'): string {
  const inj = variant.inject;
  if (!inj || inj.id !== id || inj.where !== where) return '';
  // black_box makes each iteration's value observable: the loop cannot be folded.
  return `    for inject_i in 0..${inj.iterations}u64 {\n        core::hint::black_box(inject_i);\n    }\n`;
}

function rustFiles(variant: Variant): Record<string, string> {
  const pad = variant.paddingBytes ?? 0;
  return {
    'Cargo.toml': `[package]
name = "worksuite"
version = "0.1.0"
edition = "2021"

[dev-dependencies]
criterion = { version = "0.7", default-features = false }

[[bench]]
name = "suite"
harness = false

[profile.release]
codegen-units = 1
`,
    'src/lib.rs': `//! The work the benchmarks measure, each function kept out of line.

/// layout_padding never runs on a benchmark's path; its size only moves the functions after it.
#[inline(never)]
pub fn layout_padding() {
    unsafe { core::arch::asm!(".rept ${pad}", "nop", ".endr") }
}

#[used]
static KEEP_PADDING: fn() = layout_padding;

fn insertion_sort(v: &mut [u32]) {
    for i in 1..v.len() {
        let x = v[i];
        let mut j = i;
        while j > 0 && v[j - 1] > x {
            v[j] = v[j - 1];
            j -= 1;
        }
        v[j] = x;
    }
}

fn quicksort_range(v: &mut [u32]) {
    let mut v = v;
    while v.len() > 17 {
        let (a, b, c) = (v[0], v[v.len() / 2], v[v.len() - 1]);
        let pivot = if (a < b) == (b < c) { b } else if (b < a) == (a < c) { a } else { c };
        let (mut i, mut j) = (0isize, v.len() as isize - 1);
        while i <= j {
            while v[i as usize] < pivot { i += 1; }
            while v[j as usize] > pivot { j -= 1; }
            if i <= j {
                v.swap(i as usize, j as usize);
                i += 1;
                j -= 1;
            }
        }
        let (left, right) = v.split_at_mut(i as usize);
        let left_len = (j + 1) as usize;
        if left_len < right.len() {
            quicksort_range(&mut left[..left_len]);
            v = right;
        } else {
            quicksort_range(right);
            v = &mut left[..left_len];
        }
    }
    insertion_sort(v);
}

#[inline(never)]
pub fn quicksort(v: &mut [u32]) {
${rustInject(variant, 'quicksort', 'entry')}    quicksort_range(v);
${rustInject(variant, 'quicksort', 'exit')}}

#[inline(never)]
pub fn fnv1a(data: &[u8]) -> u64 {
${rustInject(variant, 'fnv1a', 'entry')}    let mut h: u64 = 14695981039346656037;
    for &b in data {
        h ^= b as u64;
        h = h.wrapping_mul(1099511628211);
    }
${rustInject(variant, 'fnv1a', 'exit')}    h
}

const CRC_TABLE: [u32; 256] = {
    let mut t = [0u32; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u32;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { 0xEDB88320 ^ (c >> 1) } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
};

#[inline(never)]
pub fn crc32(data: &[u8]) -> u32 {
${rustInject(variant, 'crc32', 'entry')}    let mut c: u32 = 0xFFFFFFFF;
    for &b in data {
        c = CRC_TABLE[((c ^ b as u32) & 0xFF) as usize] ^ (c >> 8);
    }
${rustInject(variant, 'crc32', 'exit')}    !c
}

#[inline(never)]
pub fn parse_csv(text: &str) -> i64 {
${rustInject(variant, 'parse_csv', 'entry')}    let (mut sum, mut value) = (0i64, 0i64);
    let (mut negative, mut in_number) = (false, false);
    for &ch in text.as_bytes() {
        match ch {
            b'0'..=b'9' => {
                value = value * 10 + (ch - b'0') as i64;
                in_number = true;
            }
            b'-' => negative = true,
            b',' | b'\\n' => {
                if in_number {
                    sum += if negative { -value } else { value };
                }
                value = 0;
                negative = false;
                in_number = false;
            }
            _ => {}
        }
    }
    if in_number {
        sum += if negative { -value } else { value };
    }
${rustInject(variant, 'parse_csv', 'exit')}    sum
}

#[inline(never)]
pub fn hashmap_roundtrip(keys: &[u64]) -> usize {
${rustInject(variant, 'hashmap_roundtrip', 'entry')}    let mut cap = 1usize;
    while cap < keys.len() * 2 {
        cap <<= 1;
    }
    let mask = (cap - 1) as u64;
    let mut slots = vec![0u64; cap];
    let mut values = vec![0u32; cap];
    for (i, &key) in keys.iter().enumerate() {
        let k = key | 1;
        let mut s = (k.wrapping_mul(0x9E3779B97F4A7C15) >> 40) & mask;
        while slots[s as usize] != 0 && slots[s as usize] != k {
            s = (s + 1) & mask;
        }
        slots[s as usize] = k;
        values[s as usize] = i as u32;
    }
    let mut hits = 0;
    for i in (0..keys.len()).step_by(2) {
        let k = (keys[i] ^ (i as u64 & 4)) | 1;
        let mut s = (k.wrapping_mul(0x9E3779B97F4A7C15) >> 40) & mask;
        while slots[s as usize] != 0 {
            if slots[s as usize] == k {
                hits += if values[s as usize] & 1 == 1 { 2 } else { 1 };
                break;
            }
            s = (s + 1) & mask;
        }
    }
${rustInject(variant, 'hashmap_roundtrip', 'exit')}    hits
}
`,
    'benches/suite.rs': `use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

struct Lcg(u64);
impl Lcg {
    fn next(&mut self) -> u32 {
        self.0 = self.0.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
}

fn benches(c: &mut Criterion) {
    let mut lcg = Lcg(42);
    let sort_input: Vec<u32> = (0..4096).map(|_| lcg.next()).collect();
    let bytes: Vec<u8> = (0..16384).map(|_| lcg.next() as u8).collect();
    let mut csv = String::new();
    for i in 0..2000 {
        if i % 3 == 0 {
            csv.push('-');
        }
        csv.push_str(&(lcg.next() % 100000).to_string());
        csv.push(if i % 10 == 9 { '\\n' } else { ',' });
    }
    let keys: Vec<u64> = (0..1024).map(|_| ((lcg.next() as u64) << 32) | lcg.next() as u64).collect();

    c.bench_function("sort", |b| {
        let mut v = sort_input.clone();
        b.iter(|| {
            v.copy_from_slice(&sort_input);
            worksuite::quicksort(black_box(&mut v));
        })
    });
    c.bench_function("fnv1a", |b| b.iter(|| worksuite::fnv1a(black_box(&bytes))));
    c.bench_function("crc32", |b| b.iter(|| worksuite::crc32(black_box(&bytes))));
    c.bench_function("parse_csv", |b| b.iter(|| worksuite::parse_csv(black_box(&csv))));
    c.bench_function("hashmap", |b| b.iter(|| worksuite::hashmap_roundtrip(black_box(&keys))));
}

criterion_group! {
    name = suite;
    config = Criterion::default().warm_up_time(std::time::Duration::from_millis(200)).measurement_time(std::time::Duration::from_millis(500)).sample_size(10);
    targets = benches
}
criterion_main!(suite);
`,
    'build.sh': `#!/usr/bin/env bash
# Builds the criterion bench binary offline; the dependencies come prebuilt from
# BENCHBOT_CARGO_TARGET_SEED when set (one compile of criterion for every worktree).
set -euo pipefail
cd "$(dirname "$0")"
if [[ -n "\${BENCHBOT_CARGO_TARGET_SEED:-}" && ! -d target ]]; then cp -a "$BENCHBOT_CARGO_TARGET_SEED" target; fi
exe="$(cargo bench --offline --no-run --bench suite --message-format=json 2>/dev/null | sed -n 's/.*"executable":"\\([^"]*\\)".*/\\1/p' | tail -1)"
[[ -n "$exe" ]] || { echo "build.sh: cargo built no bench executable" >&2; exit 1; }
ln -sf "$exe" suite-bench
`,
    'bench.sh': `#!/usr/bin/env bash
# Every benchmark once through criterion; results in target/criterion; extra arguments go to the bench binary.
set -euo pipefail
cd "$(dirname "$0")"
exec ./suite-bench --bench "$@"
`,
    '.gitignore': 'target/\nsuite-bench\n.benchbot/\n',
    'README.md': `# work suite (Rust)\n\n${variant.readme ?? 'Five benchmarks of real work.'}\n`,
  };
}

// ---------------------------------------------------------------- specs

function fns(harness: Harness): WorkFunction[] {
  const names: Record<Harness, string[]> = {
    cpp: ['work::quicksort', 'work::fnv1a', 'work::crc32', 'work::parse_csv', 'work::hashmap_roundtrip'],
    go: ['worksuite.Quicksort', 'worksuite.Fnv1a', 'worksuite.Crc32', 'worksuite.ParseCsv', 'worksuite.HashmapRoundtrip'],
    rust: ['worksuite::quicksort', 'worksuite::fnv1a', 'worksuite::crc32', 'worksuite::parse_csv', 'worksuite::hashmap_roundtrip'],
  };
  const benchmarks: Record<Harness, string[]> = {
    cpp: ['BM_Sort', 'BM_Fnv1a', 'BM_Crc32', 'BM_ParseCsv', 'BM_HashMap'],
    go: ['BenchmarkSort', 'BenchmarkFnv1a', 'BenchmarkCrc32', 'BenchmarkParseCsv', 'BenchmarkHashMap'],
    rust: ['sort', 'fnv1a', 'crc32', 'parse_csv', 'hashmap'],
  };
  return IDS.map((id, i) => {
    const symbol = names[harness][i];
    const escaped = symbol.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    // Demangled names carry arguments (C++), a module path (Go) or a hash (Rust legacy mangling).
    const benchmark = benchmarks[harness][i];
    // criterion's benchmark is the timing loop its routine runs in (counted in --test mode, one iteration): only the selected benchmark runs.
    const benchmarkPattern = harness === 'cpp' ? new RegExp(`^${benchmark}\\(`) : harness === 'go' ? new RegExp(`(^|/)worksuite\\.${benchmark}$`) : /^criterion::bencher::Bencher<M>::iter$|^<criterion::bencher::Bencher<.*>>::iter::</;
    return { id, symbol, benchmark, pattern: new RegExp(`(^|[/ ])${escaped}($|[(<]|::h[0-9a-f]{16})`), ...(benchmarkPattern ? { benchmarkPattern } : {}) };
  });
}

export const SUITES: Record<Harness, SuiteSpec> = {
  cpp: { harness: 'cpp', label: 'C++ Google Benchmark', functions: fns('cpp'), build: 'make -s', bench: './bench.sh', files: cppFiles },
  go: {
    harness: 'go', label: 'Go testing', functions: fns('go'), build: 'go test -c -o worksuite.test .', bench: './bench.sh', files: goFiles,
  },
  rust: {
    harness: 'rust', label: 'Rust criterion', functions: fns('rust'), build: './build.sh', bench: './bench.sh', resultFile: 'target/criterion', files: rustFiles,
  },
};

// ---------------------------------------------------------------- repositories

const GIT_ENV = {
  ...process.env,
  GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', TZ: 'UTC',
  GIT_AUTHOR_NAME: 'Suite', GIT_AUTHOR_EMAIL: 'suite@worksuite.example', GIT_COMMITTER_NAME: 'Suite', GIT_COMMITTER_EMAIL: 'suite@worksuite.example',
  GIT_AUTHOR_DATE: '1709542800 +0000', GIT_COMMITTER_DATE: '1709542800 +0000',
};

export function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], { env: GIT_ENV, encoding: 'utf8' }).trim();
}

function writeFiles(dir: string, files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    const full = join(dir, path);
    mkdirSync(dirname(full), { recursive: true });
    writeFileSync(full, text, { mode: path.endsWith('.sh') ? 0o755 : 0o644 });
  }
}

/** initRepo makes a repository whose main branch is the suite's base commit, tagged `base`. */
export function initRepo(spec: SuiteSpec, dir: string): string {
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  execFileSync('git', ['-c', 'init.defaultBranch=main', 'init', '-q', '--template=', dir], { env: GIT_ENV });
  writeFiles(dir, spec.files({}));
  if (spec.harness === 'rust') copyCargoLock(dir);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base: the suite');
  git(dir, 'tag', 'base');
  return git(dir, 'rev-parse', 'HEAD');
}

/** addVariant commits `variant` on top of base as tag `tag` (main stays at base) and returns its SHA. */
export function addVariant(spec: SuiteSpec, dir: string, tag: string, variant: Variant): string {
  git(dir, 'checkout', '-q', '--detach', 'base');
  writeFiles(dir, spec.files(variant));
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '--allow-empty', '-m', tag);
  git(dir, 'tag', '-f', tag);
  const sha = git(dir, 'rev-parse', 'HEAD');
  git(dir, 'checkout', '-q', 'main');
  return sha;
}

// ---------------------------------------------------------------- building outside benchbot (calibration)

/** buildAt checks `tag` out into a scratch worktree and builds it there; returns the worktree. */
export function buildAt(spec: SuiteSpec, repo: string, tag: string, scratch: string): string {
  const dir = join(scratch, `${spec.harness}-${tag}`);
  if (!existsSync(dir)) git(repo, 'worktree', 'add', '-q', '--detach', dir, tag);
  const built = spawnSync('bash', ['-c', spec.build], { cwd: dir, encoding: 'utf8', env: buildEnv(), timeout: 900_000 });
  if (built.status !== 0) throw new Error(`${spec.label}: build of ${tag} failed: ${built.stderr.slice(-2000)}`);
  return dir;
}

let cargoSeed: string | undefined;

/**
 * cargoTargetSeed builds criterion once in a scratch crate (offline, from the
 * cargo cache; `cargo fetch` first when the cache lacks it) and returns its
 * target directory, which every Rust worktree copies before building.
 */
export function cargoTargetSeed(): string {
  if (cargoSeed) return cargoSeed;
  const dir = join(tmpdir(), 'benchbot-instr-cargo-seed');
  const target = join(dir, 'target');
  const files = rustFiles({});
  if (!existsSync(join(dir, 'ready'))) {
    rmSync(dir, { recursive: true, force: true });
    writeFiles(dir, files);
    const offline = spawnSync('cargo', ['bench', '--offline', '--no-run', '--bench', 'suite'], { cwd: dir, encoding: 'utf8', timeout: 900_000 });
    if (offline.status !== 0) {
      const online = spawnSync('cargo', ['bench', '--no-run', '--bench', 'suite'], { cwd: dir, encoding: 'utf8', timeout: 900_000 });
      if (online.status !== 0) throw new Error(`cargo could not build criterion 0.7 (offline or from crates.io): ${online.stderr.slice(-1500)}`);
    }
    writeFileSync(join(dir, 'ready'), '');
  }
  cargoSeed = target;
  return target;
}

function copyCargoLock(dir: string): void {
  const lock = join(dirname(cargoTargetSeed()), 'Cargo.lock');
  cpSync(lock, join(dir, 'Cargo.lock'));
}

/** buildEnv is the environment builds and runs of the suites get. */
export function buildEnv(): NodeJS.ProcessEnv {
  return { ...process.env, BENCHBOT_CARGO_TARGET_SEED: cargoSeed ?? '', GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' };
}

/** makeTempDir returns a fresh directory under the system temp dir. */
export function makeTempDir(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}
