// `npm run bench:round-design`: how one round should run on this machine,
// decided by measurement (issue 11, part 2). The demo suite (demo-base) runs
// in several round designs, interleaved block by block so that every design
// sees the same background load:
//
//   1 x 0.05 s      one repetition per round, --benchmark_min_time 0.05 s
//                   (what the demo's bench.sh does)
//   median of 3 x 0.017 s   three repetitions in one process, same time budget,
//                   the round contributes their median
//   median of 3 x 0.05 s    three full repetitions (three times the time)
//   the first two again pinned to one CPU with taskset
//
// For each design it prints the seconds per round, the robust CV of the
// per-round values, the share of rounds more than 5% above the median (the
// heavy tail a preempted round makes), and, by resampling A/A comparisons of
// 10 rounds per side from the captured rounds, how often each test (Yuen's
// trimmed t, Mann-Whitney) calls them unchanged at 2%, its median stated
// bound, and how often it finds a 5% slowdown. The raw rounds are written
// beside the printed table (bench/results/round-design-DATE.json) so the
// numbers can be re-analysed without re-running.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { readSource } from '../src/formats/detect.ts';
import { compareRuns } from '../src/compare/compare-runs.ts';
import type { ChangeTest } from '../src/compare/estimate-change.ts';
import type { Measurement } from '../src/model/measurement.ts';
import { xoshiro128 } from '../src/stats/bootstrap.ts';
import { median } from '../src/stats/order-statistics.ts';
import { robustCv } from '../src/stats/robust-cv.ts';
import { drawSides } from './quality.ts';
import { makeDemoRepo } from './demo-verdicts.ts';

/** Design is one way to run a round. */
export interface Design {
  name: string;
  repetitions: number;
  minTime: number;
  pin: boolean;
}

export const DESIGNS: readonly Design[] = [
  { name: '1 x 0.05 s', repetitions: 1, minTime: 0.05, pin: false },
  { name: 'median of 3 x 0.017 s', repetitions: 3, minTime: 0.017, pin: false },
  { name: 'median of 3 x 0.05 s', repetitions: 3, minTime: 0.05, pin: false },
  { name: '1 x 0.05 s, pinned', repetitions: 1, minTime: 0.05, pin: true },
  { name: 'median of 3 x 0.017 s, pinned', repetitions: 3, minTime: 0.017, pin: true },
];

/** Capture is every round of every design: per benchmark the per-round summaries, and the seconds each round took. */
export interface Capture {
  machine: string;
  load: string;
  blocks: number;
  designs: { name: string; seconds: number[]; rounds: Record<string, number[]> }[];
}

function cpuModel(): string {
  const out = spawnSync('sh', ['-c', "grep -m1 'model name' /proc/cpuinfo | cut -d: -f2; nproc"], { encoding: 'utf8' }).stdout.trim().split('\n');
  return `${out[0]?.trim()}, ${out[1]} cores`;
}

