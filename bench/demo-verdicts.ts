// The demo's acceptance check and the adaptive-sampling target, measured for
// real: repeated `benchbot run`s of the demo repository (merge #14 makes
// BM_RecordHash ~10% slower, nothing else changes), adaptive against a fixed
// 30 rounds per side. Target: adaptive uses at most 60% of the fixed design's
// rounds with no more wrong verdicts; across the repeated runs the regression
// is always found on BM_RecordHash and nothing else is ever called regressed.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { spawnSync } from 'node:child_process';
import { runAb, type RunAbResult, type RunAbSettings } from '../src/runner/run-ab.ts';
import { createExecutor } from '../src/runner/executor.ts';
import { silentProgress } from '../src/runner/progress.ts';

const SLOWED = 'BM_RecordHash/65536';

/** makeDemoRepo builds the demo repository in a fresh temp dir and returns its path. */
export function makeDemoRepo(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'benchbot-demo-bench-')), 'repo');
  const made = spawnSync('bash', [resolve('scripts/make-demo-repo.sh'), dir], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`make-demo-repo.sh failed: ${made.stderr}`);
  return dir;
}

export function demoSettings(repo: string, overrides: Partial<RunAbSettings> = {}): RunAbSettings {
  return {
    repo, base: 'demo-base', head: 'demo-head', bench: './bench.sh', build: 'make -s', format: undefined, resultFile: undefined,
    minRuns: 10, maxRuns: 40, warmup: 1, threshold: 0.02, alpha: 0.05, rules: [], roundTimeoutMs: 120_000, buildTimeoutMs: 600_000,
    seed: -1, counters: false, allowDirty: false, stateDir: join(repo, '.benchbot'), labels: [], maxFailedRounds: 3, ...overrides,
  };
}

export async function runDemo(repo: string, overrides: Partial<RunAbSettings> = {}): Promise<RunAbResult> {
  return runAb(demoSettings(repo, overrides), { executor: createExecutor({ kind: 'local' }), progress: silentProgress, now: () => new Date().toISOString() });
}

interface Tally {
  runs: number;
  rounds: number;
  found: number;
  falseAlarms: number;
  decided: number;
  comparisons: number;
}

function tally(results: RunAbResult[]): Tally {
  const t: Tally = { runs: results.length, rounds: 0, found: 0, falseAlarms: 0, decided: 0, comparisons: 0 };
  for (const r of results) {
    t.rounds += r.roundsPerSide;
    const slowed = r.report.comparisons.filter((c) => c.benchmark === SLOWED);
    if (slowed.length > 0 && slowed.every((c) => c.verdict === 'regressed')) t.found += 1;
    for (const c of r.report.comparisons) {
      t.comparisons += 1;
      if (c.benchmark !== SLOWED && (c.verdict === 'regressed' || c.verdict === 'improved')) t.falseAlarms += 1;
      if (c.verdict !== 'inconclusive') t.decided += 1;
    }
  }
  return t;
}

export async function benchDemoVerdicts(adaptiveRuns = Number(process.env.BENCHBOT_DEMO_RUNS ?? 20), fixedRuns = Number(process.env.BENCHBOT_FIXED_RUNS ?? 5)): Promise<string[]> {
  const repo = makeDemoRepo();
  const adaptive: RunAbResult[] = [];
  const fixed: RunAbResult[] = [];
  for (let i = 0; i < adaptiveRuns; i++) {
    adaptive.push(await runDemo(repo, { seed: 1000 + i }));
    process.stderr.write(`adaptive run ${i + 1}/${adaptiveRuns}: ${adaptive.at(-1)?.roundsPerSide} rounds per side\n`);
  }
  for (let i = 0; i < fixedRuns; i++) {
    fixed.push(await runDemo(repo, { seed: 2000 + i, minRuns: 30, maxRuns: 30 }));
    process.stderr.write(`fixed run ${i + 1}/${fixedRuns}\n`);
  }
  const a = tally(adaptive);
  const f = tally(fixed);
  const perRun = (t: Tally) => (t.runs > 0 ? t.rounds / t.runs : NaN);
  const share = perRun(a) / perRun(f);
  const wrong = (t: Tally) => (t.runs - t.found) + t.falseAlarms;
  const overhead = adaptive.reduce((s, r) => s + r.overheadMs, 0) / adaptive.length;
  const benchTime = adaptive.reduce((s, r) => s + r.benchMs, 0) / adaptive.length;
  return [
    `## Demo verdicts (${SLOWED} made ~10% slower by merge #14; ${a.comparisons / Math.max(1, a.runs)} comparisons per run)`,
    '',
    '| design | runs | rounds per side (mean) | regression found on BM_RecordHash | false regressions/improvements | decided comparisons |',
    '| --- | --- | --- | --- | --- | --- |',
    `| adaptive (looks at 10, 15, 20, 30, 40) | ${a.runs} | ${perRun(a).toFixed(1)} | ${a.found}/${a.runs} | ${a.falseAlarms} | ${a.decided}/${a.comparisons} |`,
    `| fixed 30 rounds per side | ${f.runs} | ${perRun(f).toFixed(1)} | ${f.found}/${f.runs} | ${f.falseAlarms} | ${f.decided}/${f.comparisons} |`,
    '',
    `Runner overhead per round: ${overhead.toFixed(1)} ms beside ${benchTime.toFixed(0)} ms of benchmark (worktree dir, spawn, parse, bookkeeping).`,
    `Target (adaptive at most 60% of the fixed rounds, no more wrong verdicts per run): ${share <= 0.6 && wrong(a) / a.runs <= Math.max(wrong(f) / Math.max(1, f.runs), 0) ? 'met' : 'MISSED'} (adaptive uses ${(share * 100).toFixed(0)}%; wrong verdicts per run: adaptive ${(wrong(a) / a.runs).toFixed(2)}, fixed ${(wrong(f) / Math.max(1, f.runs)).toFixed(2)}).`,
  ];
}

if (import.meta.main) {
  console.log((await benchDemoVerdicts()).join('\n'));
}
