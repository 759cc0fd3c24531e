// Valgrind driven directly by the bench, outside benchbot: to calibrate the
// injected loops (how many iterations make +1% of a benchmark's
// instructions) and to check afterwards what each injection added. Never
// used for a verdict the bench reports as benchbot's.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Harness, SuiteSpec, WorkFunction } from './instruction-suites.ts';
import { buildEnv } from './instruction-suites.ts';

/** FunctionCost is one function's inclusive instructions over a profile and how often it was called from outside itself. */
export interface FunctionCost {
  inclusive: number;
  calls: number;
}

/**
 * functionCost reads a callgrind output file (default `--dump-instr=no`, the
 * first event Ir) and returns the inclusive cost of the functions whose name
 * matches `pattern`: their self cost plus the cost of the calls they make to
 * other functions. Calls of the function to itself are skipped (their cost is
 * already its self cost), so recursion counts once.
 */
export function functionCost(profile: string, pattern: RegExp): FunctionCost {
  const names = new Map<string, string>();
  const resolve = (ref: string): string => {
    const m = /^\((\d+)\)(?: (.*))?$/.exec(ref);
    if (!m) return ref;
    if (m[2] !== undefined) names.set(m[1], m[2]);
    return names.get(m[1]) ?? ref;
  };
  let fn = '';
  let cfn = '';
  let afterCalls = false;
  let inclusive = 0;
  let calls = 0;
  for (const line of profile.split('\n')) {
    if (line.startsWith('fn=')) { fn = resolve(line.slice(3)); continue; }
    if (line.startsWith('cfn=')) { cfn = resolve(line.slice(4)); continue; }
    if (line.startsWith('calls=')) {
      afterCalls = true;
      if (pattern.test(cfn) && !pattern.test(fn)) calls += Number(line.slice(6).split(' ')[0]);
      continue;
    }
    const first = line.charCodeAt(0);
    const isCost = (first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42;
    if (!isCost) continue;
    const ir = Number(line.split(' ')[1] ?? 0);
    if (afterCalls) {
      afterCalls = false;
      if (pattern.test(fn) && !pattern.test(cfn)) inclusive += ir;
    } else if (pattern.test(fn)) inclusive += ir;
  }
  return { inclusive, calls };
}

/** oneBenchmarkArgs is the command that runs one benchmark with the smallest fixed schedule the harness has. */
function oneBenchmarkArgs(harness: Harness, fn: WorkFunction): string[] {
  switch (harness) {
    case 'cpp': return ['./bench', `--benchmark_filter=^${fn.benchmark}$`, '--benchmark_min_time=0'];
    case 'go': return ['./worksuite.test', '-test.run=^$', `-test.bench=^${fn.benchmark}$`, '-test.benchtime=1x'];
    // criterion's one fixed schedule, as benchbot counts it: --test runs the routine once.
    case 'rust': return ['./suite-bench', '--bench', `^${fn.benchmark}$`, '--test'];
  }
}

/**
 * perCallInstructions runs one benchmark under callgrind in a built checkout
 * once and returns the instructions per call of each function `patterns`
 * pick (default the work function; fn.benchmarkPattern is the benchmark's
 * own, one iteration of it where the harness runs one).
 */
export function perCallInstructions(spec: SuiteSpec, checkout: string, fn: WorkFunction, patterns: readonly RegExp[] = [fn.pattern]): number[] {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-cg-'));
  try {
    const out = join(dir, 'callgrind.out');
    const run = spawnSync('valgrind', ['--tool=callgrind', `--callgrind-out-file=${out}`, ...oneBenchmarkArgs(spec.harness, fn)], {
      cwd: checkout, encoding: 'utf8', timeout: 600_000, env: { ...buildEnv(), GODEBUG: 'asyncpreemptoff=1' }, maxBuffer: 1 << 28,
    });
    if (run.status !== 0) throw new Error(`callgrind of ${fn.benchmark} failed (exit ${run.status}): ${run.stderr.slice(-1500)}`);
    const profile = readFileSync(out, 'utf8');
    return patterns.map((pattern) => {
      const cost = functionCost(profile, pattern);
      if (cost.calls === 0) throw new Error(`callgrind profile of ${fn.benchmark} has no call of ${pattern}`);
      return cost.inclusive / cost.calls;
    });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
