// `npm run bench:instructions`: issue 23's targets for counted work, checked
// on this machine through benchbot's public CLI (`benchbot run
// --instructions`, `benchbot profile`), beside what wall time alone and the
// tools people use today decide in the same run.
//
// Suites of real code (bench/instruction-suites.ts) in C++ Google Benchmark,
// Go and Rust criterion are generated into temp git repositories with an
// A/A commit, ten commits that each add +1% of one benchmark's instructions
// inside one named function (calibrated under callgrind), and ten commits
// that only move code. Then, per harness:
//
//   A/A        `run --instructions` base..aa: no instruction verdict may say changed
//   injected   `run --instructions` base..inject-N (at most 3 repeats per side):
//              the injected benchmark regressed, nothing else changed; and
//              `run` without counting, given about the same time, on the same pair
//   where      `profile` base..inject-N names the injected function first, >= 80%
//   layout     `run --instructions` base..layout-N: instructions unchanged; when
//              wall time moved, the report says which kind of change it was
//
// The peers judge the wall-time run's own samples: benchstat (the real
// binary: U test p < 0.05), compare.py's U test (scipy's method, p < 0.05),
// and the one-run rule of most CI bots (|head/base - 1| > 5% on one run per side).
//
// Valgrind runs code some 50x slower, so every count is expensive: a suite
// of N trials is N real `run`s, and where the budget allows fewer end-to-end
// runs than the target's 40, the rest are drawn (3 repeats per side, without
// replacement within a side) from the repeats those runs counted and judged
// by the same rule the CLI applies (compare/work-verdict.ts); the report says
// which is which.
//
//   node bench/instructions.ts [--quick] [--save] [--harness cpp,go,rust] [--no-real]
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { judgeWork } from '../src/compare/work-verdict.ts';
import { DEFAULT_WORK_THRESHOLD } from '../src/compare/compare-runs.ts';
import { xoshiro128 } from '../src/stats/bootstrap.ts';
import { perCallInstructions } from './callgrind-direct.ts';
import { benchDemo, benchGoBtree, benchPython, countedSeconds } from './instruction-real.ts';
import { addVariant, buildAt, buildEnv, cargoTargetSeed, git, HARNESSES, type Harness, initRepo, makeTempDir, SUITES, type SuiteSpec, type WorkFunction } from './instruction-suites.ts';
import { findBenchstat, goBenchText, parseBenchstatCsv, thresholdCall, uTestCall, type Call } from './quality.ts';

const BIN = fileURLToPath(new URL('../bin/benchbot.js', import.meta.url));
const RESULTS = fileURLToPath(new URL('./results/instructions.md', import.meta.url));

/** Plan is how many end-to-end trials of each kind a harness gets, and the suite counts the targets name. */
export interface Plan {
  aaRuns: number;
  injectRuns: number;
  whereRuns: number;
  layoutRuns: number;
  wallRuns: number;
  /** suites is how many A/A and injected suites the targets judge (end-to-end runs plus draws from their repeats). */
  suites: number;
  /** filter narrows the counting to a few benchmarks (`--instructions-filter`), for the quick run. */
  filter?: string;
}

// The issue's targets name 9/10 injections with the right "where" and 9/10 layout trials: ten of each, end to end.
// Every counted run is minutes on a 2-core machine shared with other work (load ~15 when measured), so the A/A is
// one run plus draws, and injected runs count the injected benchmark and one other (the A/A runs count all five).
export const FULL_PLAN: Plan = { aaRuns: 1, injectRuns: 10, whereRuns: 10, layoutRuns: 10, wallRuns: 1, suites: 40 };
export const QUICK_PLAN: Plan = { aaRuns: 1, injectRuns: 1, whereRuns: 1, layoutRuns: 0, wallRuns: 0, suites: 1, filter: '^BM_Sort$' };

const INJECTIONS = 10;
const LAYOUTS = 10;
const REPEATS = 3;

// ---------------------------------------------------------------- the CLI

/** Cli is one finished benchbot command: exit status, output, wall time. */
export interface Cli {
  status: number;
  stdout: string;
  stderr: string;
  ms: number;
}

/** benchbot runs the CLI as a user would (bin/benchbot.js) and waits for it. */
export function benchbot(args: string[], env: NodeJS.ProcessEnv = buildEnv(), timeoutMs = 3_600_000): Cli {
  const start = process.hrtime.bigint();
  const r = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env, maxBuffer: 1 << 28, timeout: timeoutMs });
  const ms = Number(process.hrtime.bigint() - start) / 1e6;
  if (r.error) throw r.error;
  return { status: r.status ?? -1, stdout: r.stdout, stderr: r.stderr, ms };
}

/** JsonRow is the part of a JSON report comparison the bench reads (docs/report-json.md). */
export interface JsonRow {
  benchmark: string;
  metric: string;
  verdict: string;
  ratio: number | null;
  family?: string;
  reason?: string;
  spread?: { base: number; head: number };
  disagreement?: string;
  warnings?: string[];
  /** set_aside: the repeat of each side the rule set aside (compare/work-verdict.ts SET_ASIDE_FROM). */
  set_aside?: { base?: number; head?: number };
}

/** JsonProfile is a differential profile in the JSON report (model/profile-diff.ts), as far as the bench reads it. */
export interface JsonProfile {
  benchmark: string;
  self: { name: string; share: number | null }[];
}

/** RunOutcome is one `benchbot run`: its JSON rows, markdown report, samples per side, time and rounds. */
export interface RunOutcome {
  rows: JsonRow[];
  profiles: JsonProfile[];
  markdown: string;
  warnings: string[];
  samples: { base: Map<string, number[]>; head: Map<string, number[]> };
  ms: number;
  stderr: string;
  /** workThreshold is the threshold the report judged counted work at (its `work_threshold`). */
  workThreshold?: number;
}

/** Pair is the repository and the two refs a trial compares. */
interface Pair {
  spec: SuiteSpec;
  repo: string;
  base: string;
  head: string;
  env?: NodeJS.ProcessEnv;
}

