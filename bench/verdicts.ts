// `npm run bench:verdicts`: do benchbot's verdicts decide, on this machine,
// with real runs? (issue 11)
//
// Three scenarios on the demo repository (scripts/make-demo-repo.sh), each
// run BENCHBOT_VERDICT_RUNS (default 10) times with the real CLI,
// `benchbot run` with its default settings, the scenarios interleaved so
// that each sees the same stretches of machine load:
//
//   10%  demo-base vs demo-head: merge #14 makes BM_RecordHash ~10% slower
//   5%   demo-base vs a variant of #14 that hashes the first 5% twice
//   A/A  demo-base vs a commit that only edits the README (same code, own build)
//
// Every run uses one store, as a real runner does, so the machine's noise
// memory grows run by run. For each scenario it prints what benchbot said
// (regression found, false regressions, unchanged comparisons decided
// unchanged at 2%, the median bound stated for the undecided, rounds per
// side, wall time), and on the same raw rounds what Google Benchmark's
// compare.py U test (alpha 0.05, its gbench module from Debian's
// libbenchmark-tools), benchstat and a 5% median-ratio rule say. Then it
// replays every run's looks from its stored rounds with the store's earlier
// rounds of demo-base pooled into the base side, to measure what pooling
// buys and whether it keeps the false-alarm target.
import { execFile, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Comparison } from '../src/model/comparison.ts';
import type { Measurement } from '../src/model/measurement.ts';
import { applyLook } from '../src/compare/adaptive-stop.ts';
import { compareRuns, poolMeasurements } from '../src/compare/compare-runs.ts';
import { poolBase } from '../src/compare/pool-base.ts';
import { suggestedThreshold } from '../src/compare/power.ts';
import type { ThresholdRule } from '../src/compare/thresholds.ts';
import { DEFAULT_POOL_BASE } from '../src/runner/run-ab.ts';
import { normalQuantile } from '../src/stats/normal.ts';
import { lookSchedule } from '../src/compare/round-schedule.ts';
import { DEFAULT_LOOKS, lookLevels } from '../src/stats/sequential-alpha.ts';
import { median } from '../src/stats/order-statistics.ts';
import { openStore } from '../src/store/open-store.ts';
import { loadNoiseMemory } from '../src/store/noise-memory.ts';
import type { StoredRun } from '../src/store/store.ts';
import { findBenchstat, goBenchText, parseBenchstatCsv, thresholdCall, type Call } from './quality.ts';
import { makeDemoRepo } from './demo-verdicts.ts';

const SLOWED = 'BM_RecordHash/65536';
/**
 * SUITE keeps the demo suite small enough that 30 real runs fit in about 25
 * minutes on a 2-core machine: the changed benchmark and the suite's first
 * three (BM_SortInts is among the noisiest of the six on this machine, so
 * the subset is not the quiet half). BENCHBOT_VERDICT_SUITE='.' runs all six.
 */
const SUITE = process.env.BENCHBOT_VERDICT_SUITE ?? 'BM_(RecordHash|VectorSum|SortInts|StringBuild)';
const BIN = fileURLToPath(new URL('../bin/benchbot.js', import.meta.url));
const GBENCH = '/usr/share/benchmark';

/** Scenario is one pull request of the demo repository and what it really changed. */
export interface Scenario {
  name: string;
  head: string;
  /** slowed is the benchmark the change made slower, null for A/A. */
  slowed: string | null;
}

/** RunRecord is one real `benchbot run`: its JSON report, its stored rounds and how long it took. */
export interface RunRecord {
  scenario: string;
  report: { comparisons: JsonComparison[]; rounds_per_side: number; max_rounds_per_side: number; looks: { roundsPerSide: number }[] };
  base: Measurement[];
  head: Measurement[];
  seconds: number;
  exitCode: number;
}

/** JsonComparison is the part of the JSON report's comparison this bench reads. */
interface JsonComparison {
  benchmark: string;
  metric: string;
  verdict: string;
  family?: string;
  decision?: string;
  bound?: number;
  ratio: number | null;
  detectable?: number;
  suggested_threshold?: number;
}

/**
 * makeScenarios adds the 5% variant and the A/A commit to a fresh demo
 * repository (authors and dates fixed, so their SHAs are stable) and returns
 * the three scenarios.
 */
