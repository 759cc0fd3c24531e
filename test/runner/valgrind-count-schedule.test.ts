import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COUNT_BUDGET_SECONDS, countSchedule } from '../../src/runner/valgrind-count.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { goEnv, toolchainMissing } from '../support/counted-projects.ts';
import { spawnWithProgress } from '../support/spawn-with-progress.ts';

// The schedule of a counted run on benchmarks like a real library's
// (github.com/google/btree): slow ones get fewer iterations, chosen from the
// wall-time rounds and the same on both sides, and a benchmark whose data
// comes from math/rand seeded by the clock counts the same in every process.

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

const timed = (benchmark: string, metric: string, unit: string, values: number[]): Measurement => ({ benchmark, metric, unit, better: 'lower', values });

test('countSchedule cuts the iterations of benchmarks slower than the budget to a power of ten, from their wall time per iteration', () => {
  const schedule = countSchedule([
    timed('BenchmarkFast', 'time', 'ns/op', [150, 160]),
    timed('BenchmarkFast', 'B/op', 'B/op', [1e9]),
    timed('BenchmarkSlow', 'time', 'ns/op', [3e6, 2.9e6]),
    timed('BenchmarkMid', 'time', 'ns/op', [5e4]),
    // Google Benchmark: real_time decides, not the cpu_time beside it (a benchmark that waits).
    timed('BM_Copy', 'real_time', 'us', [300]),
    timed('BM_Copy', 'cpu_time', 'us', [3]),
    timed('BM_Counter', 'items_per_second', '1/s', [5]),
  ], 1000);
  assert.deepEqual(schedule, { BenchmarkSlow: 1, BenchmarkMid: 100, BM_Copy: 10 });
  // Whatever the order the sides' rounds come in, the schedule is the same.
  const sides = [timed('BenchmarkMid', 'time', 'ns/op', [4e4, 4.2e4]), timed('BenchmarkMid', 'time', 'ns/op', [9e4, 8e4, 8.5e4])];
  assert.deepEqual(countSchedule(sides, 1000), countSchedule([...sides].reverse(), 1000));
  // The budget is what the cut is measured against: a benchmark exactly at a tenth of it per iteration keeps 10.
  assert.deepEqual(countSchedule([timed('B', 'time', 's/op', [COUNT_BUDGET_SECONDS / 10.5])], 1000), { B: 10 });
  assert.deepEqual(countSchedule([timed('B', 'time', 'ns/op', [1])], 100), {});
});

const GO_TEST = `package slow

import (
\t"math/rand"
\t"os"
\t"strconv"
\t"testing"
\t"time"
)

// As google/btree's tests do: a clock seed for math/rand's global source.
func init() { rand.Seed(time.Now().UnixNano()) }

var sink int

// BenchmarkSortRandom insertion-sorts a random permutation: its work (the swaps) depends on the data.
func BenchmarkSortRandom(b *testing.B) {
\tdata := rand.Perm(100)
\tbuf := make([]int, len(data))
\tfor i := 0; i < b.N; i++ {
\t\tcopy(buf, data)
\t\tfor j := 1; j < len(buf); j++ {
\t\t\tfor k := j; k > 0 && buf[k-1] > buf[k]; k-- {
\t\t\t\tbuf[k-1], buf[k] = buf[k], buf[k-1]
\t\t\t}
\t\t}
\t\tsink += buf[0]
\t}
}

// BenchmarkVaries does more work in every process that runs it (a counter in
// a file, as a source seeded by the clock varies it but without the chance of
// two processes drawing close data): no setting can fix it, so it is dropped with a reason.
var processNumber = func() int {
	path := os.Getenv("VARIES_COUNTER")
	raw, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(string(raw))
	n++
	_ = os.WriteFile(path, []byte(strconv.Itoa(n)), 0o644)
	return n
}()

func BenchmarkVaries(b *testing.B) {
	for i := 0; i < b.N; i++ {
		h := uint64(i)
		for j := 0; j < 200*processNumber; j++ {
			h = h*6364136223846793005 + uint64(j)
		}
		sink += int(h)
	}
}

// BenchmarkSlow takes milliseconds per iteration: 1000 of them under valgrind would take minutes.
func BenchmarkSlow(b *testing.B) {
\tfor i := 0; i < b.N; i++ {
\t\th := uint64(i)
\t\tfor j := 0; j < 4000000; j++ {
\t\t\th = h*6364136223846793005 + uint64(j)
\t\t}
\t\tsink += int(h)
\t}
}
`;