let runCounter = 0;

/** runBenchbot runs `benchbot run` on a pair with `extra` flags, in a fresh store, and reads report and samples. */
export function runBenchbot(pair: Pair, extra: string[], work: string): RunOutcome {
  const id = ++runCounter;
  const store = join(work, `store-${id}.db`);
  const md = join(work, `report-${id}.md`);
  const args = ['run', '--repo', pair.repo, '--base', pair.base, '--head', pair.head, '--bench', pair.spec.bench, '--build', pair.spec.build,
    '--store', store, '--output', 'json', '--export-markdown', md, '--max-load', '64', '--no-pool-base', '--seed', String(1000 + id), ...extra];
  if (pair.spec.resultFile) args.push('--result-file', pair.spec.resultFile);
  const cli = benchbot(args, pair.env);
  if (cli.status !== 0 && cli.status !== 1) throw new Error(`benchbot run ${pair.base}..${pair.head} (${pair.spec.label}) exited ${cli.status}: ${cli.stderr.slice(-3000)}`);
  const report = JSON.parse(cli.stdout) as { comparisons: JsonRow[]; warnings: string[]; profiles?: JsonProfile[]; work_threshold?: number };
  return { rows: report.comparisons, profiles: report.profiles ?? [], markdown: readFileSync(md, 'utf8'), warnings: report.warnings, samples: exportSamples(store, pair), ms: cli.ms, stderr: cli.stderr, workThreshold: report.work_threshold };
}

/** exportSamples reads every raw sample of the run's two sides back through `benchbot export`, keyed `benchmark\tmetric`. */
function exportSamples(store: string, pair: Pair): RunOutcome['samples'] {
  const cli = benchbot(['export', '--store', store]);
  if (cli.status !== 0) throw new Error(`benchbot export failed: ${cli.stderr}`);
  const baseSha = git(pair.repo, 'rev-parse', `${pair.base}^{commit}`);
  const samples = { base: new Map<string, number[]>(), head: new Map<string, number[]>() };
  for (const line of cli.stdout.split('\n').slice(1)) {
    if (!line.trim()) continue;
    const run = JSON.parse(line) as { sha: string; role: string; measurements: { benchmark: string; metric: string; values: number[] }[] };
    const side = run.sha === baseSha ? samples.base : samples.head;
    for (const m of run.measurements) {
      const key = `${m.benchmark}\t${m.metric}`;
      side.set(key, [...(side.get(key) ?? []), ...m.values]);
    }
  }
  return samples;
}

/** instructionRows are a report's rows of the instructions metric, by benchmark. */
function metricRows(rows: readonly JsonRow[], metric: string): Map<string, JsonRow> {
  return new Map(rows.filter((r) => r.metric === metric).map((r) => [r.benchmark, r]));
}

const WALL_METRICS = ['real_time', 'time', 'ns/op', 'sec/op', 'mean'];

/** wallMetric is the wall-time metric a harness reports (Google Benchmark's real_time, Go's and criterion's time). */
function wallMetric(rows: readonly JsonRow[]): string | undefined {
  const metrics = new Set(rows.map((r) => r.metric));
  return WALL_METRICS.find((m) => metrics.has(m)) ?? rows.find((r) => r.family === 'primary')?.metric;
}

const changed = (verdict: string | undefined) => verdict === 'regressed' || verdict === 'improved';

/** matches says whether a reported benchmark name is the work function's benchmark (criterion and Go add nothing; GB may add /args). */
function isBenchmark(name: string, fn: WorkFunction): boolean {
  return name === fn.benchmark || name.startsWith(`${fn.benchmark}/`) || name.startsWith(`${fn.benchmark}-`);
}

// ---------------------------------------------------------------- peers on the wall-time samples

interface PeerCalls {
  benchstat: Map<string, Call> | null;
  comparePy: Map<string, Call>;
  oneRun: Map<string, Call>;
}

function peerCalls(outcome: RunOutcome, metric: string, benchstat: string | null, work: string): PeerCalls {
  const names = [...outcome.samples.base.keys()].filter((k) => k.endsWith(`\t${metric}`)).map((k) => k.split('\t')[0]);
  const comparePy = new Map<string, Call>();
  const oneRun = new Map<string, Call>();
  const rows: { base: { name: string; values: number[] }[]; head: { name: string; values: number[] }[] } = { base: [], head: [] };
  names.forEach((name, i) => {
    const b = outcome.samples.base.get(`${name}\t${metric}`) ?? [];
    const h = outcome.samples.head.get(`${name}\t${metric}`) ?? [];
    if (b.length === 0 || h.length === 0) return;
    comparePy.set(name, b.length >= 2 && h.length >= 2 ? uTestCall(b, h) : 'none');
    oneRun.set(name, thresholdCall([b[0]], [h[0]]));
    rows.base.push({ name: `X${i}`, values: b });
    rows.head.push({ name: `X${i}`, values: h });
  });
  let bs: Map<string, Call> | null = null;
  if (benchstat) {
    writeFileSync(join(work, 'bs-base.txt'), goBenchText(rows.base));
    writeFileSync(join(work, 'bs-head.txt'), goBenchText(rows.head));
    const r = spawnSync(benchstat, ['-format', 'csv', 'bs-base.txt', 'bs-head.txt'], { cwd: work, encoding: 'utf8' });
    if (r.status === 0) {
      const parsed = parseBenchstatCsv(r.stdout);
      bs = new Map(names.map((name, i) => [name, parsed.get(`X${i}`) ?? 'none']));
    }
  }
  return { benchstat: bs, comparePy, oneRun };
}

// ---------------------------------------------------------------- setup