export function makeScenarios(repo: string): Scenario[] {
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_DATE: '1709600000 +0000', GIT_COMMITTER_DATE: '1709600000 +0000' };
  const git = (...args: string[]) => {
    const r = spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8', env });
    if (r.status !== 0) throw new Error(`git ${args.join(' ')}: ${r.stderr}`);
    return r.stdout.trim();
  };
  const edit = (path: string, change: (text: string) => string) => {
    const file = join(repo, path);
    writeFileSync(file, change(spawnSync('cat', [file], { encoding: 'utf8' }).stdout));
  };
  // The 5% variant: #14 with the header a twentieth of the record instead of a tenth.
  git('checkout', '-q', '-B', 'variant-5', 'demo-head');
  edit('src/hash.cpp', (t) => t.replace('kHeaderFraction = 10;', 'kHeaderFraction = 20;'));
  git('commit', '-q', '-am', 'hash: header digest over the first twentieth');
  git('tag', '-f', 'demo-head-5');
  // A/A: the base's code under another SHA and tree, so it is built again.
  git('checkout', '-q', '-B', 'readme-only', 'demo-base');
  edit('README.md', (t) => `${t}\nBenchmarks run on every pull request.\n`);
  git('commit', '-q', '-am', 'README: mention the benchmarks');
  git('tag', '-f', 'demo-aa');
  git('checkout', '-q', 'main');
  return [
    { name: '10% slower', head: 'demo-head', slowed: SLOWED },
    { name: '5% slower', head: 'demo-head-5', slowed: SLOWED },
    { name: 'A/A', head: 'demo-aa', slowed: null },
  ];
}

/** runOnce makes one real `benchbot run` of a scenario with default settings and reads its stored rounds back. */
export async function runOnce(repo: string, storePath: string, scenario: Scenario, extra: string[] = []): Promise<RunRecord> {
  const started = process.hrtime.bigint();
  // The load guard's default (0.5 + 10% of the cores) suits a dedicated runner; this VM is shared (as npm run demo).
  const args = [BIN, 'run', '--repo', repo, '--base', 'demo-base', '--head', scenario.head, '--build', 'make -s', '--bench', `./bench.sh '--benchmark_filter=${SUITE}'`, '--store', storePath, '--max-load', '1000', '--output', 'json', ...extra];
  const run = spawnSync(process.execPath, args, { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024, env: { ...process.env, GITHUB_ACTIONS: '' } });
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (run.status !== 0 && run.status !== 1) throw new Error(`benchbot run (${scenario.name}) exited ${run.status}: ${run.stderr.slice(-2000)}`);
  const report = JSON.parse(run.stdout) as RunRecord['report'] & { base_sha: string; head_sha: string };
  const store = await openStore(storePath, { cwd: repo });
  try {
    const [headRun, baseRun] = await Promise.all(['head', 'base'].map(async (role) => {
      const [latest] = await store.listRuns({ role: role as 'base' | 'head', sha: role === 'base' ? report.base_sha : report.head_sha, limit: 1 });
      return (await store.getRun(latest.id)) as StoredRun;
    }));
    return { scenario: scenario.name, report, base: baseRun.measurements, head: headRun.measurements, seconds, exitCode: run.status };
  } finally {
    await store.close();
  }
}

/** primaryOf picks the primary comparisons of a report (one per benchmark). */
const primaryOf = (cs: readonly JsonComparison[]) => cs.filter((c) => c.family !== 'secondary');

/** ScenarioTally is what one scenario's runs said. */
interface ScenarioTally {
  runs: number;
  found: number;
  falseRegressionRuns: number;
  falseImprovementRuns: number;
  unchangedPrimary: number;
  decidedUnchangedPrimary: number;
  unchangedAll: number;
  decidedUnchangedAll: number;
  undecidedBounds: number[];
  unbounded: number;
  rounds: number[];
  seconds: number[];
}

function tallyRuns(scenario: Scenario, records: readonly RunRecord[]): ScenarioTally {
  const t: ScenarioTally = { runs: records.length, found: 0, falseRegressionRuns: 0, falseImprovementRuns: 0, unchangedPrimary: 0, decidedUnchangedPrimary: 0, unchangedAll: 0, decidedUnchangedAll: 0, undecidedBounds: [], unbounded: 0, rounds: [], seconds: [] };
  for (const r of records) {
    const cs = r.report.comparisons;
    const slowed = primaryOf(cs).find((c) => c.benchmark === scenario.slowed);
    if (slowed?.verdict === 'regressed') t.found += 1;
    const others = cs.filter((c) => c.benchmark !== scenario.slowed);
    if (others.some((c) => c.verdict === 'regressed')) t.falseRegressionRuns += 1;
    if (others.some((c) => c.verdict === 'improved')) t.falseImprovementRuns += 1;
    for (const c of others) {
      const primary = c.family !== 'secondary';
      t.unchangedAll += 1;
      if (primary) t.unchangedPrimary += 1;
      if (c.verdict === 'unchanged') {
        t.decidedUnchangedAll += 1;
        if (primary) t.decidedUnchangedPrimary += 1;
      } else if (primary) {
        if (c.bound !== undefined && Number.isFinite(c.bound)) t.undecidedBounds.push(c.bound);
        else t.unbounded += 1;
      }
    }
    t.rounds.push(r.report.rounds_per_side);
    t.seconds.push(r.seconds);
  }
  return t;
}

