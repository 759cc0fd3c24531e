import type { Fingerprint } from '../model/fingerprint.ts';
import type { FingerprintHints, Measurement } from '../model/measurement.ts';
import { conversionFactor } from '../model/units.ts';
import { dipTest } from '../stats/dip-test.ts';
import { benjaminiHochberg } from '../stats/fdr.ts';
import { mannKendall } from '../stats/mann-kendall.ts';
import { robustCv } from '../stats/robust-cv.ts';

/** Fewer samples per side than this draws a warning (compare.py recommends 9+ repetitions too). */
export const RECOMMENDED_SAMPLES = 9;
/** Robust CV (1.4826 MAD / median) above this is called noisy. */
export const NOISY_CV = 0.05;
/**
 * HYGIENE_FDR is the false discovery rate (0.05) of the trend and bimodal
 * warnings across the whole suite: one Benjamini-Hochberg family over every
 * side's Mann-Kendall and dip-test p-values. Where nothing trends and
 * everything has one mode, the chance of even one such warning in the whole
 * report is then at most 5% (independent tests).
 */
export const HYGIENE_FDR = 0.05;
/** A side needs this many values (8) to be tested for a trend across rounds. */
export const TREND_MIN_N = 8;
/** A side needs this many values (10) to be tested for two modes. */
export const BIMODAL_MIN_N = 10;
/** A time per operation below this (in ns) suggests the compiler removed the work. */
export const OPTIMIZED_OUT_NS = 1;

/**
 * WarningKind names a kind of per-comparison warning: every message of the
 * kind starts with `prefix`, and `summary` says in a report what a list of
 * benchmarks with it means. Reports group by kind, so that a suite with
 * forty bimodal benchmarks shows one line, not forty.
 */
export interface WarningKind {
  kind: 'too-few' | 'noisy' | 'bimodal' | 'trend' | 'optimized-out';
  prefix: string;
  summary: string;
}

/** WARNING_KINDS lists the per-comparison hygiene warnings in the order reports show them. */
export const WARNING_KINDS: readonly WarningKind[] = [
  { kind: 'optimized-out', prefix: 'optimized out', summary: `Under ${OPTIMIZED_OUT_NS} ns per iteration: the work was likely optimized out (use DoNotOptimize / black_box).` },
  { kind: 'bimodal', prefix: 'bimodal', summary: 'Two clusters of values (dip test): compare with care.' },
  { kind: 'trend', prefix: 'trend across rounds', summary: 'Values drift from round to round (Mann-Kendall): a warm-up or a drifting machine.' },
  { kind: 'noisy', prefix: 'noisy', summary: `Robust CV above ${NOISY_CV * 100}%.` },
  { kind: 'too-few', prefix: 'too few samples', summary: `Fewer than ${RECOMMENDED_SAMPLES} samples on a side.` },
];

/** warningKind returns the kind of a per-comparison warning message, or undefined for a one-off note. */
export function warningKind(message: string): WarningKind | undefined {
  return WARNING_KINDS.find((k) => message.startsWith(`${k.prefix}:`) || message.startsWith(`${k.prefix} `));
}

/**
 * hygieneWarnings looks, in one measurement's two sides, for the problems
 * that need no suite-wide control: too few samples, a high robust CV, work
 * too fast to be real. The statistical checks (trend, two modes) are
 * addSuiteHygieneWarnings'. Values must already be in the measurement's unit.
 */
export function hygieneWarnings(m: Measurement, base: readonly number[], head: readonly number[]): string[] {
  const warnings: string[] = [];
  const sides: [string, readonly number[]][] = [['base', base], ['head', head]];
  for (const [side, values] of sides) {
    if (values.length < RECOMMENDED_SAMPLES) {
      warnings.push(`too few samples: ${values.length} on ${side}; ${RECOMMENDED_SAMPLES}+ per side recommended`);
    }
    if (values.length >= 3) {
      const cv = robustCv(values);
      if (cv !== null && cv > NOISY_CV) warnings.push(`noisy: robust CV ${(cv * 100).toFixed(1)}% on ${side} (above ${NOISY_CV * 100}%)`);
    }
  }
  const toNs = conversionFactor(m.unit.split('/')[0], 'ns');
  if (toNs !== undefined && m.better === 'lower') {
    const smallest = minimum(base, head) * toNs;
    if (smallest >= 0 && smallest < OPTIMIZED_OUT_NS) {
      warnings.push(`optimized out: ${smallest.toPrecision(2)} ns per iteration, the work was likely optimized out (use DoNotOptimize / black_box)`);
    }
  }
  return warnings;
}