/** Prepared is one harness's repository with its tags and calibration. */
interface Prepared {
  spec: SuiteSpec;
  repo: string;
  /** perCall is each benchmark's instructions per iteration at base (callgrind, direct; criterion: its work function's per call). */
  perCall: Map<string, number>;
  /** loopCost is the instructions one iteration of the injected loop adds (callgrind, direct). */
  loopCost: number;
  injections: { tag: string; fn: WorkFunction; iterations: number; where: 'entry' | 'exit' }[];
  layouts: { tag: string; bytes: number }[];
  setupMs: number;
}

/** prepare makes the harness's repository: base, aa, the injections calibrated to +1%, the layout commits. */
export function prepare(harness: Harness, work: string, log: (line: string) => void, injections = INJECTIONS, layouts = LAYOUTS): Prepared {
  const start = Date.now();
  const spec = SUITES[harness];
  if (harness === 'rust') cargoTargetSeed();
  const repo = join(work, `${harness}-repo`);
  initRepo(spec, repo);
  addVariant(spec, repo, 'aa', { readme: 'Five benchmarks of real work; this commit changes only this README.' });
  // Calibration: each work function's instructions per call at base, and the cost of one loop iteration.
  const scratch = join(work, 'calibrate');
  mkdirSync(scratch, { recursive: true });
  // Only the functions an injection targets are measured: every callgrind run costs seconds.
  const probeIterations = 1000;
  const probed = spec.functions[0];
  addVariant(spec, repo, 'probe', { inject: { id: probed.id, iterations: probeIterations, where: 'entry' } });
  const baseTree = buildAt(spec, repo, 'base', scratch);
  const probeTree = buildAt(spec, repo, 'probe', scratch);
  const targets = spec.functions.slice(0, Math.min(injections, spec.functions.length));
  const perCall = new Map<string, number>();
  let probedWork = 0;
  for (const fn of targets) {
    const [benchmark, workFn] = perCallInstructions(spec, baseTree, fn, [fn.benchmarkPattern ?? fn.pattern, fn.pattern]);
    perCall.set(fn.id, benchmark);
    if (fn === probed) probedWork = workFn;
  }
  const [probedWithLoop] = perCallInstructions(spec, probeTree, probed);
  const loopCost = (probedWithLoop - probedWork) / probeIterations;
  log(`${spec.label}: instructions per benchmark iteration ${[...perCall].map(([id, n]) => `${id} ${Math.round(n)}`).join(', ')}; one injected loop iteration ${loopCost.toFixed(2)}`);
  const injected: Prepared['injections'] = [];
  for (let i = 0; i < injections; i++) {
    const fn = spec.functions[i % spec.functions.length];
    const where = i < spec.functions.length ? 'entry' : 'exit';
    const iterations = Math.max(1, Math.round((0.01 * (perCall.get(fn.id) ?? 0)) / loopCost));
    const tag = `inject-${i}`;
    addVariant(spec, repo, tag, { inject: { id: fn.id, iterations, where } });
    injected.push({ tag, fn, iterations, where });
  }
  const layout: Prepared['layouts'] = [];
  for (let i = 0; i < layouts; i++) {
    // Sizes that are not multiples of the 16-byte function alignment, so every trial moves the code differently.
    const bytes = 24 + 37 * i;
    addVariant(spec, repo, `layout-${i}`, { paddingBytes: bytes });
    layout.push({ tag: `layout-${i}`, bytes });
  }
  for (const dir of [baseTree, probeTree]) git(repo, 'worktree', 'remove', '--force', dir);
  return { spec, repo, perCall, loopCost, injections: injected, layouts: layout, setupMs: Date.now() - start };
}

// ---------------------------------------------------------------- trials

/** Instr is the flag set of a counted run: at most 3 repeats per side, and as few wall rounds as `run` allows. */
function instrFlags(plan: Plan, wallRounds = 3): string[] {
  return ['--instructions', '--instructions-repeats', String(REPEATS), '--min-runs', String(wallRounds), '--max-runs', String(wallRounds), '--warmup', '0',
    ...(plan.filter ? ['--instructions-filter', plan.filter] : [])];
}

interface HarnessResult extends HarnessPart {
  harness: Harness;
}

/** drawSuites judges `count` suites of 3+3 repeats drawn from the pooled repeats of each benchmark by the CLI's rule. */
function drawSuites(count: number, pools: Map<string, { base: number[]; head: number[] }>, seed: number): Map<string, string[]> {
  const rng = xoshiro128(seed);
  const draw = (values: number[]) => {
    const pool = [...values];
    const out: number[] = [];
    for (let i = 0; i < REPEATS && pool.length > 0; i++) out.push(pool.splice(Math.floor(rng() * pool.length), 1)[0]);
    return out;
  };
  const verdicts = new Map<string, string[]>();
  for (const [name, p] of pools) {
    const list: string[] = [];
    for (let s = 0; s < count; s++) list.push(judgeWork(draw(p.base), draw(p.head), DEFAULT_WORK_THRESHOLD).verdict);
    verdicts.set(name, list);
  }
  return verdicts;
}

function addPools(pools: Map<string, { base: number[]; head: number[] }>, outcome: RunOutcome, metric: string): void {
  for (const [key, values] of outcome.samples.base) {
    const [name, m] = key.split('\t');
    if (m !== metric) continue;
    const entry = pools.get(name) ?? { base: [], head: [] };
    entry.base.push(...values);
    entry.head.push(...(outcome.samples.head.get(key) ?? []));
    pools.set(name, entry);
  }
}

const pct = (x: number | null | undefined, digits = 2) => (x === null || x === undefined || !Number.isFinite(x) ? 'n/a' : `${x >= 0 ? '+' : ''}${(x * 100).toFixed(digits)}%`);
const secs = (ms: number) => `${(ms / 1000).toFixed(0)} s`;