/** comparePyPValues runs compare.py's own U test (gbench.report, utest=True) on one run's rounds: benchmark -> real and cpu p-values. */
function comparePyPValues(record: RunRecord): Map<string, { time: number | null; cpu: number | null }> {
  const doc = (ms: Measurement[]) => {
    const byName = new Map<string, { real?: number[]; cpu?: number[]; unit: string }>();
    for (const m of ms) {
      if (m.metric !== 'real_time' && m.metric !== 'cpu_time') continue;
      const entry = byName.get(m.benchmark) ?? { unit: m.unit };
      entry[m.metric === 'real_time' ? 'real' : 'cpu'] = m.values;
      byName.set(m.benchmark, entry);
    }
    const benchmarks = [...byName].flatMap(([name, e]) => (e.real ?? []).map((real, i) => ({ name, run_name: name, run_type: 'iteration', repetitions: e.real?.length, repetition_index: i, iterations: 1, real_time: real, cpu_time: e.cpu?.[i] ?? real, time_unit: e.unit })));
    return { context: {}, benchmarks };
  };
  const script = `
import json, sys
sys.path.insert(0, ${JSON.stringify(GBENCH)})
from gbench import report
d = json.load(sys.stdin)
out = {}
for row in report.get_difference_report(d["base"], d["head"], utest=True):
    u = row["utest"]
    out[row["name"]] = {"time": u.get("time_pvalue"), "cpu": u.get("cpu_pvalue")}
print(json.dumps(out))
`;
  const run = spawnSync('python3', ['-c', script], { input: JSON.stringify({ base: doc(record.base), head: doc(record.head) }), encoding: 'utf8' });
  if (run.status !== 0) throw new Error(`compare.py's gbench module failed (install libbenchmark-tools and scipy): ${run.stderr}`);
  return new Map(Object.entries(JSON.parse(run.stdout) as Record<string, { time: number | null; cpu: number | null }>));
}

