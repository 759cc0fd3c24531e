// The parts of `npm run bench:instructions` on code nobody here wrote: the
// demo repository's merge #14 (cost of a counted run, the Done criterion),
// a real Go library's own benchmarks A/A (github.com/google/btree from the
// Go module proxy), a real Python library's pytest-benchmark suite A/A
// (pint, from PyPI), and whether a CPython process counts the same twice
// with and without a fixed hash seed (`--format command`).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDemoRepo } from './demo-verdicts.ts';
import { type JsonRow, type RunOutcome, runBenchbot } from './instructions.ts';
import { defaultCountRepeats } from '../src/runner/valgrind-count.ts';
import { git, type SuiteSpec } from './instruction-suites.ts';

/** RealPart is one section of the report and its targets. */
export interface RealPart {
  label: string;
  lines: string[];
  targets: { name: string; met: boolean | null; detail: string }[];
}

const secs = (ms: number) => `${(ms / 1000).toFixed(0)} s`;
const pct = (x: number | null | undefined, digits = 2) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(digits)}%`);
const COUNTED = ['--instructions', '--instructions-repeats', '3', '--min-runs', '3', '--max-runs', '3', '--warmup', '0'];

function rowsOf(rows: readonly JsonRow[], metric: string): JsonRow[] {
  return rows.filter((r) => r.metric === metric);
}

/** countedSeconds reads the runner's "counted in X s" lines (one per side) from a run's progress. */
export function countedSeconds(stderr: string): number[] {
  return [...stderr.matchAll(/counted in (\d+(?:\.\d+)?) s/g)].map((m) => Number(m[1]));
}

function plainRepo(dir: string, files: Record<string, string>, from?: string): void {
  mkdirSync(dir, { recursive: true });
  if (from) cpSync(from, dir, { recursive: true });
  for (const [p, text] of Object.entries(files)) {
    mkdirSync(join(dir, p, '..'), { recursive: true });
    writeFileSync(join(dir, p), text, { mode: p.endsWith('.sh') ? 0o755 : 0o644 });
  }
  const chmod = (d: string) => {
    chmodSync(d, 0o755);
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.isDirectory()) chmod(join(d, e.name));
      else if (!e.name.endsWith('.sh')) chmodSync(join(d, e.name), 0o644);
    }
  };
  chmod(dir);
  execFileSync('git', ['-c', 'init.defaultBranch=main', 'init', '-q', '--template=', dir]);
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'base');
  git(dir, 'tag', 'base');
  writeFileSync(join(dir, 'BENCHBOT-AA.md'), 'A/A: this commit changes only this file.\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'aa: a file nobody reads');
  git(dir, 'tag', 'aa');
}

function spec(label: string, build: string, bench: string, resultFile?: string): SuiteSpec {
  return { harness: 'go', label, functions: [], build, bench, files: () => ({}), ...(resultFile ? { resultFile } : {}) };
}

/** benchDemo: merge #14 of the demo repository counted, the cost of both sides, and where. */
export function benchDemo(work: string, log: (line: string) => void): RealPart {
  const repo = makeDemoRepo();
  const s = spec('demo (C++ Google Benchmark)', 'make -s', './bench.sh');
  const o = runBenchbot({ spec: s, repo, base: 'demo-base', head: 'demo-head' }, COUNTED, work);
  const counted = countedSeconds(o.stderr);
  const instr = rowsOf(o.rows, 'instructions');
  const slowed = instr.find((r) => r.benchmark.startsWith('BM_RecordHash'));
  const others = instr.filter((r) => !r.benchmark.startsWith('BM_RecordHash') && (r.verdict === 'regressed' || r.verdict === 'improved'));
  const profile = o.profiles.find((p) => p.benchmark.startsWith('BM_RecordHash'));
  const first = profile?.self[0];
  const total = counted.reduce((a, b) => a + b, 0);
  log(`demo: BM_RecordHash instructions ${slowed?.verdict} ${pct(slowed?.ratio ? slowed.ratio - 1 : null)}, counting ${counted.join(' + ')} s, where ${first?.name}`);
  const wall = runBenchbot({ spec: s, repo, base: 'demo-base', head: 'demo-head' }, ['--min-runs', '3', '--max-runs', '3', '--warmup', '0'], work);
  const rounds = 3;
  const lines = [
    '### The demo repository (merge #14, BM_RecordHash ~10% slower)',
    '',
    `\`benchbot run --instructions --instructions-repeats 3\` demo-base..demo-head: BM_RecordHash's instructions ${slowed?.verdict ?? 'missing'} ${pct(slowed?.ratio ? slowed.ratio - 1 : null)} ` +
      `(${instr.length} benchmarks counted, ${others.length} other changed); the report's profile names \`${first?.name ?? 'nothing'}\` first with ${pct(first?.share ?? null, 1)} of the change. ` +
      `Counting took ${counted.map((c) => `${c.toFixed(0)} s`).join(' + ')} (base + head, 3 repeats each) = ${total.toFixed(0)} s; the whole run (builds, 3 wall rounds per side, counting, profile) ${secs(o.ms)}.`,
    `For scale: the same run without counting, 3 wall rounds per side, took ${secs(wall.ms)}; counting one side's repeat costs ${(total / 6).toFixed(0)} s against ${(wall.ms / 1000 / (2 * rounds)).toFixed(1)} s for one wall round of the suite (builds included in the latter).`,
    '',
  ];
  return {
    label: 'demo',
    lines,
    targets: [
      { name: 'demo: merge #14 found by counting in one session (3 repeats per side), function named', met: slowed?.verdict === 'regressed' && others.length === 0 && first !== undefined, detail: `${slowed?.verdict} ${pct(slowed?.ratio ? slowed.ratio - 1 : null)}, where: ${first?.name ?? 'none'} ${pct(first?.share ?? null, 1)}` },
      { name: 'cost: the demo suite counted, both sides, in under 5 minutes', met: total < 300, detail: `${total.toFixed(0)} s counting (${secs(o.ms)} the whole run) at load ${o.stderr.match(/load[^\n]*/)?.[0]?.slice(0, 40) ?? 'see header'}` },
    ],
  };
}

