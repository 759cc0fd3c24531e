import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { countInstructions, COUNT_VARIATION_LIMIT, type CountOutcome, type CountSettings } from '../../src/runner/valgrind-count.ts';
import { LocalExecutor } from '../../src/runner/local-executor.ts';
import { parseCallgrindTotals } from '../../src/formats/callgrind-totals.ts';
import { buildCountedProject, goEnv, makeCountedRepo, toolchainMissing, writeCountedProject, type CountedKind } from '../support/counted-projects.ts';
import { measureInterleaved } from '../../src/runner/measure-commit.ts';
import { createProgress } from '../../src/runner/progress.ts';
import { compileNameFilter } from '../../src/compare/name-filter.ts';

// Instruction counting with the real tools: valgrind over a real Google
// Benchmark program and a real Go package, each built twice (as is, and with
// a second pass injected into one benchmark). Two repeats per build; the
// schedules are small, since valgrind runs code some 50 times slower.

const work = mkdtempSync(join(tmpdir(), 'benchbot-count-'));
test.after(() => rmSync(work, { recursive: true, force: true }));

const NAMES: Record<CountedKind, string[]> = { 'google-benchmark': ['BM_Sum', 'BM_Hash/256'], go: ['BenchmarkSum', 'BenchmarkHash'] };
const SUM: Record<CountedKind, string> = { 'google-benchmark': 'BM_Sum', go: 'BenchmarkSum' };

async function count(kind: CountedKind, dir: string, tag: string, extra: Partial<CountSettings> = {}): Promise<CountOutcome> {
  const settings: CountSettings = { bench: './bench.sh', format: kind, names: NAMES[kind], repeats: 2, parallel: 2, timeoutMs: 110_000, keepDir: join(work, `keep-${kind}-${tag}`), env: kind === 'go' ? { GOPROXY: 'off', GOTOOLCHAIN: 'local' } : {}, ...extra };
  return countInstructions(settings, new LocalExecutor(), dir, tag);
}

const values = (o: CountOutcome, benchmark: string, metric = 'instructions') => o.measurements.find((m) => m.benchmark === benchmark && m.metric === metric)?.values;

for (const kind of ['google-benchmark', 'go'] as const) {
  test(`${kind}: counts repeat, and an injected loop raises only its benchmark's count`, { timeout: 120_000 }, async (t) => {
    const missing = toolchainMissing(kind);
    if (missing) {
      t.skip(`${missing}: instruction counting cannot be tested here`);
      return;
    }
    const base = join(work, `${kind}-base`);
    const head = join(work, `${kind}-head`);
    writeCountedProject(base, kind);
    writeCountedProject(head, kind, { extraLoop: true });
    buildCountedProject(base);
    buildCountedProject(head);
    const started = Date.now();
    const before = await count(kind, base, 'base');
    const after = await count(kind, head, 'head');
    t.diagnostic(`${kind}: counted ${NAMES[kind].length} benchmarks x 2 repeats x 2 builds in ${((Date.now() - started) / 1000).toFixed(1)} s`);
    assert.deepEqual(before.reasons, []);
    assert.deepEqual(after.reasons, []);
    for (const outcome of [before, after]) {
      for (const benchmark of NAMES[kind]) {
        const [a, b] = values(outcome, benchmark) ?? [];
        assert.ok(a > 0 && b > 0, `${benchmark} was counted: ${a}, ${b}`);
        // C++ repeats exactly; Go within the runtime's own scheduling (COUNT_VARIATION_LIMIT says how much).
        if (kind === 'google-benchmark') assert.equal(a, b, `${benchmark} repeats exactly`);
        else assert.ok(Math.abs(a / b - 1) <= COUNT_VARIATION_LIMIT, `${benchmark}: ${a} vs ${b}`);
        const cycles = values(outcome, benchmark, 'estimated_cycles') ?? [];
        assert.ok(cycles[0] >= a, `estimated cycles (${cycles[0]}) are at least the instructions (${a})`);
      }
    }
    const mean = (xs: number[] | undefined) => (xs ?? []).reduce((s, x) => s + x, 0) / (xs?.length ?? 1);
    const sum = mean(values(after, SUM[kind])) / mean(values(before, SUM[kind]));
    assert.ok(sum > 1.2, `the extra pass in ${SUM[kind]} raised its count: x${sum.toFixed(3)}`);
    for (const benchmark of NAMES[kind].filter((n) => n !== SUM[kind])) {
      const ratio = mean(values(after, benchmark)) / mean(values(before, benchmark));
      assert.ok(Math.abs(ratio - 1) < 0.005, `${benchmark} did not change: x${ratio.toFixed(4)}`);
    }
    // Every kept profile is a callgrind file whose totals, divided by its iterations, are the value recorded.
    assert.equal(before.profiles.length, NAMES[kind].length * 2);
    for (const p of before.profiles) {
      assert.ok(existsSync(p.file), p.file);
      const totals = parseCallgrindTotals(readFileSync(p.file, 'utf8'), p.file);
      assert.equal(totals.Ir / p.iterations, values(before, p.benchmark)?.[p.repeat - 1]);
    }
  });
}