/** benchstatCalls runs real benchstat on every run's rounds of one metric at once: run index -> benchmark -> call. */
async function benchstatCalls(binary: string, records: readonly RunRecord[], metric: string): Promise<Map<string, Call>[]> {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-verdicts-'));
  try {
    const rows = (side: 'base' | 'head') => records.flatMap((r, i) => r[side].filter((m) => m.metric === metric).map((m) => ({ name: `R${i}x${m.benchmark.replace(/[^A-Za-z0-9]/g, '')}`, values: m.values })));
    writeFileSync(join(dir, 'base.txt'), goBenchText(rows('base')));
    writeFileSync(join(dir, 'head.txt'), goBenchText(rows('head')));
    const csv = await new Promise<string>((ok, fail) => execFile(binary, ['-format', 'csv', 'base.txt', 'head.txt'], { cwd: dir, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 }, (e, out) => (e ? fail(e) : ok(out))));
    const calls = parseBenchstatCsv(csv);
    return records.map((r, i) => new Map(r.base.filter((m) => m.metric === metric).map((m) => [m.benchmark, calls.get(`R${i}x${m.benchmark.replace(/[^A-Za-z0-9]/g, '')}`) ?? 'none'])));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** PeerTally counts one peer rule's calls over one scenario's runs. */
interface PeerTally {
  found: number;
  falseRuns: number;
  flaggedUnchanged: number;
  unchanged: number;
}

function tallyPeer(scenario: Scenario, records: readonly RunRecord[], call: (r: RunRecord, i: number, benchmark: string) => Call): PeerTally {
  const t: PeerTally = { found: 0, falseRuns: 0, flaggedUnchanged: 0, unchanged: 0 };
  records.forEach((r, i) => {
    const names = [...new Set(r.base.map((m) => m.benchmark))];
    if (scenario.slowed !== null && call(r, i, scenario.slowed) === 'regressed') t.found += 1;
    let alarm = false;
    for (const b of names.filter((n) => n !== scenario.slowed)) {
      t.unchanged += 1;
      if (call(r, i, b) !== 'none') {
        t.flaggedUnchanged += 1;
        alarm = true;
      }
    }
    if (alarm) t.falseRuns += 1;
  });
  return t;
}

const valuesOf = (ms: readonly Measurement[], benchmark: string, metric: string) => ms.find((m) => m.benchmark === benchmark && m.metric === metric)?.values ?? [];

/** Design is what a replay changes: the budget, the futility threshold, per-benchmark thresholds. */
interface Design {
  maxRounds?: number;
  futilityPower?: number;
  rules?: ThresholdRule[];
}

/**
 * ReplayOutcome is benchbot's adaptive procedure re-run on a run's stored
 * rounds (looks on prefixes, in round order), optionally with stored base
 * rounds pooled in; `short` when it wanted more rounds than the run had.
 */
interface ReplayOutcome {
  comparisons: Comparison[];
  rounds: number;
  short: boolean;
}

/**
 * replay re-runs the looks of one run on its rounds, as runAb does (default
 * settings: threshold 2%, alpha 0.05), optionally with another budget or
 * futility threshold (both can only stop a run earlier than it ran).
 */
export function replay(record: RunRecord, stored: readonly Measurement[], design: Design = {}): ReplayOutcome {
  const max = design.maxRounds ?? record.report.max_rounds_per_side;
  const looks = lookSchedule(10, max, DEFAULT_LOOKS);
  const { difference: alphas, equivalence: eqAlphas } = lookLevels(0.05, looks);
  const available = Math.min(...record.base.concat(record.head).map((m) => m.values.length));
  let settled = new Map<string, Comparison>();
  let comparisons: Comparison[] = [];
  const primary = new Map<string, string>();
  for (let k = 0; k < looks.length; k++) {
    const n = looks[k];
    if (n > available) return { comparisons, rounds: looks[k - 1] ?? 0, short: true };
    const cut = (ms: readonly Measurement[]) => poolMeasurements(ms).map((m) => ({ ...m, values: m.values.slice(0, n) }));
    let base = cut(record.base);
    if (stored.length > 0) base = poolBase(base, stored, { threshold: () => 0.02 }).measurements;
    const fresh = compareRuns({ measurements: base, warnings: [], hints: {} }, { measurements: cut(record.head), warnings: [], hints: {} }, { threshold: 0.02, alpha: alphas[k], equivalenceAlpha: eqAlphas[k], rules: design.rules ?? [], primary });
    for (const c of fresh.comparisons) if (c.family === 'primary' && !primary.has(c.benchmark)) primary.set(c.benchmark, c.metric);
    const look = applyLook(fresh, settled, { roundsPerSide: n, maxRoundsPerSide: max, alpha: alphas[k], lastAlpha: alphas[alphas.length - 1], equivalenceAlpha: eqAlphas[k], lastEquivalenceAlpha: eqAlphas[eqAlphas.length - 1], last: k === looks.length - 1, futilityPower: design.futilityPower });
    settled = look.settled;
    comparisons = look.report.comparisons;
    if (look.stop) return { comparisons, rounds: n, short: false };
  }
  return { comparisons, rounds: looks[looks.length - 1], short: false };
}

const pct = (k: number, n: number) => (n === 0 ? 'n/a' : `${((100 * k) / n).toFixed(0)}%`);
const fmtPct = (x: number | undefined) => (x === undefined || !Number.isFinite(x) ? 'n/a' : `${(100 * x).toFixed(1)}%`);

/** Capture is everything the runs produced, saved before the analysis so it can be re-analysed. */
export interface Capture {
  runsPerScenario: number;
  scenarios: Scenario[];
  order: { scenario: string; record: RunRecord }[];
  loads: number[];
  machine: string[];
  /** memory is the store's noise memory after the runs: `benchmark\u0000metric` -> sigma and rounds. */
  memory: Record<string, { sigma: number; rounds: number }>;
  minutes: number;
}

/** captureVerdicts makes the real runs and reads the machine's memory at the end. */
export async function captureVerdicts(runsPerScenario = Number(process.env.BENCHBOT_VERDICT_RUNS ?? 10)): Promise<Capture> {
  const started = Date.now();
  const repo = makeDemoRepo();
  const scenarios = makeScenarios(repo);
  const storePath = join(repo, '..', 'benchbot.db');
  const order: Capture['order'] = [];
  const loads: number[] = [];
  for (let i = 0; i < runsPerScenario; i++) {
    for (const scenario of scenarios) {
      const record = await runOnce(repo, storePath, scenario);
      order.push({ scenario: scenario.name, record });
      loads.push(Number(spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ')[0]));
      const slowed = record.report.comparisons.find((c) => c.benchmark === scenario.slowed && c.family !== 'secondary');
      process.stderr.write(`run ${i + 1}/${runsPerScenario} ${scenario.name}: ${record.report.rounds_per_side} rounds per side, ${record.seconds.toFixed(0)} s${slowed ? `, ${scenario.slowed} ${slowed.verdict}` : ''}\n`);
    }
  }
  const store = await openStore(storePath, { cwd: repo });
  let memory: Capture['memory'] = {};
  try {
    const fingerprint = (await store.getRun((await store.listRuns({ limit: 1 }))[0].id))?.fingerprint;
    if (fingerprint) memory = Object.fromEntries([...(await loadNoiseMemory(store, fingerprint, repo))].map(([k, r]) => [k, { sigma: r.sigma, rounds: r.rounds }]));
  } finally {
    await store.close();
  }
  rmSync(join(repo, '..'), { recursive: true, force: true });
  const machine = spawnSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2; nproc"], { encoding: 'utf8' }).stdout.trim().split('\n');
  return { runsPerScenario, scenarios, order, loads, machine, memory, minutes: (Date.now() - started) / 60000 };
}

/** analyseVerdicts prints the tables of one capture. */
export async function analyseVerdicts(capture: Capture): Promise<string[]> {
  const { runsPerScenario, scenarios, loads } = capture;
  const byName = new Map(scenarios.map((s) => [s.name, s]));
  const order = capture.order.map((o) => ({ scenario: byName.get(o.scenario) as Scenario, record: o.record }));
  const records = new Map<string, RunRecord[]>(scenarios.map((s) => [s.name, order.filter((o) => o.scenario.name === s.name).map((o) => o.record)]));
  const memoryAtEnd = new Map(Object.entries(capture.memory));
  const machine = capture.machine;
  const all = [...records.values()].flat();
  const sortedLoads = [...loads].sort((a, b) => a - b);
  const lines = [
    `## Verdicts on real runs (bench:verdicts): ${runsPerScenario} \`benchbot run\`s per scenario, default settings`,
    '',
    `Machine: ${machine[0]?.trim()}, ${machine[1]} cores, shared with other jobs (1-minute load average after the runs: ${sortedLoads[0]}-${sortedLoads.at(-1)}, median ${median(sortedLoads)}). Demo repository: ${new Set(all.flatMap((r) => r.base.map((m) => m.benchmark))).size} Google Benchmark benchmarks (${[...new Set(all.flatMap((r) => r.base.map((m) => m.benchmark)))].join(', ')}), real_time and cpu_time each.`,
    '',
    '### benchbot',
    '',
    '| scenario | regression found | runs with a false regression | runs with a false improvement | unchanged decided `unchanged` at 2% (primary) | (all metrics) | median bound stated, undecided | unbounded | median rounds per side | median wall time | total |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const s of scenarios) {
    const t = tallyRuns(s, records.get(s.name) ?? []);
    lines.push(
      `| ${s.name} | ${s.slowed === null ? '-' : `${t.found}/${t.runs}`} | ${t.falseRegressionRuns}/${t.runs} | ${t.falseImprovementRuns}/${t.runs} | ${t.decidedUnchangedPrimary}/${t.unchangedPrimary} (${pct(t.decidedUnchangedPrimary, t.unchangedPrimary)}) | ${t.decidedUnchangedAll}/${t.unchangedAll} (${pct(t.decidedUnchangedAll, t.unchangedAll)}) | ${t.undecidedBounds.length > 0 ? `±${fmtPct(median(t.undecidedBounds))} (${t.undecidedBounds.length})` : '-'} | ${t.unbounded} | ${median(t.rounds)} (${Math.min(...t.rounds)}-${Math.max(...t.rounds)}) | ${median(t.seconds).toFixed(0)} s | ${t.seconds.reduce((a, b) => a + b, 0).toFixed(0)} s |`,
    );
  }
  const allTally = scenarios.map((s) => tallyRuns(s, records.get(s.name) ?? []));
  const unchangedPrimary = allTally.reduce((a, t) => a + t.unchangedPrimary, 0);
  const decided = allTally.reduce((a, t) => a + t.decidedUnchangedPrimary, 0);
  const allRounds = all.map((r) => r.report.rounds_per_side);
  lines.push(
    '',
    `Primary metric per benchmark (the FDR family; the other time metric is secondary): ${[...new Set(all.flatMap((r) => primaryOf(r.report.comparisons).map((c) => c.metric)))].join(', ')}; cpu_time was primary in ${all.flatMap((r) => primaryOf(r.report.comparisons)).filter((c) => c.metric === 'cpu_time').length} of ${all.flatMap((r) => primaryOf(r.report.comparisons)).length} primary comparisons.`,
  );

  // Peers on the same raw rounds.
  const found = findBenchstat();
  const binary = 'path' in found ? found.path : null;
  lines.push('', '### Peers on the same rounds', '', 'compare.py = its own U test (gbench.report, utest, p < 0.05, direction from the medians, no multiplicity control); benchstat = real `benchstat -format csv`; 5% rule = |median ratio - 1| > 5%. Found = BM_RecordHash flagged regressed; false = a run where any unchanged benchmark was flagged either way.', '');
  lines.push('| rule | metric | 10% found | 5% found | A/A runs with a false alarm | unchanged benchmarks flagged (all scenarios) |', '| --- | --- | --- | --- | --- | --- |');
  const uCall = (p: number | null | undefined, base: number[], head: number[]): Call => (p === null || p === undefined || p >= 0.05 ? 'none' : median(head) >= median(base) ? 'regressed' : 'improved');
  const pyCache = new Map<RunRecord, Map<string, { time: number | null; cpu: number | null }>>();
  const py = (r: RunRecord) => pyCache.get(r) ?? (pyCache.set(r, comparePyPValues(r)), pyCache.get(r) as Map<string, { time: number | null; cpu: number | null }>);
  for (const metric of ['real_time', 'cpu_time']) {
    const bs = binary === null ? null : new Map(await Promise.all(scenarios.map(async (s) => [s.name, await benchstatCalls(binary, records.get(s.name) ?? [], metric)] as const)));
    const rules: [string, (s: Scenario) => (r: RunRecord, i: number, b: string) => Call][] = [
      ['compare.py U test', () => (r, _i, b) => uCall(py(r).get(b)?.[metric === 'real_time' ? 'time' : 'cpu'], valuesOf(r.base, b, metric), valuesOf(r.head, b, metric))],
      ['5% median rule', () => (r, _i, b) => thresholdCall(valuesOf(r.base, b, metric), valuesOf(r.head, b, metric))],
    ];
    if (bs !== null) rules.push(['benchstat', (s) => (_r, i, b) => bs.get(s.name)?.[i]?.get(b) ?? 'none']);
    for (const [name, rule] of rules) {
      const per = scenarios.map((s) => tallyPeer(s, records.get(s.name) ?? [], rule(s)));
      const flagged = per.reduce((a, t) => a + t.flaggedUnchanged, 0);
      const total = per.reduce((a, t) => a + t.unchanged, 0);
      lines.push(`| ${name} | ${metric} | ${per[0].found}/${runsPerScenario} | ${per[1].found}/${runsPerScenario} | ${per[2].falseRuns}/${runsPerScenario} | ${flagged}/${total} (${pct(flagged, total)}) |`);
    }
  }
  if (binary === null && 'skip' in found) lines.push('', found.skip);

  // Other designs replayed on the same rounds: pooling stored base rounds or not (the store's earlier
  // rounds of demo-base, from every scenario), a smaller budget, a keener futility rule, and the
  // thresholds the machine's memory suggested at the end (what it takes).
  const levels40 = lookLevels(0.05, lookSchedule(10, 40, DEFAULT_LOOKS));
  const suggested = [...new Set(all.flatMap((r) => r.base.map((m) => m.benchmark)))].map((benchmark) => {
    const sigmas = ['real_time', 'cpu_time'].map((metric) => memoryAtEnd.get(`${benchmark}\u0000${metric}`)?.sigma).filter((x): x is number => x !== undefined);
    const sigma = Math.min(...sigmas);
    return { glob: benchmark, threshold: Math.max(0.02, suggestedThreshold(sigma, { maxRoundsPerSide: 20, lastAlpha: levels40.difference[2], lastEquivalenceAlpha: levels40.equivalence[2] })) };
  });
  lines.push('', '### Other designs, replayed on the same rounds', '');
  lines.push(`Each run's looks are re-run on its stored rounds in round order. The runs pooled stored base rounds ${DEFAULT_POOL_BASE ? '(the default)' : '(not the default: off)'}; "pooled": the store's earlier rounds of demo-base (all scenarios) join the base side after the drift check, "not pooled": they do not; "budget 30" / "budget 20": looks at 10, 15, 20(, 30) with the exact levels for that budget; "futility 25%": stop a comparison whose chance of being decided by the budget is below 25% instead of 10%; "machine thresholds": each benchmark's threshold is what the noise memory at the end says an unchanged benchmark is decided unchanged at by 20 rounds per side (at least 2%: ${suggested.map((r) => `${r.glob} ${(r.threshold * 100).toFixed(1)}%`).join(', ')}), scored at those thresholds. A replay wanting more rounds than the run had is counted and scored on its last look.`, '');
  const designs: { label: string; pooled: boolean; design: Design }[] = [
    { label: DEFAULT_POOL_BASE ? 'pooled (as run)' : 'not pooled (as run)', pooled: DEFAULT_POOL_BASE, design: {} },
    { label: DEFAULT_POOL_BASE ? 'not pooled' : 'pooled', pooled: !DEFAULT_POOL_BASE, design: {} },
    { label: 'futility 25%', pooled: DEFAULT_POOL_BASE, design: { futilityPower: 0.25 } },
    { label: 'budget 30', pooled: DEFAULT_POOL_BASE, design: { maxRounds: 30 } },
    { label: 'budget 20', pooled: DEFAULT_POOL_BASE, design: { maxRounds: 20 } },
    { label: 'machine thresholds', pooled: DEFAULT_POOL_BASE, design: { rules: suggested } },
  ];
  const replayRows: string[] = [];
  let reproduced = 0;
  for (const d of designs) {
    for (const s of scenarios) {
      let foundR = 0;
      let falseR = 0;
      let unchangedDecided = 0;
      let unchangedTotal = 0;
      let short = 0;
      const rounds: number[] = [];
      const bounds: number[] = [];
      order.forEach(({ scenario, record }, index) => {
        if (scenario.name !== s.name) return;
        const stored = d.pooled ? order.slice(0, index).flatMap((o) => o.record.base) : [];
        const out = replay(record, stored, d.design);
        if (d.label.endsWith('(as run)')) {
          const same = out.comparisons.every((c) => record.report.comparisons.find((x) => x.benchmark === c.benchmark && x.metric === c.metric)?.verdict === c.verdict);
          if (same && out.rounds === record.report.rounds_per_side) reproduced += 1;
        }
        if (out.short) short += 1;
        rounds.push(out.rounds);
        const primary = out.comparisons.filter((c) => c.family !== 'secondary');
        if (primary.find((c) => c.benchmark === s.slowed)?.verdict === 'regressed') foundR += 1;
        const others = out.comparisons.filter((c) => c.benchmark !== s.slowed);
        if (others.some((c) => c.verdict === 'regressed')) falseR += 1;
        for (const c of others.filter((c) => c.family !== 'secondary')) {
          unchangedTotal += 1;
          if (c.verdict === 'unchanged') unchangedDecided += 1;
          else if (c.bound !== undefined) bounds.push(c.bound);
        }
      });
      replayRows.push(`| ${d.label} | ${s.name} | ${s.slowed === null ? '-' : `${foundR}/${runsPerScenario}`} | ${falseR}/${runsPerScenario} | ${unchangedDecided}/${unchangedTotal} (${pct(unchangedDecided, unchangedTotal)}) | ${bounds.length > 0 ? `±${fmtPct(median(bounds))}` : '-'} | ${median(rounds)} | ${short} |`);
    }
  }
  lines.push('| design | scenario | regression found | runs with a false regression | unchanged decided `unchanged` (primary) | median bound, undecided | median rounds per side | runs short of rounds |', '| --- | --- | --- | --- | --- | --- | --- | --- |', ...replayRows);
  lines.push('', `The replay "as run" reproduced ${reproduced} of ${all.length} runs exactly (verdicts and rounds).`);

  // What it takes: the noise at which an unchanged benchmark settles by 20 rounds per side often enough
  // that a run of them stops by 20 at least half the time (normal approximation, Hodges-Lehmann efficiency 0.955).
  const unchangedPerRun = Math.max(1, median(all.map((r) => primaryOf(r.report.comparisons).filter((c) => c.benchmark !== SLOWED).length)));
  const each = 0.5 ** (1 / unchangedPerRun);
  const z = normalQuantile(1 - levels40.equivalence[2]) + normalQuantile(0.5 + each / 2);
  const sigmaNeeded = 0.02 / (z * Math.sqrt(2 / 20) / Math.sqrt(0.955));
  const primarySigmas = [...new Set(all.flatMap((r) => primaryOf(r.report.comparisons).map((c) => `${c.benchmark}\u0000${c.metric}`)))].map((k) => ({ k, sigma: memoryAtEnd.get(k)?.sigma })).filter((x) => x.sigma !== undefined);
  lines.push('', `What median rounds <= 20 takes at a 2% threshold: with ${unchangedPerRun} unchanged benchmarks per run, each must settle by 20 rounds per side with probability ${(each * 100).toFixed(0)}%, which needs a per-round noise (sigma on log values) of at most ${(sigmaNeeded * 100).toFixed(2)}% on each. This machine's memory at the end: ${primarySigmas.map((x) => `${x.k.replace('\u0000', ' ')} ${(100 * (x.sigma as number)).toFixed(2)}%`).join(', ')}.`);

  // Every false alarm, so that it can be looked into.
  const alarms = order.flatMap(({ scenario, record }, index) =>
    record.report.comparisons
      .filter((c) => c.benchmark !== scenario.slowed && (c.verdict === 'regressed' || c.verdict === 'improved'))
      .map((c) => `- ${scenario.name}, run ${Math.floor(index / scenarios.length) + 1}: ${c.benchmark} (${c.metric}, ${c.family ?? 'primary'}) ${c.verdict}, ratio ${c.ratio === null ? 'n/a' : `${((c.ratio - 1) * 100).toFixed(2)}%`}`),
  );
  lines.push('', alarms.length === 0 ? 'No comparison of an unchanged benchmark was called regressed or improved.' : 'Comparisons of unchanged benchmarks called regressed or improved:', ...alarms);

  // The machine's memory after all runs.
  const last = all.at(-1);
  lines.push('', '### The machine\'s noise memory after these runs', '');
  lines.push('| benchmark | metric | per-round noise (sigma) | rounds of evidence | smallest detectable slowdown in the budget | threshold this machine can decide |', '| --- | --- | --- | --- | --- | --- |');
  for (const c of last?.report.comparisons ?? []) {
    const record = memoryAtEnd.get(`${c.benchmark}\u0000${c.metric}`);
    lines.push(`| ${c.benchmark} | ${c.metric} | ${fmtPct(record?.sigma)} | ${record?.rounds ?? 0} | ${fmtPct(c.detectable)} | ${fmtPct(c.suggested_threshold)} |`);
  }

  const t10 = tallyRuns(scenarios[0], records.get(scenarios[0].name) ?? []);
  const t5 = tallyRuns(scenarios[1], records.get(scenarios[1].name) ?? []);
  const taa = tallyRuns(scenarios[2], records.get(scenarios[2].name) ?? []);
  const unbounded = allTally.reduce((a, t) => a + t.unbounded, 0);
  const targets: [string, boolean][] = [
    [`10% found 10/10 (${t10.found}/${t10.runs})`, t10.found === t10.runs],
    [`5% found at least 9/10 (${t5.found}/${t5.runs})`, t5.found >= Math.ceil(0.9 * t5.runs)],
    [`0 false regressions in the A/A runs (${taa.falseRegressionRuns})`, taa.falseRegressionRuns === 0],
    [`at least half of the unchanged comparisons decided unchanged at 2% (${pct(decided, unchangedPrimary)} of primary)`, decided * 2 >= unchangedPrimary],
    [`every other one bounded (${unbounded} unbounded)`, unbounded === 0],
    [`median rounds per side at most 20 (${median(allRounds)})`, median(allRounds) <= 20],
  ];
  lines.push('', '### Targets', '', ...targets.map(([text, met]) => `- ${met ? 'met' : 'MISSED'}: ${text}`));
  lines.push('', `(${capture.minutes.toFixed(1)} minutes of runs)`);
  return lines;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  // node bench/verdicts.ts --analyse bench/results/verdicts-DATE.json re-prints the tables of a saved capture.
  const dir = resolve(fileURLToPath(new URL('./results/', import.meta.url)));
  const date = new Date().toISOString().slice(0, 10);
  const save = process.env.BENCHBOT_VERDICTS_SAVE !== '0';
  let capture: Capture;
  if (process.argv[2] === '--analyse') {
    capture = JSON.parse(readFileSync(process.argv[3], 'utf8')) as Capture;
  } else {
    capture = await captureVerdicts();
    if (save) {
      mkdirSync(dir, { recursive: true });
      writeFileSync(join(dir, `verdicts-${date}.json`), `${JSON.stringify(capture)}\n`);
    }
  }
  const lines = await analyseVerdicts(capture);
  console.log(lines.join('\n'));
  if (save && process.argv[2] !== '--analyse') writeFileSync(join(dir, `verdicts-${date}.txt`), `${lines.join('\n')}\n`);
}
