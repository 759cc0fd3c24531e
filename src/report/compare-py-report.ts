import type { Measurement } from '../model/measurement.ts';
import { conversionFactor } from '../formats/units.ts';
import { mannWhitneyU } from '../stats/mann-whitney.ts';
import { geometricMean } from '../stats/geometric-mean.ts';

/**
 * renderComparePy prints what Google Benchmark's `compare.py benchmarks A B`
 * prints (without colour), from the same numbers: one row per repetition pair
 * with the relative change of real and CPU time, a `_pvalue` row with the U
 * test (scipy's `mannwhitneyu`, method "auto", reproduced exactly), and
 * `OVERALL_GEOMEAN`. Aggregate rows (`_mean`, `_median`...) are not printed:
 * benchbot reads the repetitions, not the harness's summaries of them.
 */
export function renderComparePy(base: readonly Measurement[], head: readonly Measurement[], utestAlpha = 0.05): string {
  const baseTimes = timesByBenchmark(base);
  const headTimes = timesByBenchmark(head);
  const names = [...baseTimes.keys()].filter((name) => headTimes.has(name));
  const blocks: { name: string; rows: number[][]; utest?: { time: number; cpu: number; n: number; m: number } }[] = [];
  for (const name of names) {
    const b = baseTimes.get(name) as Times;
    const h = headTimes.get(name) as Times;
    // compare.py only pairs rows in the base's time unit; a benchmark whose unit changed is left out.
    if (h.unit !== b.unit) continue;
    const hReal = h.real;
    const hCpu = h.cpu;
    const rows: number[][] = [];
    for (let i = 0; i < Math.min(b.real.length, hReal.length); i++) {
      rows.push([change(b.real[i], hReal[i]), change(b.cpu[i], hCpu[i]), b.real[i], hReal[i], b.cpu[i], hCpu[i]]);
    }
    const block: (typeof blocks)[number] = { name, rows };
    if (Math.min(b.real.length, hReal.length) >= 2) {
      const time = mannWhitneyU(b.real, hReal, { method: 'scipy' }).p;
      const cpu = mannWhitneyU(b.cpu, hCpu, { method: 'scipy' }).p;
      // compare.py drops the U test when either p-value is exactly 0 (a falsy check); keep its behaviour.
      if (time && cpu) block.utest = { time, cpu, n: b.real.length, m: hReal.length };
    }
    blocks.push(block);
  }
  const baseMean = geomeanSeconds(baseTimes);
  const headMean = geomeanSeconds(headTimes);
  if (baseMean && headMean) {
    blocks.push({ name: 'OVERALL_GEOMEAN', rows: [[change(baseMean[0], headMean[0]), change(baseMean[1], headMean[1]), baseMean[0], headMean[0], baseMean[1], headMean[1]]] });
  }

  const width = Math.max(1, 'Benchmark'.length, ...blocks.map((b) => b.name.length)) + '_pvalue'.length;
  const first = `${'Benchmark'.padEnd(12 + width)}Time             CPU      Time Old      Time New       CPU Old       CPU New`;
  const lines = [first, '-'.repeat(first.length)];
  for (const block of blocks) {
    for (const r of block.rows) {
      lines.push(block.name.padEnd(width) + signed(r[0]).padStart(16) + signed(r[1]).padStart(16) + r.slice(2).map((v) => fixed(v, 0).padStart(14)).join(''));
    }
    if (block.utest) {
      const { time, cpu, n, m } = block.utest;
      let description = `U Test, Repetitions: ${n} vs ${m}`;
      if (Math.min(n, m) < 9) description += '. WARNING: Results unreliable! 9+ repetitions recommended.';
      lines.push(`${block.name}_pvalue`.padEnd(width) + fixed(time, 4).padStart(16) + fixed(cpu, 4).padStart(16) + '      ' + description);
    }
  }
  return lines.join('\n');
}

interface Times {
  unit: string;
  real: number[];
  cpu: number[];
}

function timesByBenchmark(measurements: readonly Measurement[]): Map<string, Times> {
  const real = new Map(measurements.filter((m) => m.metric === 'real_time').map((m) => [m.benchmark, m]));
  const times = new Map<string, Times>();
  for (const m of measurements) {
    if (m.metric !== 'cpu_time') continue;
    const r = real.get(m.benchmark);
    if (r && r.unit === m.unit && r.values.length === m.values.length) times.set(m.benchmark, { unit: m.unit, real: r.values, cpu: m.values });
  }
  return times;
}

/** change is compare.py's calculate_change: relative change, symmetric when the old value is 0. */
function change(oldValue: number, newValue: number): number {
  if (oldValue === 0 && newValue === 0) return 0;
  if (oldValue === 0) return (newValue - oldValue) / ((oldValue + newValue) / 2);
  return (newValue - oldValue) / Math.abs(oldValue);
}

function geomeanSeconds(times: Map<string, Times>): [number, number] | undefined {
  const real: number[] = [];
  const cpu: number[] = [];
  for (const t of times.values()) {
    const toSeconds = conversionFactor(t.unit, 's') as number;
    real.push(...t.real.map((v) => v * toSeconds));
    cpu.push(...t.cpu.map((v) => v * toSeconds));
  }
  if (real.length === 0) return undefined;
  const r = geometricMean(real);
  const c = geometricMean(cpu);
  return r === null || c === null ? undefined : [r, c];
}

/** fixed formats like Python's `{:.Nf}`: exact ties round half to even, -0 keeps its sign. */
function fixed(value: number, decimals: number): string {
  let text = value.toFixed(decimals);
  if (decimals === 0 && Math.abs(value % 1) === 0.5) {
    const down = Math.trunc(value);
    text = String(Math.abs(down) % 2 === 0 ? down : down + Math.sign(value));
  }
  if ((value < 0 || Object.is(value, -0)) && !text.startsWith('-')) text = `-${text}`;
  return text;
}

function signed(value: number): string {
  const text = fixed(value, 4);
  return text.startsWith('-') ? text : `+${text}`;
}
