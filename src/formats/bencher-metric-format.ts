import type { Direction, Measurement, ReadWarning } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { directionOf } from './units.ts';

/**
 * BENCHER_MEASURES are the measures whose unit Bencher fixes: the two every
 * project starts with (Latency in nanoseconds, Throughput in operations per
 * second) and the ones its build-time and file-size options create. A file
 * names its measures by name or slug; both spellings are known here.
 */
const BENCHER_MEASURES: Record<string, { unit: string; better: Direction }> = {
  latency: { unit: 'ns', better: 'lower' },
  throughput: { unit: 'ops/s', better: 'higher' },
  'build-time': { unit: 's', better: 'lower' },
  'build time': { unit: 's', better: 'lower' },
  'file-size': { unit: 'B', better: 'lower' },
  'file size': { unit: 'B', better: 'lower' },
};

/**
 * bencherMetricFormatReader reads Bencher Metric Format (BMF) JSON, what
 * `bencher run --adapter json` takes: `{benchmark: {measure: {value,
 * lower_value?, upper_value?}}}`, and the entries of its v1 shape,
 * `{benchmark: [{parameters?, measures: {measure: {value, ...}}}]}` (the two
 * may be mixed, one per benchmark).
 *
 * Each benchmark x measure is one value, `value` (lower_value and
 * upper_value are bounds around it, not samples), of metric = the measure as
 * written. A v1 entry's parameters become part of the name, sorted by key,
 * numbers in their shortest spelling: `read (op=read, size_mb=16)`; entries
 * with the same parameters are one variant and the later value of a measure
 * wins, as in Bencher. A v1 measure without `value` (only `p99`, say) is
 * skipped with a `note` warning.
 *
 * Bencher keeps a measure's unit in the project, not in the file, so units
 * are known only for its built-in measures (BENCHER_MEASURES: latency `ns`,
 * throughput `ops/s` higher-is-better, build-time `s`, file-size `B`); any
 * other measure reads as `count`, its direction from its name (a name with
 * `throughput` or `_per_second` is higher-is-better, else lower), with one
 * `note` warning naming those measures.
 */
export const bencherMetricFormatReader: Reader = {
  format: 'bmf',
  description: 'Bencher Metric Format (BMF) JSON',

  sniff(head: string): boolean {
    return /^\uFEFF?\s*\{\s*"(?:[^"\\]|\\.)*"\s*:\s*(?:\{\s*"(?:[^"\\]|\\.)*"\s*:\s*\{\s*"(?:value|lower_value|upper_value)"\s*:|\[\s*\{\s*"(?:parameters|measures)"\s*:)/.test(head);
  },

  read(file: SourceFile): ReadResult {
    const doc = parseJsonDocument(file);
    const j = new JsonReader(file.path);
    const root = j.object(doc, '$');
    const names = Object.keys(root);
    if (names.length === 0) j.fail('$', 'no benchmarks: the object is empty');
    const budget = new ReadBudget(file.path);
    const measurements: Measurement[] = [];
    const byKey = new Map<string, Measurement>();
    const warnings: ReadWarning[] = [];
    const unknown = new Set<string>();

    const add = (benchmark: string, measure: string, value: number) => {
      const key = `${benchmark}\u0000${measure}`;
      const seen = byKey.get(key);
      if (seen) {
        seen.values[0] = value;
        return;
      }
      budget.series();
      budget.value();
      const known = BENCHER_MEASURES[measure.toLowerCase()];
      if (known === undefined) unknown.add(measure);
      const unit = known?.unit ?? 'count';
      const m: Measurement = { benchmark, metric: measure, unit, better: known?.better ?? directionOf(measure, unit), values: [value] };
      byKey.set(key, m);
      measurements.push(m);
    };

    for (const name of names) {
      if (name.trim() === '') j.fail('$', 'a benchmark name is empty');
      const path = `[${JSON.stringify(name)}]`;
      const entry = root[name];
      if (Array.isArray(entry)) {
        // BMF v1: one element per variant.
        entry.forEach((raw, i) => {
          const at = `${path}[${i}]`;
          const variant = j.object(raw, at);
          const benchmark = name + parameterSuffix(j, variant.parameters, `${at}.parameters`);
          const measures = j.object(variant.measures, `${at}.measures`);
          for (const [measure, metricsRaw] of Object.entries(measures)) {
            const mp = `${at}.measures[${JSON.stringify(measure)}]`;
            const metrics = j.object(metricsRaw, mp);
            if (metrics.value === undefined) {
              budget.series();
              const others = Object.keys(metrics).slice(0, 4).join(', ');
              warnings.push({ benchmark, kind: 'note', message: `${benchmark}: measure ${JSON.stringify(measure)} has no \`value\`${others === '' ? '' : ` (only ${others})`}; not read` });
              continue;
            }
            add(benchmark, measure, j.number(metrics.value, `${mp}.value`));
          }
        });
      } else {
        const measures = j.object(entry, path);
        const measureNames = Object.keys(measures);
        if (measureNames.length === 0) j.fail(path, 'no measures: give at least one, e.g. {"latency": {"value": 88.0}}');
        for (const measure of measureNames) {
          const mp = `${path}[${JSON.stringify(measure)}]`;
          const metric = j.object(measures[measure], mp);
          add(name, measure, j.number(metric.value, `${mp}.value`));
        }
      }
    }

    if (measurements.length === 0) j.fail('$', 'no measure has a `value`');
    for (const m of measurements) {
      if (m.unit !== 'count' && m.values[0] < 0) j.fail(`[${JSON.stringify(m.benchmark)}]`, `${m.metric} is ${m.values[0]}; a ${m.unit === 'ns' || m.unit === 's' ? 'time' : 'rate or size'} cannot be below zero`);
    }
    if (unknown.size > 0) {
      const shown = [...unknown].slice(0, 6).map((u) => JSON.stringify(u)).join(', ') + (unknown.size > 6 ? ` and ${unknown.size - 6} more` : '');
      warnings.push({ kind: 'note', message: `Bencher keeps a measure's unit in the project, not in the file: ${shown} read as plain counts, direction from the name` });
    }
    return { measurements, warnings, hints: {} };
  },
};

/** parameterSuffix renders a v1 entry's parameters as ` (k=v, ...)`, sorted by key; empty or absent parameters give ''. */
function parameterSuffix(j: JsonReader, raw: unknown, path: string): string {
  if (raw === undefined || raw === null) return '';
  const params = j.object(raw, path);
  const keys = Object.keys(params).sort();
  if (keys.length === 0) return '';
  const parts = keys.map((k) => {
    const v = params[k];
    if (typeof v === 'number') return `${k}=${j.number(v, `${path}.${k}`)}`;
    if (typeof v === 'string') return `${k}=${v}`;
    if (typeof v === 'boolean' || v === null) return `${k}=${String(v)}`;
    return j.fail(`${path}.${k}`, 'expected a string, number, boolean or null');
  });
  return ` (${parts.join(', ')})`;
}
