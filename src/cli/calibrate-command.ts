import { parseArgs } from 'node:util';
import type { Comparison } from '../model/comparison.ts';
import type { RunAbResult } from '../runner/run-ab.ts';
import { runPrCheck } from '../jobs/pr-check.ts';
import { checkoutsStay, parseRunArgs } from './run-command.ts';
import { measureInterruptibly } from './interrupt.ts';
import { choose, UsageError, wholeFlag } from './usage-error.ts';

export const CALIBRATE_USAGE = `usage: benchbot calibrate --bench CMD [--commit REF] [options]

Teaches the store what this machine's noise is: builds one commit, runs its
benchmark in interleaved A/A rounds (the same build on both sides), and keeps
each benchmark's per-round noise in the store's memory of this machine (its
machine key). Every later \`benchbot run\` on this machine prints, per
benchmark, the smallest slowdown it can detect in its round budget and the
threshold it can decide, and learns from its own rounds too. A nightly job
can run this on the default branch to keep the memory current.

options:
  --commit REF            commit to calibrate on (default HEAD)
  --rounds N              A/A rounds per side (default 20)
  --budget N              round budget per side the advice is for (default 40, run's --max-runs)
  --bench, --build, --format, --result-file, --warmup, --threshold, --threshold-for, --alpha,
  --store, --executor, --device-*, --repo, --round-timeout, --build-timeout, --max-failed-rounds,
  --max-load, --load-wait, --lock-timeout, --labels, --allow-dirty, --repetitions, --round-summary, --pin-cpu, --test
                          as for benchbot run
  --output O              text (default) | json

exit status: 0 calibrated (also when the A/A rounds raised a false alarm: that is reported), 2 usage,
setup or input error`;

/** CalibrateSettings are what calibrate adds to run's settings. */
interface CalibrateFlags {
  commit: string;
  rounds: number;
  budget: number;
  output: 'text' | 'json';
  rest: string[];
}


/** parseCalibrateFlags takes calibrate's own flags off the argument list; the rest are run's. */
export function parseCalibrateFlags(args: string[]): CalibrateFlags {
  let parsed;
  try {
    parsed = parseArgs({ args, strict: false, allowPositionals: true, options: { commit: { type: 'string' }, rounds: { type: 'string' }, budget: { type: 'string' }, output: { type: 'string' }, base: { type: 'string' }, head: { type: 'string' }, 'min-runs': { type: 'string' }, 'max-runs': { type: 'string' } } });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const v = parsed.values as Record<string, string | boolean | undefined>;
  for (const flag of ['base', 'head', 'min-runs', 'max-runs']) if (v[flag] !== undefined) throw new UsageError(`--${flag} is not a calibrate option: calibrate measures one --commit for --rounds rounds per side`);
  const output = choose('--output', (v.output ?? 'text') as string, ['text', 'json']);
  const own = new Set(['--commit', '--rounds', '--budget', '--output']);
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const [name] = args[i].split('=');
    if (own.has(name)) {
      if (!args[i].includes('=')) i += 1;
      continue;
    }
    rest.push(args[i]);
  }
  return {
    commit: typeof v.commit === 'string' ? v.commit : 'HEAD',
    rounds: wholeFlag(v.rounds, '--rounds', 20, 3),
    budget: wholeFlag(v.budget, '--budget', 40, 2),
    output,
    rest,
  };
}

const pct = (x: number | undefined, digits = 1) => (x === undefined ? 'n/a' : `${(x * 100).toFixed(digits)}%`);

/** renderCalibration prints, per benchmark x metric, the noise learned and what it means for the budget. */
export function renderCalibration(result: RunAbResult, budget: number, output: 'text' | 'json'): string {
  const rows = result.report.comparisons.filter((c) => c.p !== null);
  const alarms = rows.filter((c) => c.verdict === 'regressed' || c.verdict === 'improved');
  if (output === 'json') {
    return JSON.stringify({
      commit: result.base.sha,
      rounds_per_side: result.roundsPerSide,
      budget,
      benchmarks: rows.map((c) => ({ benchmark: c.benchmark, metric: c.metric, family: c.family, aa_verdict: c.verdict, aa_bound: c.bound ?? null, detectable: c.detectable ?? null, suggested_threshold: c.suggestedThreshold ?? null })),
      false_alarms: alarms.map((c) => `${c.benchmark} (${c.metric})`),
    }, null, 2);
  }
  const line = (c: Comparison) => `${c.benchmark} (${c.metric}${c.family === 'secondary' ? ', secondary' : ''}): A/A ${c.verdict}, no change beyond ±${pct(c.bound)}; detectable in ${budget} rounds: ${pct(c.detectable)}; threshold this machine can decide: ${pct(c.suggestedThreshold)}`;
  return [
    `calibrated ${result.base.sha.slice(0, 12)}: ${result.roundsPerSide} A/A rounds per side`,
    ...rows.map(line),
    alarms.length > 0 ? `A/A false alarm(s) on this machine: ${alarms.map((c) => `${c.benchmark} (${c.metric})`).join(', ')}; the machine is noisier than its rounds show (drift, load): quiet it or raise thresholds` : 'no false alarm in the A/A rounds',
  ].join('\n');
}

/** runCalibrate implements `benchbot calibrate`; returns the exit code. */
export async function runCalibrate(args: string[], out: (text: string) => void): Promise<number> {
  const flags = parseCalibrateFlags(args);
  const settings = parseRunArgs([...flags.rest, '--base', flags.commit, '--head', flags.commit, '--min-runs', String(flags.rounds), '--max-runs', String(flags.rounds)], process.cwd(), process.env);
  if (settings.noStore) throw new UsageError('--no-store: calibrate keeps what it learns in the store; drop --no-store');
  // The advice is for run's budget, not for the calibration's own round count.
  const { run: result } = await measureInterruptibly('calibrate', checkoutsStay(settings.stateDir), (progress) => runPrCheck({ ...settings, calibrate: { budgetRoundsPerSide: flags.budget } }, { progress, now: () => new Date().toISOString() }));
  out(renderCalibration(result, flags.budget, flags.output));
  return 0;
}