/** capture runs the demo suite `blocks` times per design, designs in a seeded random order within each block. */
export function capture(blocks: number, seed = 7): Capture {
  const repo = makeDemoRepo();
  const git = (...args: string[]) => spawnSync('git', ['-C', repo, ...args], { encoding: 'utf8' });
  git('checkout', '-q', 'demo-base');
  const made = spawnSync('make', ['-s'], { cwd: repo, encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`make failed: ${made.stderr}`);
  const lastCpu = Number(spawnSync('nproc', [], { encoding: 'utf8' }).stdout.trim()) - 1;
  const rng = xoshiro128(seed);
  const designs = DESIGNS.map((d) => ({ name: d.name, seconds: [] as number[], rounds: {} as Record<string, number[]> }));
  const loads: number[] = [];
  for (let block = 0; block < blocks; block++) {
    const order = DESIGNS.map((_, i) => i).sort(() => rng() - 0.5);
    for (const i of order) {
      const d = DESIGNS[i];
      // Google Benchmark 1.7 (Debian 12) takes --benchmark_min_time without a unit.
      const args = ['--benchmark_format=json', `--benchmark_min_time=${d.minTime}`, `--benchmark_repetitions=${d.repetitions}`, '--benchmark_report_aggregates_only=false'];
      const [file, argv] = d.pin ? ['taskset', ['-c', String(lastCpu), './bench', ...args]] : ['./bench', args];
      const started = process.hrtime.bigint();
      const run = spawnSync(file, argv, { cwd: repo, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      if (run.status !== 0) throw new Error(`${d.name}: exit ${run.status}: ${run.stderr}`);
      const read = readSource({ path: d.name, text: run.stdout }, 'google-benchmark');
      designs[i].seconds.push(seconds);
      for (const m of read.measurements) {
        if (m.metric !== 'real_time' && m.metric !== 'cpu_time') continue;
        const key = `${m.benchmark} ${m.metric}`;
        (designs[i].rounds[key] ??= []).push(median(m.values));
      }
    }
    loads.push(Number(spawnSync('cat', ['/proc/loadavg'], { encoding: 'utf8' }).stdout.split(' ')[0]));
    process.stderr.write(`block ${block + 1}/${blocks}\n`);
  }
  loads.sort((a, b) => a - b);
  return { machine: cpuModel(), load: `1-minute load average ${loads[0]}-${loads.at(-1)} (median ${median(loads)})`, blocks, designs };
}

interface Resampled {
  unchanged: number;
  bound: number;
  found5: number;
  falseAlarms: number;
}

/**
 * resample draws `trials` A/A comparisons of n rounds per side from one
 * benchmark's captured rounds (disjoint halves), and the same with head
 * slowed by 5%, and judges each with compareRuns (threshold 2%, alpha 0.05,
 * one look, one benchmark: no multiplicity).
 */
function resample(values: readonly number[], n: number, test: ChangeTest, trials: number, seed: number): Resampled {
  const rng = xoshiro128(seed);
  let unchanged = 0;
  let found5 = 0;
  let falseAlarms = 0;
  const bounds: number[] = [];
  const one = (base: number[], head: number[]) => {
    const m = (v: number[]): Measurement[] => [{ benchmark: 'b', metric: 'real_time', unit: 'ns', better: 'lower', values: v }];
    return compareRuns({ measurements: m(base), warnings: [], hints: {} }, { measurements: m(head), warnings: [], hints: {} }, { threshold: 0.02, alpha: 0.05, rules: [], test }).comparisons[0];
  };
  for (let t = 0; t < trials; t++) {
    const draw = drawSides(values, n, rng);
    const aa = one(draw.base, draw.head);
    if (aa.verdict === 'unchanged') unchanged += 1;
    if (aa.verdict === 'regressed' || aa.verdict === 'improved') falseAlarms += 1;
    bounds.push(aa.bound ?? NaN);
    if (one(draw.base, draw.head.map((v) => v * 1.05)).verdict === 'regressed') found5 += 1;
  }
  return { unchanged: unchanged / trials, bound: median(bounds), found5: found5 / trials, falseAlarms: falseAlarms / trials };
}

const pct = (x: number, digits = 1) => `${(100 * x).toFixed(digits)}%`;

/** analyse prints the table of one capture, for real_time and for cpu_time. */
export function analyse(c: Capture, n = 10, trials = 400): string[] {
  const benchmarks = Object.keys(c.designs[0].rounds).filter((k) => k.endsWith(' real_time')).map((k) => k.replace(/ real_time$/, ''));
  const lines = [
    `## Round design on this machine (${c.machine}; ${c.load}; ${c.blocks} rounds per design, interleaved)`,
    '',
    `Per design and metric, over the ${benchmarks.length} demo benchmarks: seconds per round (median), median robust CV of the per-round values, share of rounds more than 5% above the benchmark's median, and by resampling ${trials} A/A draws of ${n} rounds per side per benchmark: share decided unchanged at 2%, median stated bound, false regressions/improvements, and 5% slowdowns found (one benchmark at a time, alpha 0.05, one look).`,
    '',
    '| design | metric | s/round | robust CV | rounds > +5% | test | A/A unchanged at 2% | median bound | A/A false alarms | 5% found |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const metric of ['real_time', 'cpu_time']) {
    for (const d of c.designs) {
      const keys = benchmarks.map((b) => `${b} ${metric}`).filter((k) => d.rounds[k] !== undefined);
      const cvs = keys.map((k) => robustCv(d.rounds[k]) ?? NaN);
      const tails = keys.map((k) => {
        const m = median(d.rounds[k]);
        return d.rounds[k].filter((v) => v > m * 1.05).length / d.rounds[k].length;
      });
      for (const test of ['yuen', 'mann-whitney'] as const) {
        const r = keys.map((k, i) => resample(d.rounds[k], n, test, trials, 1000 + i));
        const mean = (f: (x: Resampled) => number) => r.reduce((s, x) => s + f(x), 0) / r.length;
        lines.push(
          `| ${d.name} | ${metric} | ${median(d.seconds).toFixed(2)} | ${pct(median(cvs))} | ${pct(median(tails))} | ${test} | ${pct(mean((x) => x.unchanged))} | ${pct(median(r.map((x) => x.bound)))} | ${pct(mean((x) => x.falseAlarms))} | ${pct(mean((x) => x.found5))} |`,
        );
      }
    }
  }
  for (const metric of ['real_time', 'cpu_time']) {
    lines.push('', `Per benchmark (${metric}), robust CV by design:`, '');
    lines.push(`| benchmark | ${c.designs.map((d) => d.name).join(' | ')} |`, `| --- | ${c.designs.map(() => '---').join(' | ')} |`);
    for (const b of benchmarks) lines.push(`| ${b} | ${c.designs.map((d) => pct(robustCv(d.rounds[`${b} ${metric}`] ?? []) ?? NaN, 2)).join(' | ')} |`);
  }
  return lines;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1] && process.argv[2] === '--analyse') {
  // Re-analyse a capture without re-running it: node bench/round-design.ts --analyse bench/results/round-design-DATE.json
  console.log(analyse(JSON.parse(readFileSync(process.argv[3], 'utf8')) as Capture).join('\n'));
} else if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const blocks = Number(process.env.BENCHBOT_ROUND_BLOCKS ?? 40);
  const c = capture(blocks);
  const date = new Date().toISOString().slice(0, 10);
  const dir = fileURLToPath(new URL('./results/', import.meta.url));
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `round-design-${date}.json`), `${JSON.stringify(c)}\n`);
  console.log(analyse(c).join('\n'));
}