test('a Google Benchmark fixture is counted in the function BENCHMARK_F makes; a pipeline gets the flags through the environment', { timeout: 110_000 }, async (t) => {
  const missing = toolchainMissing('google-benchmark');
  if (missing) {
    t.skip(`${missing}: instruction counting cannot be tested here`);
    return;
  }
  const dir = join(work, 'google-benchmark-base');
  // The first test built it; alone, this one builds it.
  if (!existsSync(join(dir, 'bench'))) {
    writeCountedProject(dir, 'google-benchmark');
    buildCountedProject(dir);
  }
  // Table/Scan's function is Table_Scan_Benchmark::BenchmarkCase; `*::Table(*` also toggles the fixture's constructor, which is not it.
  const outcome = await count('google-benchmark', dir, 'fixture', { names: ['Table/Scan', 'BM_Hash/256'] });
  assert.deepEqual(outcome.reasons, []);
  const [a, b] = values(outcome, 'Table/Scan') ?? [];
  assert.equal(a, b, 'the fixture repeats exactly');
  // 128 additions and the loop around them: more than 128 instructions, fewer than BM_Hash's 256 multiply-xor rounds.
  assert.ok(a > 128 && a < (values(outcome, 'BM_Hash/256')?.[0] ?? 0), `Table/Scan ${a}`);

  // A pipeline's last word (cat) refuses the appended flags: the environment alone selects and schedules the benchmark, the same count.
  const piped = await count('google-benchmark', dir, 'piped', { bench: './bench --benchmark_format=json | cat', names: ['BM_Hash/256'], repeats: 1 });
  assert.deepEqual(piped.reasons, []);
  assert.equal(values(piped, 'BM_Hash/256')?.[0], values(outcome, 'BM_Hash/256')?.[0]);
});

test('a harness without a fixed schedule, or a machine without valgrind, gets one reason line and no counts', async () => {
  // hyperfine times whole commands (a JIT harness's line says why its counts cannot repeat: valgrind-count-pytest.test.ts).
  const jmh = await count('google-benchmark', work, 'hyperfine', { format: 'hyperfine' });
  assert.deepEqual(jmh.measurements, []);
  assert.equal(jmh.reasons.length, 1);
  assert.match(jmh.reasons[0].message, /^--instructions: hyperfine has no iteration schedule benchbot can fix.*wall time as before$/);

  // A PATH with a shell and nothing else: valgrind is not there.
  const bin = join(work, 'bin-without-valgrind');
  mkdirSync(bin, { recursive: true });
  symlinkSync('/bin/sh', join(bin, 'sh'));
  const without = await count('google-benchmark', work, 'no-valgrind', { env: { PATH: bin } });
  assert.deepEqual(without.measurements, []);
  assert.deepEqual(without.reasons.map((r) => r.message), ['--instructions: valgrind is not installed where the benchmarks run (Debian: apt-get install valgrind); instructions not counted, wall time as before']);

  const none = await count('google-benchmark', work, 'filtered', { filter: compileNameFilter('^BM_Nothing') });
  assert.deepEqual(none.reasons.map((r) => r.message), ['--instructions-filter "^BM_Nothing" matches none of the 2 benchmark(s) measured; nothing counted']);
});

test('a Go sub-benchmark is counted in its closure; one nested deeper gets a reason', { timeout: 110_000 }, async (t) => {
  const missing = toolchainMissing('go');
  if (missing) {
    t.skip(`${missing}: instruction counting cannot be tested here`);
    return;
  }
  const dir = join(work, 'go-sub');
  writeCountedProject(dir, 'go');
  const outcome = await count('go', dir, 'sub', { names: ['BenchmarkSizes/n=64', 'BenchmarkSizes/n=512', 'BenchmarkSizes/n=64/deeper'], repeats: 1, env: goEnvStrings() });
  const [small] = values(outcome, 'BenchmarkSizes/n=64') ?? [];
  const [large] = values(outcome, 'BenchmarkSizes/n=512') ?? [];
  // Eight times the elements summed: the per-iteration counts say so (the loop's own overhead aside).
  assert.ok(large / small > 5 && large / small < 9, `n=512 ${large} vs n=64 ${small}`);
  assert.deepEqual(outcome.reasons.map((r) => r.benchmark), ['BenchmarkSizes/n=64/deeper']);
  assert.match(outcome.reasons[0].message, /is a sub-benchmark of a sub-benchmark/);
});

