// Speed of a whole-suite comparison: 10,000 benchmarks x 30 samples per side,
// benchbot beside benchstat and compare.py on the same data, in one run.
// Target: benchbot at most 1 s and no slower than benchstat.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { compareRuns, type CompareSide } from '../src/compare/compare-runs.ts';
import { renderMarkdown } from '../src/report/markdown-report.ts';
import { warningKind } from '../src/compare/hygiene.ts';
import { lognormalSamples } from '../test/support/samples.ts';
import { COMPARE_PY, bestOf, benchstatPath, timeCommand } from './peer-tools.ts';

const BENCHMARKS = 10_000;
const SAMPLES = 30;
const COMPARE_PY_BENCHMARKS = 1_000;
const BIN = fileURLToPath(new URL('../bin/benchbot.js', import.meta.url));

interface Suite {
  names: string[];
  base: number[][];
  head: number[][];
}

function generate(): Suite {
  const names = Array.from({ length: BENCHMARKS }, (_, i) => `BenchmarkGenerated/case=${i}`);
  // 2% of the suite really changes, the rest is noise at 1% CV.
  const base = names.map((_, i) => lognormalSamples(SAMPLES, 1000 + i, 0.01, i));
  const head = names.map((_, i) => lognormalSamples(SAMPLES, (1000 + i) * (i % 50 === 0 ? 1.1 : 1), 0.01, 1e6 + i));
  return { names, base, head };
}

function goText(names: string[], values: number[][]): string {
  const lines = ['goos: linux', 'goarch: amd64', 'pkg: example.com/generated'];
  for (let r = 0; r < SAMPLES; r++) names.forEach((name, i) => lines.push(`${name}-2\t1000000\t${values[i][r].toFixed(3)} ns/op`));
  lines.push('PASS');
  return lines.join('\n') + '\n';
}

function googleBenchmarkJson(names: string[], values: number[][]): string {
  const rows = names.flatMap((name, i) =>
    values[i].map((v, r) => JSON.stringify({ name, run_name: name, run_type: 'iteration', repetitions: SAMPLES, repetition_index: r, iterations: 1000, real_time: v, cpu_time: v, time_unit: 'ns' })),
  );
  return `{"context":{"library_build_type":"release","num_cpus":2},"benchmarks":[\n${rows.join(',\n')}\n]}\n`;
}

function side(suite: Suite, values: number[][]): CompareSide {
  return { measurements: suite.names.map((name, i) => ({ benchmark: name, metric: 'time', unit: 'ns/op', better: 'lower' as const, values: values[i] })), warnings: [], hints: {} };
}

/** CLI_RUNS is how many times each whole-process command runs (after one warm-up each); the median counts. */
const CLI_RUNS = 5;

/** medianRun is the median time of the runs, or the first failure. */
function medianRun(runs: ({ ms: number } | { error: string })[]): { ms: number } | { error: string } {
  const failed = runs.find((r) => 'error' in r);
  if (failed) return failed;
  const times = runs.map((r) => ('ms' in r ? r.ms : 0)).sort((a, b) => a - b);
  return { ms: times[Math.floor(times.length / 2)] };
}

const show = (r: { ms: number } | { error: string }) => ('ms' in r ? `${(r.ms / 1000).toFixed(2)} s` : `failed: ${r.error}`);

export function benchCompareSpeed(): string[] {
  const suite = generate();
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-speed-'));
  const files = { baseGo: join(dir, 'base.txt'), headGo: join(dir, 'head.txt'), baseJson: join(dir, 'base.json'), headJson: join(dir, 'head.json') };
  writeFileSync(files.baseGo, goText(suite.names, suite.base));
  writeFileSync(files.headGo, goText(suite.names, suite.head));
  const small = suite.names.slice(0, COMPARE_PY_BENCHMARKS);
  writeFileSync(files.baseJson, googleBenchmarkJson(small, suite.base));
  writeFileSync(files.headJson, googleBenchmarkJson(small, suite.head));

  const base = side(suite, suite.base);
  const head = side(suite, suite.head);
  const coreMs = bestOf(3, () => renderMarkdown(compareRuns(base, head)));
  // The suite has no trend and one mode everywhere: every trend or bimodal warning would be false.
  const hygiene = compareRuns(base, head).comparisons.flatMap((c) => c.warnings.map((w) => warningKind(w)?.kind)).filter((k) => k === 'trend' || k === 'bimodal');
  // benchbot exits 1 when it finds regressions, as it should here: 2% of the suite shifted.
  const benchbotCommand = (): { ms: number } | { error: string } => timeCommand(process.execPath, [BIN, 'compare', files.baseGo, files.headGo, '--output', 'text'], [0, 1]);
  const benchstat = benchstatPath();
  const benchstatCommand = (): { ms: number } | { error: string } => (benchstat ? timeCommand(benchstat, [files.baseGo, files.headGo]) : { error: 'benchstat not installed and `go install` failed' });
  // One run of each first (page cache, Node's compile cache), then CLI_RUNS
  // of each, alternating, so that both see the same load; medians.
  benchbotCommand();
  benchstatCommand();
  const cliRuns: ({ ms: number } | { error: string })[] = [];
  const benchstatRuns: ({ ms: number } | { error: string })[] = [];
  for (let i = 0; i < CLI_RUNS; i++) {
    cliRuns.push(benchbotCommand());
    benchstatRuns.push(benchstatCommand());
  }
  const cli = medianRun(cliRuns);
  const benchstatRun = medianRun(benchstatRuns);
  const comparePy = timeCommand('python3', [COMPARE_PY, '--no-color', 'benchmarks', files.baseJson, files.headJson]);

  const benchstatMs = 'ms' in benchstatRun ? benchstatRun.ms : undefined;
  const cliMs = 'ms' in cli ? cli.ms : NaN;
  const met = coreMs <= 1000 && (benchstatMs === undefined || cliMs <= benchstatMs);
  return [
    `## Compare speed (${BENCHMARKS.toLocaleString('en-US')} benchmarks x ${SAMPLES} samples per side)`,
    '',
    '| tool | what is timed | time |',
    '| --- | --- | --- |',
    `| benchbot | compareRuns + markdown report, in process (best of 3) | ${(coreMs / 1000).toFixed(2)} s |`,
    `| benchbot | \`benchbot compare base.txt head.txt\` (Go bench text), whole process, median of ${CLI_RUNS} | ${show(cli)} |`,
    `| benchstat | \`benchstat base.txt head.txt\`, same files, whole process, median of ${CLI_RUNS} | ${show(benchstatRun)} |`,
    `| compare.py | \`compare.py benchmarks\` on ${COMPARE_PY_BENCHMARKS.toLocaleString('en-US')} of the benchmarks (it is quadratic in suite size) | ${show(comparePy)} |`,
    '',
    `benchbot compare vs benchstat on benchstat's own format: ${benchstatMs === undefined || !('ms' in cli) ? 'not measured' : `${(cliMs / benchstatMs).toFixed(2)}x benchstat's time (${(cliMs / 1000).toFixed(2)} s vs ${(benchstatMs / 1000).toFixed(2)} s, medians of ${CLI_RUNS} alternating runs)`}.`,
    '',
    `Target (in-process at most 1 s, CLI no slower than benchstat): ${met ? 'met' : 'MISSED'}.`,
    '',
    `Hygiene on the same suite (no trend, one mode: every such warning is false): ${hygiene.filter((k) => k === 'trend').length} trend and ${hygiene.filter((k) => k === 'bimodal').length} bimodal warnings (per-side rules before issue 11: 184 and 44; now one BH family at 0.05).`,
  ];
}