/**
 * benchGoBtree: the A/A of github.com/google/btree's own benchmarks in
 * instruction mode, as a user would run it on that repository: its source
 * from the Go module proxy (`go mod download`, so a fresh machine with
 * network access can run it), a README-only commit as head, `benchbot run
 * --instructions` with the runner's own schedule (slow benchmarks get fewer
 * iterations, chosen from the wall-time rounds, the same on both sides).
 */
export function benchGoBtree(work: string, log: (line: string) => void): RealPart {
  const dir = execFileSync('go', ['mod', 'download', '-json', 'github.com/google/btree@v1.1.3'], { encoding: 'utf8', env: { ...process.env, GOFLAGS: '-mod=mod' } });
  const source = (JSON.parse(dir) as { Dir: string }).Dir;
  const repo = join(work, 'btree');
  // The benchmarks of the interface-based tree (the generic twins end in G): the same code paths, half the valgrind time.
  plainRepo(repo, {
    'bench.sh': '#!/usr/bin/env bash\nset -euo pipefail\ncd "$(dirname "$0")"\nexec go test -run=\'^$\' -bench=\'[a-z]$\' -benchtime=20ms -count=1 "$@"\n',
    '.gitignore': 'btree.test\n.benchbot/\n',
  }, source);
  const s = spec('github.com/google/btree v1.1.3 (Go)', 'go test -c -o btree.test .', './bench.sh');
  const o = runBenchbot({ spec: s, repo, base: 'base', head: 'aa' }, COUNTED, work);
  const counted = countedSeconds(o.stderr);
  const instr = rowsOf(o.rows, 'instructions');
  const unchanged = instr.filter((r) => r.verdict === 'unchanged');
  const changed = instr.filter((r) => r.verdict === 'regressed' || r.verdict === 'improved');
  const undecided = instr.filter((r) => r.verdict !== 'unchanged' && r.verdict !== 'regressed' && r.verdict !== 'improved');
  const wallMetric = [...new Set(o.rows.map((r) => r.metric))].find((m) => m !== 'instructions' && m !== 'estimated_cycles' && !m.includes('alloc') && !m.includes('B/op')) ?? 'time';
  const wallRows = rowsOf(o.rows, wallMetric);
  // A benchmark timed but not counted was dropped by the runner, which says why in the report's warnings.
  // The report's warnings say why a benchmark was not counted on a side ("base: BenchmarkX: --instructions: ...").
  const whyNot = (benchmark: string) => o.warnings.filter((x) => x.includes(`${benchmark}: `) && /instructions/.test(x)).join('; ') || 'no reason in the report';
  const dropped = wallRows.filter((w) => !instr.some((r) => r.benchmark === w.benchmark)).map((w) => ({ benchmark: w.benchmark, why: whyNot(w.benchmark) }));
  const benchmarks = Math.max(wallRows.length, instr.length);
  const spreads = instr.map((r) => Math.max(r.spread?.base ?? 0, r.spread?.head ?? 0)).sort((a, b) => a - b);
  const schedule = /slow benchmark\(s\) counted with fewer iterations[^\n]*/.exec(o.stderr)?.[0];
  log(`btree: ${unchanged.length}/${benchmarks} unchanged, ${undecided.length} undecided, ${dropped.length} dropped, ${changed.length} changed in ${secs(o.ms)} (counting ${counted.join(' + ')} s)`);
  const lines = [
    '### A real Go library: github.com/google/btree v1.1.3, its own benchmarks, A/A',
    '',
    `\`benchbot run --instructions --instructions-repeats 3 --min-runs 3 --max-runs 3\` base..aa (a README-only commit), ${benchmarks} benchmarks (the interface-based tree's, \`-bench '[a-z]$'\`, sub-benchmarks included), ` +
      `${secs(o.ms)} in all, counting ${counted.map((c) => `${c.toFixed(0)} s`).join(' + ')} (base + head): ` +
      `**${unchanged.length}/${benchmarks} unchanged**, ${undecided.length} undecided, ${dropped.length} not counted, ${changed.length} called changed.`,
    `Spread between a benchmark's repeats: median ${pct(spreads[spreads.length >> 1] ?? null, 3)}, largest ${pct(spreads.at(-1) ?? null, 3)}. ` +
      `Schedule: ${schedule ?? 'every benchmark at the default 1000 iterations'}. ` +
      'Its test file seeds math/rand from the clock (`rand.Seed(time.Now().Unix())` in init); the runner counts Go with `GODEBUG=randautoseed=0,randseednop=1`, so every process builds the same trees.',
    ...undecided.map((r) => (r.verdict === 'removed' || r.verdict === 'new'
      ? `- ${r.benchmark}: counted on one side only (${r.verdict}): ${whyNot(r.benchmark)}`
      : `- ${r.benchmark}: ${r.verdict}, ${r.reason ?? ''} (spread ${pct(r.spread?.base ?? null, 3)} base, ${pct(r.spread?.head ?? null, 3)} head)`)),
    ...changed.map((r) => `- ${r.benchmark}: called ${r.verdict} ${pct(r.ratio === null ? null : r.ratio - 1, 3)} (spread ${pct(r.spread?.base ?? null, 3)} base, ${pct(r.spread?.head ?? null, 3)} head)`),
    ...dropped.map((d) => `- ${d.benchmark}: not counted: ${d.why}`),
    `Its 3 wall-time rounds per side in the same run: ${wallRows.filter((r) => r.verdict === 'unchanged').length} unchanged, ${wallRows.filter((r) => r.verdict === 'inconclusive').length} undecided of ${wallRows.length}.`,
    '',
  ];
  return {
    label: 'btree',
    lines,
    targets: [{ name: 'real Go library A/A: >= 90% of benchmarks unchanged in instruction mode', met: benchmarks > 0 && unchanged.length >= 0.9 * benchmarks && changed.length === 0, detail: `${unchanged.length}/${benchmarks} unchanged, ${undecided.length} undecided, ${dropped.length} not counted, ${changed.length} changed; ${secs(o.ms)}` }],
  };
}