/** benchHarness runs every trial of one harness and returns its section of the report. */
export function benchHarness(harness: Harness, plan: Plan, work: string, benchstat: string | null, log: (line: string) => void): HarnessResult {
  const prepared = prepare(harness, work, log, Math.max(plan.injectRuns, plan.whereRuns), plan.layoutRuns);
  const { spec, repo } = prepared;
  const result: HarnessResult = { label: spec.label, harness, lines: [], targets: [] };
  const out = (line = '') => result.lines.push(line);
  const pair = (head: string): Pair => ({ spec, repo, base: 'base', head });
  log(`${spec.label}: repository ready in ${secs(prepared.setupMs)} (${prepared.injections.length} injections, ${prepared.layouts.length} layout commits)`);

  // Can this harness be counted at all? The first A/A run says so (a reason line instead of instruction rows).
  const aaOutcomes: RunOutcome[] = [];
  for (let i = 0; i < plan.aaRuns; i++) {
    aaOutcomes.push(runBenchbot(pair('aa'), instrFlags(plan), work));
    log(`${spec.label}: A/A ${i + 1}/${plan.aaRuns} in ${secs(aaOutcomes.at(-1)!.ms)}`);
    if (metricRows(aaOutcomes[0].rows, 'instructions').size === 0) break;
  }
  const counted = metricRows(aaOutcomes[0].rows, 'instructions').size > 0;
  out(`### ${spec.label}`);
  out();
  if (!counted) {
    // The runner's reasons, as the JSON report's warnings or its progress lines carry them.
    const progress = aaOutcomes[0].stderr.split('\n').map((l) => /instructions: (.*)$/.exec(l)?.[1]).filter((l): l is string => l !== undefined && !l.startsWith('counting under valgrind'));
    const reasons = [...new Set([...aaOutcomes[0].warnings, ...aaOutcomes[0].rows.map((r) => r.reason ?? '')].filter((w) => /instruction/i.test(w)).concat(progress))];
    out(`Not counted: benchbot says ${reasons.length ? reasons.map((r) => `"${r}"`).join('; ') : '(no reason given)'}.`);
    out();
    for (const t of ['A/A', 'injected +1% found', 'where', 'layout']) result.targets.push({ name: t, met: false, detail: 'instructions not counted for this harness' });
    return result;
  }

  // A/A: end-to-end runs, then draws from their repeats up to plan.suites.
  const aaPools = new Map<string, { base: number[]; head: number[] }>();
  let aaFalse = 0;
  let aaSpread = 0;
  for (const o of aaOutcomes) {
    const rows = [...metricRows(o.rows, 'instructions').values(), ...metricRows(o.rows, 'estimated_cycles').values()];
    if (rows.some((r) => changed(r.verdict))) aaFalse += 1;
    for (const r of rows) aaSpread = Math.max(aaSpread, r.spread?.base ?? 0, r.spread?.head ?? 0);
    addPools(aaPools, o, 'instructions');
  }
  const aaDraws = drawSuites(Math.max(0, plan.suites - aaOutcomes.length), aaPools, 1);
  let drawnFalse = 0;
  for (let s = 0; s < Math.max(0, plan.suites - aaOutcomes.length); s++) if ([...aaDraws.values()].some((v) => changed(v[s]))) drawnFalse += 1;
  const aaTotal = aaOutcomes.length + Math.max(0, plan.suites - aaOutcomes.length);
  const aaUnchanged = aaOutcomes.flatMap((o) => [...metricRows(o.rows, 'instructions').values()]).filter((r) => r.verdict === 'unchanged').length;
  const aaRowsN = aaOutcomes.flatMap((o) => [...metricRows(o.rows, 'instructions').values()]).length;
  const aaMs = aaOutcomes.reduce((s, o) => s + o.ms, 0) / aaOutcomes.length;

  // Wall time alone on the A/A pair: \`run\` as shipped (10 rounds per side, adaptive to 40), which on this
  // machine takes about as long as one counted run; both times are printed.
  const aaWall: { outcome: RunOutcome; peers: PeerCalls; metric: string }[] = [];
  for (let i = 0; i < Math.min(plan.wallRuns, plan.aaRuns); i++) {
    const o = runBenchbot(pair('aa'), [], work);
    const metric = wallMetric(o.rows) ?? 'real_time';
    aaWall.push({ outcome: o, metric, peers: peerCalls(o, metric, benchstat, work) });
    log(`${spec.label}: wall-time A/A ${i + 1} in ${secs(o.ms)}`);
  }

  out(`A/A (base against a README-only commit): ${aaOutcomes.length} end-to-end \`run --instructions\` (${REPEATS} repeats per side, ${secs(aaMs)} each), ` +
    `${aaOutcomes.length ? aaFalse : 'n/a'} with a false instruction or estimated-cycles finding; ${aaUnchanged}/${aaRowsN} instruction rows \`unchanged\`; largest spread between repeats ${pct(aaSpread, 3)}.`);
  if (aaTotal > aaOutcomes.length) out(`Plus ${aaTotal - aaOutcomes.length} suites drawn (3+3) from the ${aaPools.values().next().value?.base.length ?? 0} counted repeats per side and judged by the CLI's rule: ${drawnFalse} with a false finding.`);
  result.targets.push({ name: `A/A, ${aaTotal} suites: no false finding on instruction metrics`, met: aaFalse + drawnFalse === 0, detail: `${aaFalse + drawnFalse} false (${aaOutcomes.length} run end to end)` });
  if (aaWall.length) {
    const wallFalse = (pick: (w: (typeof aaWall)[number]) => Map<string, string> | null) => aaWall.map((w) => pick(w)).filter((m) => m !== null).map((m) => [...m!.values()].filter((c) => changed(c)).length);
    const bbWall = aaWall.map((w) => [...metricRows(w.outcome.rows, w.metric).values()]);
    out(`Wall time alone on the same pair (\`run\` as shipped, ${aaWall.map((w) => `${roundsOf(w.outcome)} rounds per side in ${secs(w.outcome.ms)}`).join(' / ')}): ` +
      `benchbot ${bbWall.map((rows) => `${rows.filter((r) => changed(r.verdict)).length} false, ${rows.filter((r) => r.verdict === 'unchanged').length} unchanged, ${rows.filter((r) => r.verdict === 'inconclusive').length} undecided`).join(' / ')} of ${bbWall[0].length}; ` +
      `benchstat ${wallFalse((w) => w.peers.benchstat).join(' / ') || 'n/a'} false; compare.py U test ${wallFalse((w) => w.peers.comparePy).join(' / ')} false; one-run 5% rule ${wallFalse((w) => w.peers.oneRun).join(' / ')} false.`);
    // Issue 23 asks for the slowdown factor per harness: one counted pass of the suite against one wall-time round.
    const counting = countedSeconds(aaOutcomes[0].stderr);
    const rounds = roundsOf(aaWall[0].outcome);
    if (counting.length > 0 && rounds > 0) {
      const perRepeat = counting.reduce((a, b) => a + b, 0) / counting.length / REPEATS;
      const perRound = aaWall[0].outcome.ms / 1000 / (2 * rounds);
      const factor = perRepeat / perRound;
      out(`Cost: one counted repeat of the suite, one side, took ${perRepeat.toFixed(1)} s (counting ${counting.map((c) => `${c} s`).join(' + ')} for ${REPEATS} repeats per side); one wall-time round about ${perRound.toFixed(1)} s (the wall-time run's ${secs(aaWall[0].outcome.ms)} over its ${2 * rounds} rounds, builds included): counting is about ${factor.toFixed(0)}x slower per pass of the suite.`);
      result.targets.push({ name: 'cost: slowdown factor of counting, per pass of the suite', met: null, detail: `about ${factor.toFixed(0)}x (${perRepeat.toFixed(1)} s counted against ${perRound.toFixed(1)} s per wall round)` });
    }
  }
  out();

  // Injected +1%: end-to-end counted runs, wall-time runs in the same time, peers. A plan without injections
  // (BENCHBOT_INSTR_PLAN, a part that adds layout runs to an earlier one) leaves this section and its targets out.
  const injecting = plan.injectRuns + plan.whereRuns > 0;
  if (injecting) {
    out(`Injected +1% of one benchmark's instructions (a loop of ${prepared.loopCost.toFixed(1)} instructions per iteration, calibrated per function under callgrind):`);
    out();
    out('| commit | function | loop | counted change | `run --instructions` | other rows changed | where (first function, share) | wall time alone: benchbot | benchstat | compare.py U | one-run 5% |');
    out('| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |');
  }
  let found = 0;
  let injectFalse = 0;
  let whereOk = 0;
  let whereN = 0;
  const injPools = new Map<string, { base: number[]; head: number[]; target: boolean }>();
  const wallFound = { benchbot: 0, benchstat: 0, comparePy: 0, oneRun: 0, n: 0 };
  const injectMs: number[] = [];
  for (let i = 0; i < Math.max(plan.injectRuns, plan.whereRuns); i++) {
    const inj = prepared.injections[i];
    let cells = ['', '', '', '', '', '', ''];
    let lastProfiles: JsonProfile[] = [];
    if (i < plan.injectRuns) {
      const neighbour = spec.functions[(spec.functions.indexOf(inj.fn) + 1) % spec.functions.length];
      // Go names carry the GOMAXPROCS suffix (BenchmarkSort-2).
      const o = runBenchbot(pair(inj.tag), instrFlags({ ...plan, filter: plan.filter ?? `^(${inj.fn.benchmark}|${neighbour.benchmark})(-[0-9]+)?$` }), work);
      injectMs.push(o.ms);
      lastProfiles = o.profiles;
      const rows = metricRows(o.rows, 'instructions');
      const target = [...rows.values()].find((r) => isBenchmark(r.benchmark, inj.fn));
      const others = [...rows.values(), ...metricRows(o.rows, 'estimated_cycles').values()].filter((r) => !isBenchmark(r.benchmark, inj.fn) && changed(r.verdict));
      if (target?.verdict === 'regressed') found += 1;
      if (others.length) injectFalse += 1;
      for (const [key, values] of o.samples.base) {
        const [name, m] = key.split('\t');
        if (m !== 'instructions') continue;
        const k = `${inj.tag}\t${name}`;
        injPools.set(k, { base: values, head: o.samples.head.get(key) ?? [], target: isBenchmark(name, inj.fn) });
      }
      cells = [pct(target?.ratio === null || target === undefined ? null : target.ratio - 1), target?.verdict ?? 'missing', others.length ? others.map((r) => `${r.benchmark} ${r.metric} ${r.verdict}`).join(', ') : 'none', '', '', '', ''];
      log(`${spec.label}: ${inj.tag} (${inj.fn.symbol}) counted ${target?.verdict} ${pct(target?.ratio ? target.ratio - 1 : null)} in ${secs(o.ms)}`);
      if (i < plan.wallRuns) {
        const w = runBenchbot(pair(inj.tag), [], work);
        const rounds = roundsOf(w);
        const metric = wallMetric(w.rows) ?? 'real_time';
        const peers = peerCalls(w, metric, benchstat, work);
        const wallRow = [...metricRows(w.rows, metric).values()].find((r) => isBenchmark(r.benchmark, inj.fn));
        const call = (m: Map<string, Call> | null) => (m === null ? 'n/a' : [...m].find(([n]) => isBenchmark(n, inj.fn))?.[1] ?? 'missing');
        wallFound.n += 1;
        if (wallRow?.verdict === 'regressed') wallFound.benchbot += 1;
        if (call(peers.benchstat) === 'regressed') wallFound.benchstat += 1;
        if (call(peers.comparePy) === 'regressed') wallFound.comparePy += 1;
        if (call(peers.oneRun) === 'regressed') wallFound.oneRun += 1;
        cells[4] = `${wallRow?.verdict ?? 'missing'} ${pct(wallRow?.ratio ? wallRow.ratio - 1 : null, 1)} (${rounds} rounds, ${secs(w.ms)})`;
        cells[5] = call(peers.benchstat);
        cells[6] = `${call(peers.comparePy)} / ${call(peers.oneRun)}`;
        log(`${spec.label}: ${inj.tag} wall time alone ${wallRow?.verdict} in ${secs(w.ms)}`);
      }
    }
    let whereCell = '';
    if (i < plan.whereRuns) {
      // The counted run's own report profiles what regressed; `benchbot profile` for injections not run end to end.
      const p = i < plan.injectRuns ? whereOf(lastProfiles, inj.fn) : runProfile(pair(inj.tag), inj.fn);
      whereN += 1;
      if (p.ok) whereOk += 1;
      whereCell = p.text;
      log(`${spec.label}: ${inj.tag} where: ${p.text}`);
    }
    out(`| ${inj.tag} | \`${inj.fn.symbol}\` (${inj.where}) | ${inj.iterations} | ${cells[0]} | ${cells[1]} | ${cells[2]} | ${whereCell} | ${cells[4]} | ${cells[5]} | ${cells[6]} |`);
  }
  // Draws from the injected runs' repeats up to plan.suites, judged by the CLI's rule.
  const extra = Math.max(0, plan.suites - plan.injectRuns);
  let drawnFound = 0;
  let drawnInjFalse = 0;
  if (extra > 0 && plan.injectRuns > 0) {
    const rng = xoshiro128(7);
    for (let s = 0; s < extra; s++) {
      const inj = prepared.injections[s % plan.injectRuns];
      const mine = [...injPools].filter(([k]) => k.startsWith(`${inj.tag}\t`));
      const draws = drawSuites(1, new Map(mine.map(([k, v]) => [k, v])), Math.floor(rng() * 2 ** 31));
      let hit = false;
      let falseHit = false;
      for (const [k, v] of draws) {
        const isTarget = injPools.get(k)?.target;
        if (isTarget && v[0] === 'regressed') hit = true;
        if (!isTarget && changed(v[0])) falseHit = true;
      }
      if (hit) drawnFound += 1;
      if (falseHit) drawnInjFalse += 1;
    }
  }
  const injTotal = plan.injectRuns + extra;
  if (injecting) {
    out();
    out(`Found: ${found}/${plan.injectRuns} end-to-end runs${extra ? ` + ${drawnFound}/${extra} suites drawn from their repeats` : ''}; suites with another row called changed: ${injectFalse}${extra ? ` + ${drawnInjFalse}` : ''}. ` +
      `Counted runs took ${secs(injectMs.reduce((a, b) => a + b, 0) / Math.max(1, injectMs.length))} each (build included on first use of a commit).`);
    if (wallFound.n) out(`Wall time alone in about the same time per run found it in: benchbot ${wallFound.benchbot}/${wallFound.n}, benchstat ${benchstat ? `${wallFound.benchstat}/${wallFound.n}` : 'n/a'}, compare.py U test ${wallFound.comparePy}/${wallFound.n}, one-run 5% rule ${wallFound.oneRun}/${wallFound.n}.`);
    out();
    result.targets.push({ name: `injected +1% found in >= ${Math.ceil(injTotal * 39 / 40)}/${injTotal} with <= 3 repeats per side`, met: found + drawnFound >= Math.ceil(injTotal * 39 / 40) && injectFalse + drawnInjFalse === 0, detail: `${found + drawnFound}/${injTotal} (${plan.injectRuns} end to end), ${injectFalse + drawnInjFalse} with another row changed` });
    result.targets.push({ name: `where names the injected function first with >= 80% in >= ${Math.ceil(whereN * 0.9)}/${whereN}`, met: whereN > 0 && whereOk >= Math.ceil(whereN * 0.9), detail: `${whereOk}/${whereN}` });
  }

  // Layout: instructions unchanged; when wall time moved, the report says which kind of change it was.
  let layoutSame = 0;
  let wallMoved = 0;
  let explained = 0;
  if (plan.layoutRuns > 0) {
    out('Layout-only commits (an unrelated padding function grown; instructions should not change; `run --instructions` with its wall-time rounds as shipped):');
    out();
    out('| commit | padding | instruction rows unchanged | wall time rows moved (benchbot) | the report says which kind |');
    out('| --- | --- | --- | --- | --- |');
  }
  for (let i = 0; i < plan.layoutRuns; i++) {
    const lay = prepared.layouts[i];
    // Wall rounds as `run` would take them by default (10, adaptive to 40), so a layout effect can show.
    const o = runBenchbot(pair(lay.tag), ['--instructions', '--instructions-repeats', String(REPEATS), '--max-runs', '20', ...(plan.filter ? ['--instructions-filter', plan.filter] : [])], work);
    const instr = [...metricRows(o.rows, 'instructions').values()];
    const same = instr.length > 0 && instr.every((r) => r.verdict === 'unchanged');
    if (same) layoutSame += 1;
    const metric = wallMetric(o.rows) ?? 'real_time';
    const moved = [...metricRows(o.rows, metric).values()].filter((r) => changed(r.verdict));
    let says = '';
    if (moved.length) {
      wallMoved += 1;
      // What a person reads: the PR comment's words for a time that moved without the work.
      const mentions = /changed without its code doing (more|less) work/.test(o.markdown);
      if (mentions) explained += 1;
      says = mentions ? 'yes' : 'NO';
    }
    out(`| ${lay.tag} | ${lay.bytes} bytes | ${instr.filter((r) => r.verdict === 'unchanged').length}/${instr.length} | ${moved.map((r) => `${r.benchmark} ${pct(r.ratio ? r.ratio - 1 : null, 1)}`).join(', ') || 'none'} | ${says} |`);
    log(`${spec.label}: ${lay.tag} instructions ${same ? 'unchanged' : 'CHANGED'}, wall moved on ${moved.length} in ${secs(o.ms)}`);
  }
  if (plan.layoutRuns === 0) return result;
  out();
  result.targets.push({ name: `layout: instructions unchanged in >= ${Math.ceil(plan.layoutRuns * 0.9)}/${plan.layoutRuns}`, met: layoutSame >= Math.ceil(plan.layoutRuns * 0.9), detail: `${layoutSame}/${plan.layoutRuns}` });
  result.targets.push({ name: 'layout: whenever wall time moved, the report says which kind of change', met: explained === wallMoved, detail: `wall time moved in ${wallMoved}, explained in ${explained}` });
  return result;
}

