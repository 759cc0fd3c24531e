import type { Direction, Measurement, ReadWarning } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { directionOf } from '../model/units.ts';

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
    const warnings: ReadWarning[] = [];
    const unknown = new Set<string>();
    // v1 variants merge by name (entries with equal parameters are one variant); v0 names are unique keys already.
    const variants = new Map<string, Map<string, Measurement>>();

    const measurement = (benchmark: string, measure: string, value: number, path: () => string): Measurement => {
      budget.series();
      budget.value();
      const known = BENCHER_MEASURES[measure.toLowerCase()];
      if (known === undefined) unknown.add(measure);
      const unit = known?.unit ?? 'count';
      if (value < 0 && unit !== 'count') j.fail(`${path()}.value`, `is ${value}; a ${unit === 'ns' || unit === 's' ? 'time' : 'rate or size'} cannot be below zero`);
      const m: Measurement = { benchmark, metric: measure, unit, better: known?.better ?? directionOf(measure, unit), values: [value] };
      measurements.push(m);
      return m;
    };
    const finite = (value: unknown, path: () => string): number => (typeof value === 'number' && Number.isFinite(value) ? value : j.number(value, `${path()}.value`));

    for (const name of names) {
      if (name.trim() === '') j.fail('$', 'a benchmark name is empty');
      const entry = root[name];
      const path = () => `[${JSON.stringify(name)}]`;
      if (Array.isArray(entry)) {
        entry.forEach((raw, i) => readVariant(name, raw, `${path()}[${i}]`));
        continue;
      }
      if (entry === null || typeof entry !== 'object') j.object(entry, path());
      const measures = entry as Record<string, unknown>;
      let count = 0;
      for (const measure in measures) {
        count += 1;
        const metric = measures[measure];
        const mp = () => `${path()}[${JSON.stringify(measure)}]`;
        if (metric === null || typeof metric !== 'object' || Array.isArray(metric)) j.object(metric, mp());
        measurement(name, measure, finite((metric as Record<string, unknown>).value, mp), mp);
      }
      if (count === 0) j.fail(path(), 'no measures: give at least one, e.g. {"latency": {"value": 88.0}}');
    }

    /** readVariant reads one BMF v1 entry of benchmark `name`. */
    function readVariant(name: string, raw: unknown, at: string): void {
      const variant = j.object(raw, at);
      const benchmark = name + parameterSuffix(j, variant.parameters, `${at}.parameters`);
      if (benchmark !== name && Object.hasOwn(root, benchmark)) j.fail(at, `names the variant ${JSON.stringify(benchmark)}, which is also a benchmark of its own; rename one`);
      const measures = j.object(variant.measures, `${at}.measures`);
      let known = variants.get(benchmark);
      if (known === undefined) variants.set(benchmark, (known = new Map()));
      for (const [measure, metricsRaw] of Object.entries(measures)) {
        const mp = () => `${at}.measures[${JSON.stringify(measure)}]`;
        const metrics = j.object(metricsRaw, mp());
        if (metrics.value === undefined) {
          budget.series();
          const others = Object.keys(metrics).slice(0, 4).join(', ');
          warnings.push({ benchmark, kind: 'note', message: `${benchmark}: measure ${JSON.stringify(measure)} has no \`value\`${others === '' ? '' : ` (only ${others})`}; not read` });
          continue;
        }
        const value = finite(metrics.value, mp);
        const seen = known.get(measure);
        // The later entry of a variant wins, as in Bencher.
        if (seen) seen.values[0] = value;
        else known.set(measure, measurement(benchmark, measure, value, mp));
      }
    }

    if (measurements.length === 0) j.fail('$', 'no measure has a `value`');
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
