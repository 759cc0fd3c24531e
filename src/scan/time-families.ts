/**
 * time-families: Google Benchmark reports two times of one measurement
 * (real_time and cpu_time); the scan scans one of them per benchmark.
 */

import { primaryMetrics } from '../compare/metric-family.ts';
import { noiseSigma } from '../compare/power.ts';
import { median } from '../stats/order-statistics.ts';
import { SCAN_DEFAULTS } from './scan-options.ts';
import type { Series } from './series.ts';

/**
 * TimeFamily is one benchmark (on one machine and branch) with both of
 * Google Benchmark's times: `primary` is the metric scanned, `secondary`
 * the one left out, `noise` each one's per-round noise (log scale, median
 * over its newest nights).
 */
export interface TimeFamily {
  benchmark: string;
  machineKey: string;
  branch: string;
  primary: string;
  secondary: string;
  noise: Record<string, number | null>;
}

/**
 * timeFamilies treats `real_time` and `cpu_time` of one benchmark as one
 * measurement, as the PR check does (compare/metric-family.ts):
 * `real_time` is primary unless `cpu_time`'s per-round noise is below
 * CPU_TIME_QUIETER (one half) of real_time's. The noise is each series' own
 * spread within a night (noiseSigma, median over up to `windowLen` newest
 * nights), never a change between nights, so the choice cannot favour a
 * finding. Only the primary one is scanned: two series of one measurement
 * would count it twice in the FDR family and file one regression twice.
 * Other metrics (counters, rates) stay series of their own.
 */
export function timeFamilies(allSeries: readonly Series[], windowLen = SCAN_DEFAULTS.windowLen): TimeFamily[] {
  const groups = new Map<string, Map<string, Series>>();
  for (const s of allSeries) {
    if (s.metric !== 'real_time' && s.metric !== 'cpu_time') continue;
    const k = `${s.branch}\u0000${s.benchmark}\u0000${s.machineKey}`;
    const g = groups.get(k) ?? new Map<string, Series>();
    groups.set(k, g);
    g.set(s.metric, s);
  }
  const out: TimeFamily[] = [];
  for (const g of groups.values()) {
    const real = g.get('real_time');
    const cpu = g.get('cpu_time');
    if (!real || !cpu) continue;
    const noise = (s: Series) => {
      const sigmas = s.nights.slice(-windowLen).map((n) => noiseSigma(n.values)).filter((x): x is number => x !== null);
      return sigmas.length > 0 ? median(sigmas) : null;
    };
    const sigma = new Map([[real, noise(real)], [cpu, noise(cpu)]]);
    const primary = primaryMetrics([real, cpu], (s) => sigma.get(s) ?? undefined).get(real.benchmark) ?? 'real_time';
    out.push({
      benchmark: real.benchmark, machineKey: real.machineKey, branch: real.branch,
      primary, secondary: primary === 'cpu_time' ? 'real_time' : 'cpu_time',
      noise: { real_time: sigma.get(real) ?? null, cpu_time: sigma.get(cpu) ?? null },
    });
  }
  return out;
}