/** roundsOf is the wall-time rounds per side a run measured (the most samples of any benchmark on the base side). */
function roundsOf(o: RunOutcome): number {
  return Math.max(0, ...[...o.samples.base].filter(([k]) => !/\t(instructions|estimated_cycles)$/.test(k)).map(([, v]) => v.length));
}

/** whereOf reads the injected benchmark's differential profile in a run's JSON report. */
function whereOf(profiles: readonly JsonProfile[], fn: WorkFunction): { ok: boolean; text: string } {
  const diff = profiles.find((p) => isBenchmark(p.benchmark, fn));
  if (!diff) return { ok: false, text: 'no profile in the report' };
  return judgeWhere(diff.self?.[0], fn);
}

function judgeWhere(first: { name: string; share: number | null } | undefined, fn: WorkFunction): { ok: boolean; text: string } {
  if (!first) return { ok: false, text: 'no function changed' };
  const ok = fn.pattern.test(first.name) && (first.share ?? 0) >= 0.8;
  return { ok, text: `\`${first.name.slice(0, 60)}\` ${pct(first.share, 1)}${ok ? '' : ' (WRONG)'}` };
}

/** runProfile runs `benchbot profile` for the injected benchmark and checks the first function and its share. */
function runProfile(p: Pair, fn: WorkFunction): { ok: boolean; text: string } {
  const args = ['profile', '--repo', p.repo, '--base', p.base, '--head', p.head, '--bench', p.spec.bench, '--build', p.spec.build, '--benchmark', fn.benchmark, '--output', 'json'];
  const cli = benchbot(args, p.env);
  if (cli.status !== 0) return { ok: false, text: `profile exit ${cli.status}: ${cli.stderr.trim().split('\n').at(-1)?.slice(0, 160)}` };
  const diff = JSON.parse(cli.stdout) as JsonProfile;
  return judgeWhere(diff.self?.[0], fn);
}

