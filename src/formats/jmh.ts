import type { Direction, FingerprintHints, Measurement } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { directionOf } from '../model/units.ts';

const MODES = new Set(['thrpt', 'avgt', 'sample', 'ss']);

/**
 * jmhReader reads JMH's `-rf json` result file.
 *
 * Each entry is one benchmark method in one mode. Its name is `benchmark`
 * (fully qualified, as JMH writes it) with the `params` appended as
 * `(length=8,kind=a)` in JMH's order; when the same benchmark and params ran
 * in more than one mode (`-bm avgt,thrpt`), ` [mode]` follows, so each name
 * means one mode only.
 *
 * The primary metric is `throughput` when `scoreUnit` is per time (`ops/s`,
 * higher is better) and `time` when it is time per op (`us/op`, lower), in
 * JMH's unit. Values are `rawData` flattened fork by fork, one per measurement
 * iteration; mode `sample` has `rawDataHistogram` instead, and each
 * iteration's histogram becomes its mean (what JMH's score averages), since
 * expanding it would mean one value per timed call. Every secondary metric
 * (the profilers' `gc.alloc.rate.norm` B/op, sample mode's `p0.99`...) is a
 * measurement of its own with its own unit, its values flattened the same way
 * (gc.time lists only iterations that saw a collection, so its count varies;
 * a secondary with no values is left out); a leading `·` (older JMH) is dropped. gc.* metrics are costs, so lower is
 * better even for `MB/sec`; other secondaries go by directionOf. JMH leaves
 * failed benchmarks out of the file, so there is nothing to warn about.
 * Hints: jmhVersion, jdkVersion, vmName, vmVersion, jvmArgs (space-joined).
 */