/** HygieneSubject is one comparison's two sides (in round order) and the warnings list the suite checks append to. */
export interface HygieneSubject {
  base: readonly number[];
  head: readonly number[];
  warnings: string[];
}

/**
 * addSuiteHygieneWarnings tests every side of every subject for a monotone
 * trend across rounds (Mann-Kendall) and for a second mode (Hartigan's dip
 * test), adjusts all those p-values together with Benjamini-Hochberg, and
 * appends a warning to each subject whose q-value is at most `fdr`
 * ({@link HYGIENE_FDR}). Sides with all values equal carry no information
 * and are not tested, so they do not dilute the family.
 *
 * Why suite-wide: at p < 0.01 per side, 10,000 benchmarks x 2 sides of
 * trend-free, one-mode noise raised about 200 false trend warnings.
 */
export function addSuiteHygieneWarnings(subjects: readonly HygieneSubject[], fdr = HYGIENE_FDR): void {
  const tests: { subject: HygieneSubject; p: number; message: (p: string, q: string) => string }[] = [];
  for (const subject of subjects) {
    for (const [side, values] of [['base', subject.base], ['head', subject.head]] as const) {
      if (values.length < TREND_MIN_N || isConstant(values)) continue;
      const trend = mannKendall(values);
      tests.push({ subject, p: trend.p, message: (p, q) => `trend across rounds on ${side} (Mann-Kendall p = ${p}, q = ${q}): values ${trend.s > 0 ? 'rise' : 'fall'} from round to round, a warm-up or a drifting machine` });
      if (values.length >= BIMODAL_MIN_N) {
        const modes = dipTest(values);
        tests.push({ subject, p: modes.p, message: (p, q) => `bimodal on ${side} (dip test p = ${p}, q = ${q}): two clusters of values, compare with care` });
      }
    }
  }
  const qs = benjaminiHochberg(tests.map((t) => t.p));
  tests.forEach((t, i) => {
    if (qs[i] <= fdr) t.subject.warnings.push(t.message(t.p.toPrecision(2), qs[i].toPrecision(2)));
  });
}

/** isConstantPair is true when every base and head value is one and the same number: nothing to test (`0 B/op` on both sides). */
export function isConstantPair(base: readonly number[], head: readonly number[]): boolean {
  if (base.length === 0 || head.length === 0) return false;
  const v = base[0];
  return base.every((x) => x === v) && head.every((x) => x === v);
}

// A loop, not Math.min(...values): spreading 120 k+ arguments overflows the stack.
function minimum(...sides: readonly (readonly number[])[]): number {
  let smallest = Infinity;
  for (const side of sides) for (const v of side) if (v < smallest) smallest = v;
  return smallest;
}

function isConstant(values: readonly number[]): boolean {
  return values.every((x) => x === values[0]);
}

/** SideFacts is what suiteWarnings needs of a side. */
export interface SideFacts {
  hints: FingerprintHints;
  fingerprint?: Fingerprint;
  warnings: readonly { message: string; benchmark?: string; kind?: string }[];
}

// Hints that must agree between base and head for the comparison to be fair.
const MACHINE_HINTS = ['host_name', 'num_cpus', 'mhz_per_cpu', 'cpu', 'goos', 'goarch', 'machine', 'cpu_model'];

// Reader warnings about an input as a whole: each round (or file) repeats
// them under its own name, `base round 7 output: console output has ...`.
const PER_INPUT_KINDS = new Set(['summary-only', 'note', 'exit-code']);

/**
 * suiteWarnings reports what concerns the whole comparison: a debug build
 * (once, with the fix), CPU frequency scaling, base and head from
 * different machines, and every warning the readers raised, a warning
 * that each round or file repeated under its own name shown once.
 */