// ---------------------------------------------------------------- main

export interface BenchOptions {
  quick: boolean;
  harnesses: Harness[];
  real: boolean;
  /** merge reads parts written by earlier `--part` runs instead of measuring (a run split across processes by hand). */
  merge?: string[];
}

/** HarnessPart is what one harness's bench writes for the whole report. */
interface HarnessPart {
  label: string;
  lines: string[];
  targets: { name: string; met: boolean | null; detail: string }[];
}

function benchOneHarness(harness: Harness, plan: Plan, work: string, benchstat: string | null, log: (line: string) => void): HarnessPart {
  try {
    return benchHarness(harness, plan, work, benchstat, log);
  } catch (error) {
    const message = (error as Error).message;
    return { label: SUITES[harness].label, lines: [`### ${SUITES[harness].label}`, '', `Failed: ${message.slice(0, 1500)}`, ''], targets: [{ name: 'all', met: false, detail: `the bench failed: ${message.split('\n')[0].slice(0, 200)}` }] };
  }
}

/** benchReal runs the parts on code nobody here wrote: the demo's merge #14 and its cost, a Go library's A/A (the Python library's is the part `python`). */
function benchReal(work: string, log: (line: string) => void): HarnessPart {
  const part: HarnessPart = { label: 'real projects', lines: ['## Real code nobody here wrote', ''], targets: [] };
  for (const [name, run] of [['demo', benchDemo], ['Go library', benchGoBtree]] as const) {
    try {
      const r = run(work, log);
      part.lines.push(...r.lines);
      part.targets.push(...r.targets.map((t) => ({ ...t, name: t.name })));
    } catch (error) {
      const message = (error as Error).message;
      part.lines.push(`### ${name}`, '', `Failed: ${message.slice(0, 1500)}`, '');
      part.targets.push({ name, met: false, detail: `the bench failed: ${message.split('\n')[0].slice(0, 200)}` });
    }
  }
  return part;
}

