import type { Measurement } from '../model/measurement.ts';
import type { GoogleBenchmarkRow } from '../formats/google-benchmark.ts';
import { mannWhitneyU } from '../stats/mann-whitney.ts';
import { inertPlain } from './inert-markdown.ts';

/** ComparePySide is one side of `compare.py benchmarks A B`: its label (the path as given) and its rows in file order. */
export interface ComparePySide {
  label: string;
  rows: readonly GoogleBenchmarkRow[];
}

/** compare.py's UTEST_MIN_REPETITIONS and UTEST_OPTIMAL_REPETITIONS. */
const UTEST_MIN_REPETITIONS = 2;
const UTEST_OPTIMAL_REPETITIONS = 9;

/** compare.py multiplies (1e-9, not / 1e9); the same float operations give the same geomean. */
const SECONDS_PER_UNIT = new Map([
  ['s', 1.0],
  ['ms', 1e-3],
  ['us', 1e-6],
  ['ns', 1e-9],
]);

/**
 * renderComparePy prints what Google Benchmark's `compare.py benchmarks A B`
 * (1.7, `--no-color`) prints for the same two files, line for line:
 *
 * - the `Comparing A to B` header, then rows sorted as compare.py sorts them
 *   (family, instance, iterations before aggregates, repetition index);
 * - for every name in both files (in the base's order), its rows paired by
 *   position, iteration and aggregate rows alike, in the base's first time
 *   unit (rows in another unit are left out on both sides);
 * - a `NAME_pvalue` row with scipy's two-sided `mannwhitneyu` of real and
 *   CPU time when every side has 2+ rows (the "9+ repetitions" warning
 *   below 9), left out when either p-value is 0, as compare.py's falsy check;
 * - `OVERALL_GEOMEAN` over every non-aggregate row of each file in seconds,
 *   when either geomean is non-zero.
 *
 * Names found in only one file are not printed, as in compare.py. Errored
 * rows are compared like any other (compare.py does not look at
 * `error_occurred`); the other outputs report them as errors instead.
 */
export function renderComparePy(base: ComparePySide, head: ComparePySide): string {
  const lhs = sortRows(base.rows);
  const rhs = sortRows(head.rows);
  const blocks: Block[] = [];
  for (const [left, right] of partition(lhs, rhs)) {
    const rows: number[][] = [];
    for (let i = 0; i < Math.min(left.length, right.length); i++) {
      const b = left[i];
      const h = right[i];
      rows.push([change(b.realTime as number, h.realTime as number), change(b.cpuTime as number, h.cpuTime as number), b.realTime as number, h.realTime as number, b.cpuTime as number, h.cpuTime as number]);
    }
    if (rows.length === 0) continue;
    // Names come from the code under test: no escape sequence or workflow command reaches the terminal or the log.
    blocks.push({ name: inertPlain(left[0].name), rows, utest: uTest(left, right) });
  }
  const baseMean = geomean(lhs);
  const headMean = geomean(rhs);
  if (baseMean !== undefined && headMean !== undefined && (baseMean.some((v) => v !== 0) && headMean.some((v) => v !== 0))) {
    blocks.push({ name: 'OVERALL_GEOMEAN', rows: [[change(baseMean[0], headMean[0]), change(baseMean[1], headMean[1]), baseMean[0], headMean[0], baseMean[1], headMean[1]]] });
  }

  // A reduce, not Math.max(...): 120 k+ benchmarks overflow the stack.
  const width = blocks.reduce((w, b) => Math.max(w, b.name.length), 'Benchmark'.length) + '_pvalue'.length;
  const first = `${'Benchmark'.padEnd(12 + width)}Time             CPU      Time Old      Time New       CPU Old       CPU New`;
  const lines = [`Comparing ${inertPlain(base.label)} to ${inertPlain(head.label)}`, first, '-'.repeat(first.length)];
  for (const block of blocks) {
    for (const r of block.rows) {
      lines.push(block.name.padEnd(width) + signed(r[0]).padStart(16) + signed(r[1]).padStart(16) + r.slice(2).map((v) => fixed(v, 0).padStart(14)).join(''));
    }
    if (block.utest) {
      const { time, cpu, n, m, optimal } = block.utest;
      let description = `U Test, Repetitions: ${n} vs ${m}`;
      if (!optimal) description += `. WARNING: Results unreliable! ${UTEST_OPTIMAL_REPETITIONS}+ repetitions recommended.`;
      lines.push(`${block.name}_pvalue`.padEnd(width) + fixed(time, 4).padStart(16) + fixed(cpu, 4).padStart(16) + '      ' + description);
    }
  }
  return lines.join('\n');
}