/**
 * PINT_FILTER picks the benchmarks of pint's suite the Python A/A counts
 * (BENCHBOT_PY_FILTER overrides it; `.` counts all 448): a deterministic
 * subset, since every counted call runs some 50-100 times slower under
 * callgrind and the measuring machine is a shared 2-core VM (116 benchmarks,
 * test_01 and test_10, took 9 minutes per repeat and side at load 10-14).
 * Counted: test_01_eval (10, the expression tokenizer) and four groups of
 * test_10_registry (40: unit lookup, parsing, base units, conversion).
 * Left out: test_00_common's import benchmark (its work is a child Python
 * process, which the benchmark process's count does not see), test_05
 * (registry creation from the full definition file, seconds per call
 * under callgrind), the rest of test_10, test_20_quantity (213) and
 * test_30_numpy (116), for time.
 */
const PINT_FILTER = '^test_01_|^test_10_registry\\.py::test_(getattr|parse_units|base_units|convert_from_uc)\\[';

/**
 * PY_AA is how many A/As of pint run (BENCHBOT_PY_AA overrides it), each in
 * a repository of its own whose path has another length: CPython's memory
 * layout follows the length of its paths and environment, not their
 * letters (two A/As in pint-bench-1 and pint-bench-2 read the same counts),
 * so one A/A alone would show one draw of it (docs/instructions.md).
 */