/**
 * partsInParallel runs each harness's bench in a process of its own, all at
 * once: valgrind runs one thread, so on 2 cores two harnesses take the time of one.
 */
async function partsInParallel(harnesses: readonly (Harness | 'real' | 'python')[], work: string): Promise<HarnessPart[]> {
  const self = fileURLToPath(import.meta.url);
  return Promise.all(harnesses.map((harness) => new Promise<HarnessPart>((resolve) => {
    const part = join(work, `part-${harness}.json`);
    // benchbot's machine lock keeps two wall-time runs apart; the parts would only queue on it, so each has its own.
    const env = { ...process.env, BENCHBOT_LOCK: join(work, `machine-${harness}.lock`) };
    const child = spawn(process.execPath, [self, '--harness', harness, '--part', part], { stdio: ['ignore', 'ignore', 'inherit'], env });
    child.on('close', (code) => {
      try {
        resolve(JSON.parse(readFileSync(part, 'utf8')) as HarnessPart);
      } catch {
        const label = harness === 'real' ? 'real projects' : harness === 'python' ? 'Python library' : SUITES[harness].label;
        resolve({ label, lines: [`### ${label}`, '', `Failed: its bench process exited ${code} without a result`, ''], targets: [{ name: 'all', met: false, detail: `bench process exit ${code}` }] });
      }
    });
  })));
}