function goEnvStrings(): Record<string, string> {
  const env = goEnv();
  return { GOPROXY: env.GOPROXY ?? 'off', GOTOOLCHAIN: env.GOTOOLCHAIN ?? 'local' };
}

test('bisect sessions count too: measureInterleaved adds each arm\'s counts under its benchmarks\' names', { timeout: 120_000 }, async (t) => {
  const missing = toolchainMissing('google-benchmark');
  if (missing) {
    t.skip(`${missing}: instruction counting cannot be tested here`);
    return;
  }
  const repo = makeCountedRepo('google-benchmark');
  t.after(() => rmSync(repo.dir, { recursive: true, force: true }));
  const progress = createProgress();
  const outcome = await measureInterleaved(repo.dir, [{ label: 'good', sha: repo.baseSha }, { label: 'bad', sha: repo.headSha }], join(repo.dir, '.benchbot'), {
    bench: './bench.sh', build: './build.sh', rounds: 1, warmup: 0, roundTimeoutMs: 60_000, buildTimeoutMs: 110_000, instructions: { repeats: 1, filter: compileNameFilter('^BM_Sum$') },
  }, { executor: new LocalExecutor(), progress });
  if (outcome.skip !== undefined) assert.fail(`skipped: ${outcome.skip}`);
  const sum = (label: string) => outcome.arms[label].find((m) => m.benchmark === 'BM_Sum' && m.metric === 'instructions')?.values ?? [];
  assert.equal(sum('good').length, 1, 'one count per arm');
  assert.ok(sum('bad')[0] > 1.2 * sum('good')[0], `bad ${sum('bad')} vs good ${sum('good')}`);
  assert.ok(!outcome.arms.good.some((m) => m.benchmark === 'BM_Hash/256' && m.metric === 'instructions'), 'the filter left BM_Hash uncounted');
  assert.ok(outcome.arms.good.some((m) => m.benchmark === 'BM_Hash/256' && m.metric === 'real_time'), 'and timed');
  assert.equal(outcome.profiles?.bad.length, 1);
  assert.ok(existsSync(outcome.profiles!.bad[0].file));
});

test('--format command counts the whole command once per repeat, every process it starts included', { timeout: 60_000 }, async (t) => {
  if (toolchainMissing('google-benchmark')?.startsWith('valgrind')) {
    t.skip('valgrind is not installed: instruction counting cannot be tested here');
    return;
  }
  const loop = (n: number) => `i=0; while [ $i -lt ${n} ]; do i=$((i+1)); done; /bin/true`;
  const small = await count('google-benchmark', work, 'cmd-small', { format: 'command', bench: loop(2000), names: [] });
  const large = await count('google-benchmark', work, 'cmd-large', { format: 'command', bench: loop(4000), names: [] });
  assert.deepEqual([...small.reasons, ...large.reasons], []);
  const [a, b] = values(small, 'command') ?? [];
  const [c] = values(large, 'command') ?? [];
  t.diagnostic(`2000 shell iterations: ${a}, ${b}; 4000: ${c}`);
  assert.ok(Math.abs(a / b - 1) < 0.001, `the whole command repeats: ${a} vs ${b}`);
  assert.ok(c > 1.3 * a, `twice the loop costs more: ${c} vs ${a}`);
  assert.equal(small.profiles[0].iterations, 1);
});

test('Go benchmarks of several packages are told apart by their import path, as the reader names them', { timeout: 110_000 }, async (t) => {
  const missing = toolchainMissing('go');
  if (missing) {
    t.skip(`${missing}: instruction counting cannot be tested here`);
    return;
  }
  // Two packages with a BenchmarkSum each; b's has the second pass.
  const dir = join(work, 'go-two-packages');
  writeCountedProject(join(dir, 'a'), 'go');
  writeCountedProject(join(dir, 'b'), 'go', { extraLoop: true });
  for (const p of ['a', 'b']) rmSync(join(dir, p, 'go.mod'));
  writeFileSync(join(dir, 'go.mod'), 'module example.com/counted\n\ngo 1.24\n');
  writeFileSync(join(dir, 'bench.sh'), '#!/bin/sh\nexec go test -run "^$" -bench . -benchtime 2000x ./...\n');
  chmodSync(join(dir, 'bench.sh'), 0o755);
  const names = ['example.com/counted/a.BenchmarkSum', 'example.com/counted/b.BenchmarkSum'];
  const outcome = await count('go', dir, 'packages', { names, repeats: 1, env: goEnvStrings() });
  assert.deepEqual(outcome.reasons, []);
  const [a] = values(outcome, names[0]) ?? [];
  const [b] = values(outcome, names[1]) ?? [];
  assert.ok(b > 1.2 * a, `b's BenchmarkSum (${b}) has the second pass, a's (${a}) not`);
  assert.ok(a > 512, `a's counts its own 512 additions: ${a}`);
});