export const jmhReader: Reader = {
  format: 'jmh',
  description: 'JMH -rf json',

  sniff(head: string): boolean {
    return /^\s*\[\s*\{/.test(head) && /"jmhVersion"\s*:/.test(head) && /"benchmark"\s*:/.test(head);
  },

  read(file: SourceFile): ReadResult {
    const j: JsonReader = new JsonReader(file.path);
    const entries = j.array(parseJsonDocument(file), '$');
    if (entries.length === 0) j.fail('$', 'no benchmark results');

    const parsed = entries.map((raw, i) => {
      const path = `[${i}]`;
      const e = j.object(raw, path);
      const benchmark = j.string(e.benchmark, `${path}.benchmark`);
      if (benchmark === '') j.fail(`${path}.benchmark`, 'empty benchmark name');
      const mode = j.string(e.mode, `${path}.mode`);
      if (!MODES.has(mode)) j.fail(`${path}.mode`, `unknown mode "${mode}"; expected one of ${[...MODES].join(', ')}`);
      const params: string[] = [];
      if (e.params !== undefined && e.params !== null) {
        for (const [k, v] of Object.entries(j.object(e.params, `${path}.params`))) params.push(`${k}=${j.string(v, `${path}.params.${k}`)}`);
      }
      const base = params.length > 0 ? `${benchmark}(${params.join(',')})` : benchmark;
      return { path, e, mode, base };
    });

    const modes = new Map<string, Set<string>>();
    for (const p of parsed) modes.set(p.base, (modes.get(p.base) ?? new Set()).add(p.mode));

    const measurements: Measurement[] = [];
    const budget = new ReadBudget(file.path);
    const seen = new Set<string>();
    for (const { path, e, mode, base } of parsed) {
      const name = (modes.get(base)?.size ?? 0) > 1 ? `${base} [${mode}]` : base;
      if (seen.has(name)) j.fail(path, `benchmark "${name}" appears twice`);
      seen.add(name);

      const primary = j.object(e.primaryMetric, `${path}.primaryMetric`);
      const unit = j.string(primary.scoreUnit, `${path}.primaryMetric.scoreUnit`);
      const metric = /^ops\//.test(unit) ? 'throughput' : 'time';
      const values = metricValues(j, primary, `${path}.primaryMetric`);
      if (values.length === 0) j.fail(`${path}.primaryMetric.rawData`, 'no measurement iterations');
      budget.series();
      measurements.push({ benchmark: name, metric, unit, better: directionOf(metric, unit), values });

      if (e.secondaryMetrics === undefined || e.secondaryMetrics === null) continue;
      const secondaries = j.object(e.secondaryMetrics, `${path}.secondaryMetrics`);
      for (const [key, raw] of Object.entries(secondaries)) {
        const at = `${path}.secondaryMetrics["${key}"]`;
        const secondary = j.object(raw, at);
        const secondaryMetric = key.replace(/^[·:]+/, '');
        if (secondaryMetric === '' || secondaryMetric === 'time' || secondaryMetric === 'throughput') j.fail(at, `secondary metric name "${key}" clashes with the primary metric`);
        const secondaryUnit = j.string(secondary.scoreUnit, `${at}.scoreUnit`);
        const secondaryValues = metricValues(j, secondary, at);
        // gc.time lists only the iterations that saw a collection: possibly none.
        if (secondaryValues.length === 0) continue;
        budget.series();
        measurements.push({
          benchmark: name,
          metric: secondaryMetric,
          unit: secondaryUnit,
          better: secondaryDirection(secondaryMetric, secondaryUnit),
          values: secondaryValues,
        });
      }
    }
    return { measurements, warnings: [], hints: readHints(j, j.object(entries[0], '[0]')) };
  },
};

function secondaryDirection(metric: string, unit: string): Direction {
  // The GC profiler reports costs; a higher allocation rate is not an improvement.
  return metric.startsWith('gc.') ? 'lower' : directionOf(metric, unit);
}

/** metricValues flattens rawData (or the per-iteration means of rawDataHistogram) fork by fork. */
function metricValues(j: JsonReader, metric: Record<string, unknown>, path: string): number[] {
  const values: number[] = [];
  if (metric.rawData !== undefined && metric.rawData !== null) {
    j.array(metric.rawData, `${path}.rawData`).forEach((fork, f) => {
      // A loop, not push(...): spreading a long array overflows the call stack.
      for (const v of j.numbers(fork, `${path}.rawData[${f}]`)) values.push(v);
    });
  } else if (metric.rawDataHistogram !== undefined && metric.rawDataHistogram !== null) {
    j.array(metric.rawDataHistogram, `${path}.rawDataHistogram`).forEach((fork, f) => {
      j.array(fork, `${path}.rawDataHistogram[${f}]`).forEach((iteration, i) => {
        const at = `${path}.rawDataHistogram[${f}][${i}]`;
        let sum = 0;
        let count = 0;
        j.array(iteration, at).forEach((bin, b) => {
          const pair = j.numbers(bin, `${at}[${b}]`);
          if (pair.length !== 2) j.fail(`${at}[${b}]`, `expected [value, count], got ${pair.length} numbers`);
          if (pair[1] < 0) j.fail(`${at}[${b}][1]`, `expected a non-negative count, got ${pair[1]}`);
          sum += pair[0] * pair[1];
          count += pair[1];
        });
        if (count === 0) j.fail(at, 'empty histogram');
        const mean = sum / count;
        if (!Number.isFinite(mean)) j.fail(at, 'histogram mean is not finite');
        values.push(mean);
      });
    });
  } else {
    j.fail(`${path}.rawData`, 'missing: neither rawData nor rawDataHistogram');
  }
  return values;
}

function readHints(j: JsonReader, first: Record<string, unknown>): FingerprintHints {
  const hints: FingerprintHints = {};
  for (const key of ['jmhVersion', 'jdkVersion', 'vmName', 'vmVersion']) {
    const value = j.optionalString(first[key], `[0].${key}`);
    if (value !== undefined) hints[key] = value;
  }
  if (first.jvmArgs !== undefined && first.jvmArgs !== null) {
    const args = j.array(first.jvmArgs, '[0].jvmArgs').map((a, i) => j.string(a, `[0].jvmArgs[${i}]`));
    if (args.length > 0) hints.jvmArgs = args.join(' ');
  }
  return hints;
}
