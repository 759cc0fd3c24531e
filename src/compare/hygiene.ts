import type { Fingerprint } from '../model/fingerprint.ts';
import type { FingerprintHints, Measurement } from '../model/measurement.ts';
import { conversionFactor } from '../formats/units.ts';
import { bimodality } from '../stats/bimodality.ts';
import { mannKendall } from '../stats/mann-kendall.ts';
import { robustCv } from '../stats/robust-cv.ts';

/** Fewer samples per side than this draws a warning (compare.py recommends 9+ repetitions too). */
export const RECOMMENDED_SAMPLES = 9;
/** Robust CV (1.4826 MAD / median) above this is called noisy. */
export const NOISY_CV = 0.05;
/** A Mann-Kendall p-value below this over the round index is called a trend. */
export const TREND_P = 0.01;
/** A time per operation below this (in ns) suggests the compiler removed the work. */
export const OPTIMIZED_OUT_NS = 1;

/**
 * hygieneWarnings looks for the benchmark problems that cause most wrong
 * conclusions (DESIGN.md, "Benchmark hygiene") in one measurement's two
 * sides. Values must already be in the measurement's unit.
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
    if (values.length >= 10 && bimodality(values).bimodal) warnings.push(`bimodal samples on ${side}: two clusters, compare with care`);
    if (values.length >= 8) {
      const trend = mannKendall(values);
      if (trend.p < TREND_P) warnings.push(`trend across rounds on ${side} (Mann-Kendall p = ${trend.p.toPrecision(2)}): warm-up or drift`);
    }
  }
  const toNs = conversionFactor(m.unit.split('/')[0], 'ns');
  if (toNs !== undefined && m.better === 'lower') {
    const smallest = Math.min(...base, ...head) * toNs;
    if (smallest >= 0 && smallest < OPTIMIZED_OUT_NS) {
      warnings.push(`${smallest.toPrecision(2)} ns per iteration: the work was likely optimized out (use DoNotOptimize / black_box)`);
    }
  }
  return warnings;
}

/** SideFacts is what suiteWarnings needs of a side. */
export interface SideFacts {
  hints: FingerprintHints;
  fingerprint?: Fingerprint;
  warnings: readonly { message: string; benchmark?: string; kind?: string }[];
}

// Hints that must agree between base and head for the comparison to be fair.
const MACHINE_HINTS = ['host_name', 'num_cpus', 'mhz_per_cpu', 'cpu', 'goos', 'goarch', 'machine', 'cpu_model'];

/**
 * suiteWarnings reports what concerns the whole comparison: debug builds,
 * CPU frequency scaling, base and head from different machines, and every
 * warning the readers raised.
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
    const build = facts.hints.library_build_type ?? facts.fingerprint?.buildType;
    if (typeof build === 'string' && build.toLowerCase() === 'debug') {
      add(side, 'the benchmark library reports a debug build (library_build_type): timings may be distorted; use a release build of the harness and of the code');
    }
    if (facts.hints.cpu_scaling_enabled === true) add(side, 'CPU frequency scaling was on: expect noise (set the governor to performance)');
    for (const w of facts.warnings) add(side, `${w.benchmark !== undefined && !w.message.includes(w.benchmark) ? `${w.benchmark}: ` : ''}${w.message}`);
  }
  const warnings = [...bySide].map(([message, where]) => `${[...where].join(' and ')}: ${message}`);
  warnings.push(...fingerprintDifferences(base, head).map((d) => `base and head ran on different machines: ${d}`));
  return warnings;
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