interface Block {
  name: string;
  rows: number[][];
  utest?: { time: number; cpu: number; n: number; m: number; optimal: boolean };
}

/**
 * comparePyRows turns measurements of a harness other than Google Benchmark
 * into rows compare.py would read: one iteration row per value of a
 * benchmark that has real_time and cpu_time in the same unit and count.
 */
export function comparePyRows(measurements: readonly Measurement[]): GoogleBenchmarkRow[] {
  const real = new Map(measurements.filter((m) => m.metric === 'real_time').map((m) => [m.benchmark, m]));
  const rows: GoogleBenchmarkRow[] = [];
  for (const m of measurements) {
    if (m.metric !== 'cpu_time') continue;
    const r = real.get(m.benchmark);
    if (!r || r.unit !== m.unit || r.values.length !== m.values.length || !SECONDS_PER_UNIT.has(m.unit)) continue;
    for (let i = 0; i < m.values.length; i++) {
      rows.push({ name: m.benchmark, runName: m.benchmark, aggregate: false, timeUnit: m.unit, realTime: r.values[i], cpuTime: m.values[i] });
    }
  }
  return rows;
}

/** sortRows is compare.py's sort_benchmark_results: four stable sorts, i.e. one sort on the key tuple. */
function sortRows(rows: readonly GoogleBenchmarkRow[]): GoogleBenchmarkRow[] {
  const keyed = rows.map((row, index) => ({ row, index }));
  const key = (r: GoogleBenchmarkRow) => [r.familyIndex ?? -1, r.perFamilyInstanceIndex ?? -1, r.aggregate ? 1 : 0, r.repetitionIndex ?? -1];
  keyed.sort((a, b) => {
    const ka = key(a.row);
    const kb = key(b.row);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return ka[i] - kb[i];
    return a.index - b.index;
  });
  return keyed.map((k) => k.row);
}

function comparable(row: GoogleBenchmarkRow): boolean {
  return row.timeUnit !== undefined && row.realTime !== undefined && row.cpuTime !== undefined;
}

/** partition is compare.py's partition_benchmarks: names of both files in the base's order, rows in the base's first time unit. */
function partition(lhs: GoogleBenchmarkRow[], rhs: GoogleBenchmarkRow[]): [GoogleBenchmarkRow[], GoogleBenchmarkRow[]][] {
  const byName = (rows: GoogleBenchmarkRow[]) => {
    const map = new Map<string, GoogleBenchmarkRow[]>();
    for (const row of rows) {
      const list = map.get(row.name);
      if (list) list.push(row);
      else map.set(row.name, [row]);
    }
    return map;
  };
  const left = byName(lhs);
  const right = byName(rhs);
  const partitions: [GoogleBenchmarkRow[], GoogleBenchmarkRow[]][] = [];
  for (const [name, rows] of left) {
    const other = right.get(name);
    if (other === undefined) continue;
    const unit = rows.find(comparable)?.timeUnit;
    if (unit === undefined) continue;
    // compare.py filters by unit only; a row of that unit without both times would crash it, so it is left out here.
    const keep = (row: GoogleBenchmarkRow) => row.timeUnit === unit && comparable(row);
    partitions.push([rows.filter(keep), other.filter(keep)]);
  }
  return partitions;
}