test('run --instructions on a Go library like google/btree: the slow benchmark is counted at fewer iterations on both sides, the clock-seeded one is counted (its data the same in every process), the A/A finds no change, and the report says why a benchmark whose work differs in every process was not counted', { timeout: 120_000 }, async (t) => {
  const missing = toolchainMissing('go');
  if (missing) {
    t.skip(`${missing}: instruction counting cannot be tested here`);
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-schedule-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  // go 1.18 as btree's go.mod says: rand.Seed still seeds the global source there.
  writeFileSync(join(dir, 'go.mod'), 'module example.com/slow\n\ngo 1.18\n');
  writeFileSync(join(dir, 'slow_test.go'), GO_TEST);
  writeFileSync(join(dir, 'bench.sh'), '#!/bin/sh\nexec go test -run "^$" -bench . -benchtime 20ms .\n');
  chmodSync(join(dir, 'bench.sh'), 0o755);
  writeFileSync(join(dir, '.gitignore'), '.benchbot/\n');
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.com', ...args], { cwd: dir, encoding: 'utf8' });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
  };
  git('init', '-q', '-b', 'main');
  git('add', '-A');
  git('commit', '-q', '-m', 'base');
  git('tag', 'base');
  writeFileSync(join(dir, 'README.md'), 'A/A: only this file changes.\n');
  git('add', 'README.md');
  git('commit', '-q', '-m', 'readme');
  git('tag', 'head');

  const env = { ...goEnv(), BENCHBOT_LOCK: join(dir, 'machine.lock'), GITHUB_ACTIONS: '', VARIES_COUNTER: join(dir, 'varies-counter') };
  const run = await spawnWithProgress(process.execPath, [
    BIN, 'run', '--base', 'base', '--head', 'head', '--bench', './bench.sh', '--build', 'go vet .',
    '--min-runs', '3', '--max-runs', '3', '--warmup', '0', '--max-load', '1000', '--no-store', '--round-timeout', '90',
    '--instructions', '--instructions-repeats', '2', '--output', 'json',
  ], { label: 'run --instructions (Go, clock seed, slow benchmark)', cwd: dir, env, timeoutMs: 115_000 });
  assert.ok(run.status === 0 || run.status === 1, `run exited ${run.status}: ${run.stderr.slice(-2000)}`);
  assert.match(run.stderr, /1 slow benchmark\(s\) counted with fewer iterations than 1000, on both sides: BenchmarkSlow(-\d+)? 1x/);

  const json = JSON.parse(run.stdout) as { comparisons: { benchmark: string; metric: string; verdict: string; spread?: { base: number; head: number } }[]; warnings: string[] };
  const row = (name: string) => json.comparisons.find((c) => c.benchmark.replace(/-\d+$/, '') === name && c.metric === 'instructions');
  const slow = row('BenchmarkSlow');
  assert.ok(slow !== undefined, `BenchmarkSlow was counted: ${json.warnings.join(' | ')}`);
  assert.equal(slow.verdict, 'unchanged');
  const sorted = row('BenchmarkSortRandom');
  assert.ok(sorted !== undefined, `BenchmarkSortRandom was counted: ${json.warnings.join(' | ')}`);
  // A different permutation in each process moved the sort's count by several percent (a different number of swaps), and the runner dropped it (spread > 1%);
  // the same data repeats but for what Go's scheduler adds (valgrind-count.ts).
  t.diagnostic(`BenchmarkSortRandom: ${sorted.verdict}, spread between repeats: base ${sorted.spread?.base}, head ${sorted.spread?.head}`);
  assert.equal(sorted.verdict, 'unchanged');
  // Different data moved it 5-10%; the same data leaves what callgrind's toggle loses at Go's stack switches (0-0.1% here).
  assert.ok(Math.max(sorted.spread?.base ?? 1, sorted.spread?.head ?? 1) < 0.005, `the sort's counts repeat: ${JSON.stringify(sorted.spread)}`);
  // What could not be counted is in the report, not only in the progress: which benchmark and why.
  assert.equal(row('BenchmarkVaries'), undefined, 'work that differs in every process varies the count');
  assert.ok(json.warnings.some((w) => /BenchmarkVaries.*--instructions: the count varies between repeats/.test(w)), `the report says why BenchmarkVaries was not counted: ${JSON.stringify(json.warnings)}`);
});