export async function benchInstructions(options: BenchOptions, log: (line: string) => void = (l) => process.stderr.write(`${l}\n`)): Promise<string[]> {
  const plan = options.quick ? QUICK_PLAN : FULL_PLAN;
  const work = makeTempDir('benchbot-instr-bench-');
  const start = Date.now();
  const found = findBenchstat();
  const benchstat = 'path' in found ? found.path : null;
  const lines: string[] = [];
  const perf = spawnSync('perf', ['stat', '-e', 'instructions,cycles', 'true'], { encoding: 'utf8' });
  const perfText = perf.error ? `perf is not installed (${perf.error.message})` : /not supported|<not counted>/.test(perf.stderr) ? '`perf stat -e instructions,cycles true` prints `<not supported>`: no PMU on this VM' : perf.status === 0 ? 'perf stat counts here' : `perf stat failed: ${perf.stderr.trim().split('\n')[0]}`;
  lines.push(`# Instruction counts: issue 23's targets on this machine (${options.quick ? 'quick' : 'full'} run)`);
  lines.push('');
  lines.push(`Machine: ${cpus().length} cores (${cpus()[0]?.model ?? 'unknown'}), load average ${options.merge ? 'when merged' : 'at start'} ${loadavg().map((l) => l.toFixed(2)).join(' ')}; ${spawnSync('valgrind', ['--version'], { encoding: 'utf8' }).stdout.trim()}. ` +
    `perf: ${perfText}, so \`perf stat\` is not among the alternatives. benchstat: ${benchstat ?? ('skip' in found ? found.skip : 'n/a')}.`);
  lines.push(`Plan per harness: ${plan.aaRuns} A/A and ${plan.injectRuns} injected \`run --instructions\` end to end (3 repeats per side), ${plan.suites} suites judged per target, ${plan.whereRuns} \`profile\`, ${plan.layoutRuns} layout runs, ${plan.wallRuns} wall-time-alone runs per case${plan.filter ? `; counting narrowed to ${plan.filter}` : ''}.`);
  lines.push('');
  const parts = options.merge
    ? options.merge.map((file) => JSON.parse(readFileSync(file, 'utf8')) as HarnessPart)
    : options.harnesses.length > 1 && !options.quick
      ? await partsInParallel([...options.harnesses, ...(options.real ? ['real' as const, 'python' as const] : [])], work)
      : [...options.harnesses.map((h) => benchOneHarness(h, plan, work, benchstat, log)), ...(options.real ? [benchReal(work, log), benchPython(work, log)] : [])];
  const summary: string[] = ['| harness | target | met | numbers |', '| --- | --- | --- | --- |'];
  for (const part of parts) {
    lines.push(...part.lines);
    for (const t of part.targets) summary.push(`| ${part.label} | ${t.name} | ${t.met === null ? 'n/a' : t.met ? 'yes' : '**no**'} | ${t.detail} |`);
  }
  lines.push('## Targets', '', ...summary, '');
  if (options.merge) lines.push(`Merged (\`--merge\`) from parts measured side by side, one process per harness (\`--harness H --part FILE\`, each with its own BENCHBOT_LOCK), as \`npm run bench:instructions\` runs them; load average when merged ${loadavg().map((l) => l.toFixed(2)).join(' ')}.`);
  else lines.push(`Whole run: ${secs(Date.now() - start)} (\`npm run bench:instructions${options.quick ? ' -- --quick' : ''}\`), load average at the end ${loadavg().map((l) => l.toFixed(2)).join(' ')}.`);
  if (!process.env.BENCHBOT_KEEP_WORK) rmSync(work, { recursive: true, force: true });
  return lines;
}

if (import.meta.main) {
  const { values } = parseArgs({ options: { quick: { type: 'boolean' }, save: { type: 'boolean' }, harness: { type: 'string' }, 'no-real': { type: 'boolean' }, part: { type: 'string' }, merge: { type: 'string' } } });
  const named = values.harness?.split(',') ?? [...HARNESSES];
  for (const h of named) if (!HARNESSES.includes(h as Harness) && h !== 'real' && h !== 'python') throw new Error(`--harness ${h}: one of ${HARNESSES.join(', ')}, real (python: its Python part alone)`);
  const harnesses = named.filter((h) => h !== 'real' && h !== 'python') as Harness[];
  if (values.part !== undefined) {
    // One harness of a parallel run (partsInParallel): its part of the report as JSON.
    const work = makeTempDir(`benchbot-instr-${named[0]}-`);
    const found = findBenchstat();
    const log = (l: string) => process.stderr.write(`${l}\n`);
    // BENCHBOT_INSTR_PLAN (JSON, fields of Plan) shrinks one part's plan when the time left is short.
    const plan = { ...(values.quick ? QUICK_PLAN : FULL_PLAN), ...(process.env.BENCHBOT_INSTR_PLAN ? JSON.parse(process.env.BENCHBOT_INSTR_PLAN) as Partial<Plan> : {}) };
    const part = named[0] === 'real' ? benchReal(work, log) : named[0] === 'python' ? benchPython(work, log) : benchOneHarness(harnesses[0], plan, work, 'path' in found ? found.path : null, log);
    if (plan.injectRuns === 0 && plan.whereRuns === 0 && plan.layoutRuns > 0 && part.lines[0]?.startsWith('### ')) {
      // Layout runs added to an earlier part of the same harness: the merged report tells the two apart.
      part.label += ' (layout runs)';
      part.lines[0] += ' (layout runs, a part of their own)';
    }
    writeFileSync(values.part, JSON.stringify(part));
    if (!process.env.BENCHBOT_KEEP_WORK) rmSync(work, { recursive: true, force: true });
  } else {
    const lines = await benchInstructions({
      quick: values.quick === true,
      harnesses: values.quick && values.harness === undefined ? ['cpp'] : harnesses,
      real: values['no-real'] !== true && values.quick !== true && (values.harness === undefined || named.includes('real')),
      ...(values.merge ? { merge: values.merge.split(',') } : {}),
    });
    const text = `${lines.join('\n')}\n`;
    process.stdout.write(text);
    if (values.save && values.quick) process.stderr.write('--quick: not saved (bench/results/instructions.md holds the full run)\n');
    else if (values.save) {
      mkdirSync(join(RESULTS, '..'), { recursive: true });
      writeFileSync(RESULTS, text);
    }
  }
}