const PY_AA = 3;

/** pyRepoName is the k-th A/A's repository: 11 characters longer for each k. */
function pyRepoName(k: number): string {
  return `pint-aa${k}-${'p'.repeat(11 * k)}`;
}

/** PyAa is one pint A/A as the bench reads it. */
interface PyAa {
  o: RunOutcome;
  instr: JsonRow[];
  unchanged: JsonRow[];
  changed: JsonRow[];
  counted: number[];
}

/** benchPython: pint's pytest-benchmark suite A/A in instruction mode (run's defaults: 5 layouts per side, one set aside, 1%), and CPython counted as one command with and without a fixed hash seed. */
export function benchPython(work: string, log: (line: string) => void): RealPart {
  const have = (module: string) => spawnSync('python3', ['-c', `import ${module}`]).status === 0;
  if (!have('pytest_benchmark') || !have('pint')) {
    const pip = spawnSync('python3', ['-m', 'pip', 'install', '--quiet', 'pytest-benchmark', 'pint'], { encoding: 'utf8', timeout: 600_000 });
    if (pip.status !== 0) throw new Error(`pip install pytest-benchmark pint failed: ${pip.stderr.slice(-500)}`);
  }
  // The interpreter itself: a pyenv shim would start dozens of shell processes under valgrind per count.
  const python = execFileSync('python3', ['-c', 'import sys; print(sys.executable)'], { encoding: 'utf8' }).trim();
  const version = execFileSync(python, ['-c', 'import pint, sys; print(pint.__version__, "on CPython", sys.version.split()[0])'], { encoding: 'utf8' }).trim();
  const filter = process.env.BENCHBOT_PY_FILTER ?? PINT_FILTER;
  const iterations = process.env.BENCHBOT_PY_ITERATIONS;
  // Without BENCHBOT_PY_REPEATS, run's own default for pytest-benchmark (5 layouts per side): the configuration that ships.
  const repeats = process.env.BENCHBOT_PY_REPEATS;
  const aas = Number(process.env.BENCHBOT_PY_AA ?? PY_AA);
  const s = spec(`pint ${version} pytest-benchmark suite (Python)`, 'true', './bench.sh', 'bench.json');
  const runs: PyAa[] = [];
  let names: string[] = [];
  for (let k = 1; k <= aas; k++) {
    const repo = join(work, pyRepoName(k));
    plainRepo(repo, {
      'bench.sh': '#!/usr/bin/env bash\n# pint\'s own benchmarks (pint.testsuite.benchmarks, installed), a fixed hash seed.\nset -euo pipefail\ncd "$(dirname "$0")"\n' +
        `export PYTHONHASHSEED=0\nexec ${python} -m pytest -q -p no:cacheprovider --benchmark-only --benchmark-max-time=0.01 --benchmark-min-rounds=3 --benchmark-json=bench.json --pyargs pint.testsuite.benchmarks "$@" >/dev/null\n`,
      '.gitignore': 'bench.json\n.benchbot/\n',
    });
    const o = runBenchbot({ spec: s, repo, base: 'base', head: 'aa' }, ['--instructions', '--min-runs', '3', '--max-runs', '3', '--warmup', '0', '--format', 'pytest-benchmark', '--instructions-filter', filter,
      ...(repeats ? ['--instructions-repeats', repeats] : []), ...(iterations ? ['--instructions-iterations', iterations] : [])], work);
    names = [...new Set(o.rows.map((r) => r.benchmark))];
    const instr = rowsOf(o.rows, 'instructions');
    const run = { o, instr, unchanged: instr.filter((r) => r.verdict === 'unchanged'), changed: instr.filter((r) => r.verdict === 'regressed' || r.verdict === 'improved'), counted: countedSeconds(o.stderr) };
    runs.push(run);
    log(`python A/A ${k}/${aas}: ${names.length} benchmarks, ${instr.length} counted, ${run.unchanged.length} unchanged, ${run.changed.length} changed in ${secs(o.ms)} (counting ${run.counted.join(' + ')} s)`);
  }
  const selected = names.filter((n) => new RegExp(filter).test(n));
  const shown = repeats ?? String(defaultCountRepeats('pytest-benchmark'));
  const aaLine = (r: PyAa, k: number) => {
    const spreads = r.instr.map((x) => Math.max(x.spread?.base ?? 0, x.spread?.head ?? 0)).sort((a, b) => a - b);
    const setAside = r.instr.filter((x) => x.set_aside !== undefined).length;
    const countedTotal = r.counted.reduce((a, b) => a + b, 0);
    const undecided = r.instr.filter((x) => x.verdict === 'inconclusive');
    return `- A/A ${k} (\`${pyRepoName(k)}\`, ${secs(r.o.ms)}): ${r.unchanged.length}/${selected.length} \`unchanged\`, ${r.changed.length} called changed${r.changed.length > 0 ? ` (${r.changed.map((x) => `${x.benchmark} ${pct(x.ratio === null ? null : x.ratio - 1, 2)}`).join('; ')})` : ''}, ` +
      `${undecided.length} undecided${undecided.length > 0 ? ` (${undecided.slice(0, 3).map((x) => `${x.benchmark}: ${x.reason ?? ''}`).join('; ')})` : ''}, ${selected.length - r.instr.length} not counted; ` +
      `work threshold ${r.o.workThreshold === undefined ? 'n/a' : `${(r.o.workThreshold * 100).toFixed(1)}%`}; one repeat per side set aside in ${setAside}; spread between the kept repeats median ${pct(spreads[spreads.length >> 1] ?? null, 3)}, largest ${pct(spreads.at(-1) ?? null, 3)}; ` +
      `counting ${r.counted.map((c) => `${c.toFixed(0)} s`).join(' + ')} (base + head), ${r.instr.length > 0 ? (countedTotal / (2 * Number(shown) * selected.length)).toFixed(2) : 'n/a'} s per benchmark and count.`;
  };
  // The runner's reasons for what it did not count are in the report's warnings or its progress lines.
  const reasons = [...new Set(runs.flatMap((r) => [...r.o.warnings.filter((w) => /instructions/.test(w)),
    ...r.o.stderr.split('\n').map((l) => /instructions: (.*)$/.exec(l)?.[1]).filter((l): l is string => l !== undefined && !l.startsWith('counting under valgrind') && !/counted in/.test(l))]))];
  const wallRows = runs.length > 0 ? rowsOf(runs[0].o.rows, 'time') : [];

  // CPython as one command: is the count the same from process to process?
  const cmdRepo = join(work, 'cpython-count');
  const script = 'import json\nd = {f"k{i}": [i, str(i)] for i in range(3000)}\ns = {str(i) for i in range(3000)}\nprint(len(json.dumps(d)), len(s), sum(hash(x) % 7 for x in s))\n';
  plainRepo(cmdRepo, { 'work.py': script });
  const seeded = runBenchbot({ spec: spec('CPython, PYTHONHASHSEED=0', 'true', `PYTHONHASHSEED=0 ${python} work.py`), repo: cmdRepo, base: 'base', head: 'aa' }, [...COUNTED, '--format', 'command'], work);
  const random = runBenchbot({ spec: spec('CPython, random hash seed', 'true', `PYTHONHASHSEED=random ${python} work.py`), repo: cmdRepo, base: 'base', head: 'aa' }, [...COUNTED, '--format', 'command'], work);
  const describe = (r: typeof seeded) => {
    const row = rowsOf(r.rows, 'instructions')[0];
    return row ? `${row.verdict}, spread between repeats ${pct(Math.max(row.spread?.base ?? 0, row.spread?.head ?? 0), 3)}` : `not counted (${[...r.warnings].find((w) => /instructions/.test(w)) ?? 'no reason'})`;
  };
  log(`cpython: seeded ${describe(seeded)}; random ${describe(random)}`);
  const lines = [
    `### A real Python library: pint ${version}, its pytest-benchmark suite, A/A`,
    '',
    `\`run --instructions --format pytest-benchmark\` base..aa, ${runs.length} times in fresh repositories (${names.length} benchmarks, PYTHONHASHSEED=0, 3 wall rounds and ${shown} counts per side${repeats ? '' : ' (run\'s default: each in another memory layout)'}), ` +
      `counted ${selected.length === names.length ? 'all' : `the ${selected.length} matching \`${filter}\``}${iterations ? ` at ${iterations} iterations` : ' at the default 10 iterations'}:`,
    '',
    ...runs.map((r, i) => aaLine(r, i + 1)),
    ...(reasons.length > 0 ? ['', `Reasons printed: ${reasons.slice(0, 4).map((r) => `"${r.slice(0, 200)}"`).join('; ')}${reasons.length > 4 ? ` and ${reasons.length - 4} more` : ''}.`] : []),
    '',
    `Its 3 wall-time rounds per side in the first A/A: ${wallRows.filter((r) => r.verdict === 'unchanged').length} unchanged, ${wallRows.filter((r) => r.verdict === 'inconclusive').length} undecided of ${wallRows.length}.`,
    `CPython counted as one command (\`--format command\`, a dict/set/json workload, 3 repeats per side): with PYTHONHASHSEED=0 ${describe(seeded)}; with a random hash seed ${describe(random)}.`,
    '',
  ];
  const met = selected.length > 0 && runs.length > 0 && runs.every((r) => r.unchanged.length >= 0.9 * selected.length && r.changed.length === 0);
  return {
    label: 'python',
    lines,
    targets: [{
      name: 'real Python library A/A: >= 90% of benchmarks unchanged in instruction mode, none changed, in every A/A',
      met,
      detail: `${runs.map((r) => `${r.unchanged.length}/${selected.length} unchanged, ${r.changed.length} changed`).join('; ')} (${selected.length === names.length ? 'all' : `subset ${filter} of ${names.length}`})`,
    }],
  };
}