function uTest(left: GoogleBenchmarkRow[], right: GoogleBenchmarkRow[]): Block['utest'] {
  const n = left.length;
  const m = right.length;
  if (Math.min(n, m) < UTEST_MIN_REPETITIONS) return undefined;
  const p = (field: 'realTime' | 'cpuTime') => {
    try {
      return mannWhitneyU(left.map((r) => r[field] as number), right.map((r) => r[field] as number), { method: 'scipy' }).p;
    } catch {
      // NaN times: scipy's p is NaN, which compare.py prints; benchbot's test refuses them.
      return Number.NaN;
    }
  };
  const time = p('realTime');
  const cpu = p('cpuTime');
  // compare.py keeps the U test only when both p-values are truthy: 0 drops it, NaN does not.
  if (time === 0 || cpu === 0) return undefined;
  return { time, cpu, n, m, optimal: Math.min(n, m) >= UTEST_OPTIMAL_REPETITIONS };
}

/** geomean is compare.py's calculate_geomean: scipy's gmean of [real, cpu] in seconds over the non-aggregate rows, where a 0 makes it 0. */
function geomean(rows: GoogleBenchmarkRow[]): [number, number] | undefined {
  let real = 0;
  let cpu = 0;
  let count = 0;
  for (const row of rows) {
    if (row.aggregate) continue;
    const factor = SECONDS_PER_UNIT.get(row.timeUnit ?? 's');
    if (factor === undefined || row.realTime === undefined || row.cpuTime === undefined) continue;
    real += Math.log(row.realTime * factor);
    cpu += Math.log(row.cpuTime * factor);
    count += 1;
  }
  if (count === 0) return undefined;
  return [Math.exp(real / count), Math.exp(cpu / count)];
}

/** change is compare.py's calculate_change: relative change, symmetric when the old value is 0. */
function change(oldValue: number, newValue: number): number {
  if (oldValue === 0 && newValue === 0) return 0;
  if (oldValue === 0) return (newValue - oldValue) / ((oldValue + newValue) / 2);
  return (newValue - oldValue) / Math.abs(oldValue);
}

/**
 * fixed formats like Python's `{:.Nf}`: the exact binary value rounded, ties
 * to even (JavaScript's toFixed breaks ties upward), -0 keeps its sign, no
 * exponent for large values, and nan/inf spelled as Python spells them.
 */
export function fixed(value: number, decimals: number): string {
  if (Number.isNaN(value)) return 'nan';
  if (!Number.isFinite(value)) return value > 0 ? 'inf' : '-inf';
  const negative = value < 0 || Object.is(value, -0);
  const magnitude = Math.abs(value);
  let text: string;
  if (magnitude >= 1e21) {
    // Doubles this large are integers; BigInt prints every digit, as Python does.
    text = BigInt(magnitude).toString() + (decimals > 0 ? `.${'0'.repeat(decimals)}` : '');
  } else {
    text = magnitude.toFixed(decimals);
    // A tie shows as a 5 followed by zeros in the exact expansion; doubles below 1e21 have no digits past 1e-40 that matter here.
    const exact = magnitude.toFixed(Math.min(100, decimals + 40));
    const tail = exact.slice(exact.indexOf('.') + 1 + decimals);
    if (/^50*$/.test(tail) && Number(text.at(-1)) % 2 === 1) {
      // toFixed rounded the tie up to an odd digit; Python keeps the even neighbour below.
      const digits = text.replace('.', '');
      const lowered = (BigInt(digits) - 1n).toString().padStart(digits.length, '0');
      text = decimals > 0 ? `${lowered.slice(0, -decimals)}.${lowered.slice(-decimals)}` : lowered;
    }
  }
  return negative ? `-${text}` : text;
}

function signed(value: number): string {
  const text = fixed(value, 4);
  return text.startsWith('-') ? text : `+${text}`;
}