export function suiteWarnings(base: SideFacts, head: SideFacts): string[] {
  // Collect per side, then say once what both sides share ("base and head: ...").
  const bySide = new Map<string, Set<string>>();
  const add = (side: string, message: string) => {
    const sides = bySide.get(message) ?? new Set<string>();
    sides.add(side);
    bySide.set(message, sides);
  };
  const sides: [string, SideFacts][] = [['base', base], ['head', head]];
  for (const [side, facts] of sides) {
    const debug = debugBuild(facts);
    if (debug !== undefined) add(side, debug);
    if (facts.hints.cpu_scaling_enabled === true) add(side, 'CPU frequency scaling was on: expect noise (set the governor to performance)');
    for (const message of readerWarnings(facts.warnings)) add(side, message);
  }
  const warnings = [...bySide].map(([message, where]) => `${[...where].join(' and ')}: ${message}`);
  warnings.push(...fingerprintDifferences(base, head).map((d) => `base and head ran on different machines: ${d}`));
  return warnings;
}

/**
 * debugBuild says how the harness reported a debug build, where that signal
 * comes from, and a fix that applies. Google Benchmark's
 * `library_build_type` is how the library itself was compiled (NDEBUG or
 * not), not the code under test: Debian's and Ubuntu's libbenchmark-dev
 * report "debug" whatever flags the user's Makefile or CMake build uses, so
 * telling them to rebuild their own code in Release would fix nothing.
 */
function debugBuild(facts: SideFacts): string | undefined {
  const build = facts.hints.library_build_type ?? facts.fingerprint?.buildType;
  if (typeof build === 'string' && build.toLowerCase() === 'debug') {
    return 'Google Benchmark reports library_build_type: debug, which is how the benchmark library itself was compiled (without NDEBUG), not your code: ' +
      'Debian\'s and Ubuntu\'s libbenchmark-dev report it whatever your build does, and it costs little (the timing loop is in the header, compiled with your flags). ' +
      'To remove it, link a Google Benchmark built in Release (cmake -DCMAKE_BUILD_TYPE=Release -DBENCHMARK_ENABLE_TESTING=OFF, or CMake FetchContent)';
  }
  if (facts.hints.debug_build === true) {
    return 'BenchmarkDotNet ran a Debug build, which distorts timings: run the benchmarks with -c Release';
  }
  return undefined;
}

/**
 * readerWarnings renders the readers' warnings, collapsing those about an
 * input as a whole that differ only in the input's name before the first
 * `: ` (one per round of `benchbot run`) into one line with a count.
 */
function readerWarnings(warnings: SideFacts['warnings']): string[] {
  const groups = new Map<string, { first: string; repeated: string; inputs: Set<string> }>();
  for (const w of warnings) {
    const named = w.benchmark !== undefined && !w.message.includes(w.benchmark) ? `${w.benchmark}: ` : '';
    const colon = w.message.indexOf(': ');
    const collapsible = w.kind !== undefined && PER_INPUT_KINDS.has(w.kind) && colon > 0;
    const text = collapsible ? w.message.slice(colon + 2) : w.message;
    const key = `${w.kind ?? ''}\u0000${named}\u0000${text}`;
    const group = groups.get(key) ?? { first: `${named}${w.message}`, repeated: `${named}${text}`, inputs: new Set<string>() };
    group.inputs.add(collapsible ? w.message.slice(0, colon) : '');
    groups.set(key, group);
  }
  return [...groups.values()].map((g) => (g.inputs.size > 1 ? `${g.repeated} (in ${g.inputs.size} inputs)` : g.first));
}

/** fingerprintDifferences lists the machine facts that differ between two sides, as `field: a vs b`. */
export function fingerprintDifferences(base: SideFacts, head: SideFacts): string[] {
  const differences: string[] = [];
  for (const hint of MACHINE_HINTS) {
    const a = base.hints[hint];
    const b = head.hints[hint];
    if (a !== undefined && b !== undefined && a !== b) differences.push(`${hint}: ${a} vs ${b}`);
  }
  if (base.fingerprint && head.fingerprint) {
    const fields = ['cpuModel', 'cores', 'governor', 'turbo', 'smt', 'isolatedCpus', 'kernel', 'memoryBytes', 'virtualization', 'hostName', 'buildType'] as const;
    for (const field of fields) {
      const a = base.fingerprint[field];
      const b = head.fingerprint[field];
      if (a !== undefined && b !== undefined && a !== b) differences.push(`${field}: ${a} vs ${b}`);
    }
  }
  return differences;
}
