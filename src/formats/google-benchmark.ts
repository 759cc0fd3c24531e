import type { Direction, FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import { ReadBudget } from './input-limits.ts';
import { checkJsonElements, checkJsonText, describe, parseCheckedJson, parseJsonDocument } from './json-document.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';
import { conversionFactor, directionOf, normalizeTimeUnit } from '../model/units.ts';

/**
 * Fields of a benchmark row that describe the row rather than measure
 * something; everything else that is numeric is a measurement.
 */
const DESCRIPTIVE_FIELDS = new Set([
  'name',
  'run_name',
  'run_type',
  'repetitions',
  'repetition_index',
  'threads',
  'family_index',
  'per_family_instance_index',
  'aggregate_name',
  'aggregate_unit',
  'error_occurred',
  'error_message',
  'skipped',
  'skip_message',
  // The iteration count is chosen by the harness to fill min_time; comparing
  // it between runs says nothing about speed.
  'iterations',
  'time_unit',
  'label',
  // Complexity rows (aggregate_name BigO / RMS) carry these instead of times.
  'cpu_coefficient',
  'real_coefficient',
  'big_o',
  'rms',
]);

/**
 * Built-in fields with a unit of their own; direction follows the unit. A
 * Map, not an object, so counters named `constructor` or `__proto__` stay counters.
 */
const KNOWN_UNITS = new Map([
  ['bytes_per_second', 'bytes/s'],
  ['items_per_second', 'items/s'],
  // MemoryManager results (benchmark::RegisterMemoryManager).
  ['allocs_per_iter', 'count'],
  ['max_bytes_used', 'B'],
  ['total_allocated_bytes', 'B'],
  ['net_heap_growth', 'B'],
]);

/** Aggregate names Google Benchmark appends to a run name (`BM_x_mean`). */
const AGGREGATE_SUFFIX = /_(mean|median|stddev|cv|BigO|RMS)$/;

/** User counters flagged kIsRate are only recognizable by their name. */
const RATE_COUNTER = /(per_?sec(ond)?|_per_s|\/s)$/i;

/** Google Benchmark prints non-finite doubles as bare tokens, which JSON.parse refuses. */
const BARE_TOKENS = ['NaN', 'Infinity', 'nan', 'inf'];
const NON_FINITE_STRINGS = new Set(['NaN', '-NaN', 'Infinity', '-Infinity', 'nan', '-nan', 'inf', '-inf']);
const NON_FINITE_VALUES = new Map([...NON_FINITE_STRINGS].map((s) => [s, s.endsWith('inf') || s.endsWith('Infinity') ? (s.startsWith('-') ? -Infinity : Infinity) : Number.NaN]));

/** Fields that cannot be below zero: times, rates and allocation totals (net_heap_growth can). */
const NON_NEGATIVE_FIELDS = new Set(['real_time', 'cpu_time', 'bytes_per_second', 'items_per_second', 'allocs_per_iter', 'max_bytes_used', 'total_allocated_bytes']);

/**
 * FieldRule is what addRow does with a field, looked up once per field
 * instead of once in each of the sets above: skip it (descriptive), read it
 * in the row's time unit, or read it in `unit`; `nonNegative` as in
 * NON_NEGATIVE_FIELDS. Fields not listed are user counters (COUNTER_RULE).
 */
interface FieldRule {
  skip: boolean;
  time: boolean;
  unit: string;
  nonNegative: boolean;
}
const COUNTER_RULE: FieldRule = { skip: false, time: false, unit: 'count', nonNegative: false };
const FIELD_RULES = new Map<string, FieldRule>();
/** The last row's fields in order and their rules: addRow's cache of FIELD_RULES. */
const ruleFields: string[] = [];
const ruleCache: FieldRule[] = [];
for (const field of DESCRIPTIVE_FIELDS) FIELD_RULES.set(field, { skip: true, time: false, unit: '', nonNegative: false });
for (const field of ['real_time', 'cpu_time', ...KNOWN_UNITS.keys(), ...NON_NEGATIVE_FIELDS]) {
  if (FIELD_RULES.has(field)) continue;
  const time = field === 'real_time' || field === 'cpu_time';
  FIELD_RULES.set(field, { skip: false, time, unit: time ? '' : (KNOWN_UNITS.get(field) ?? 'count'), nonNegative: NON_NEGATIVE_FIELDS.has(field) });
}

type Row = Record<string, unknown>;

interface Group {
  name: string;
  /** Iteration rows seen, failed ones included. */
  iterations: number;
  failed: number;
  failureKind: 'error' | 'skipped' | undefined;
  failureMessage: string;
  /** Aggregate rows with their index in `benchmarks`, kept only for summary-only groups. */
  aggregates: { kind: string; row: Row; index: number }[];
  metrics: Map<string, Measurement>;
  /** A cache of `metrics` by the position of the field in a row (addRow). */
  slots: (Measurement | undefined)[];
}

/** Context keys copied into the hints as they are (strings, numbers, booleans). */
const CONTEXT_STRINGS = ['library_build_type', 'host_name', 'date', 'executable'];
const CONTEXT_NUMBERS = ['num_cpus', 'mhz_per_cpu'];

/**
 * googleBenchmarkReader reads Google Benchmark's `--benchmark_out_format=json`
 * output (1.x, including the old schemas of compare.py's test inputs).
 *
 * - Samples are iteration rows (`run_type` "iteration", or no `run_type` and
 *   a name without an aggregate suffix), one value per repetition, grouped by
 *   `run_name` (else `name`) so repetitions of one benchmark form one series.
 * - Metrics: `real_time` and `cpu_time` in the row's `time_unit` (default
 *   `ns`; `us` for µs), `bytes_per_second` (`bytes/s`) and
 *   `items_per_second` (`items/s`) higher is better, MemoryManager fields
 *   (`allocs_per_iter` count, `max_bytes_used` etc. in `B`), and every other
 *   numeric field as a user counter with unit `count`, lower is better unless
 *   its name says it is a rate (`LookupsPerSecond`, `ops_per_sec`, `x/s`).
 * - Aggregate rows (mean, median, stddev, cv, BigO, RMS, user statistics)
 *   never mix into samples. A benchmark that has only aggregates (from
 *   `--benchmark_report_aggregates_only`) contributes its median row (else its
 *   mean row) as a single value per metric plus a `summary-only` warning,
 *   because benchbot runs the suite in rounds and one median per round is a
 *   fair sample; without median or mean it contributes nothing but the
 *   warning. Groups made only of complexity rows (BigO/RMS) are ignored.
 * - An empty `benchmarks` list (a filter that matched nothing) reads as no
 *   measurement and a `note` warning that the file holds no benchmark.
 * - Rows with `error_occurred` or `skipped` true contribute nothing; each such
 *   benchmark gets one `error` or `skipped` warning.
 * - Hints: `context`'s library_build_type, host_name, date, executable,
 *   num_cpus, mhz_per_cpu, cpu_scaling_enabled, and `load_avg` as its first
 *   (1-minute) value.
 * - The bare NaN/Infinity tokens the library writes for 0/0 statistics are
 *   tolerated in rows whose values are not used; in a used row they are a
 *   FormatError, as is any other non-finite or non-numeric measurement.
 */
export const googleBenchmarkReader: Reader = {
  format: 'google-benchmark',
  description: 'Google Benchmark JSON (--benchmark_out_format=json)',
  sniff,
  read,
};

function sniff(head: string): boolean {
  try {
    if (!/^\uFEFF?\s*\{/.test(head)) return false;
    if (/"(library_build_type|mhz_per_cpu|cpu_scaling_enabled)"\s*:/.test(head)) return true;
    // What the library writes when --benchmark_filter matched nothing, without its context: read, so it is warned about.
    if (/^\uFEFF?\s*\{\s*"benchmarks"\s*:\s*\[\s*\]\s*\}\s*$/.test(head)) return true;
    return /"benchmarks"\s*:\s*\[/.test(head) && /"(real_time|cpu_time|run_type|time_unit)"\s*:/.test(head);
  } catch {
    return false;
  }
}

function read(file: SourceFile): ReadResult {
  const { document, sanitized } = parse(file);
  const path = file.path;
  if (document === null || typeof document !== 'object' || Array.isArray(document)) {
    throw new FormatError(path, undefined, `expected a JSON object with "context" and "benchmarks", got ${describe(document)}`);
  }
  const top = document as Row;
  const hints = readHints(path, top.context);
  const rows = top.benchmarks;
  if (!Array.isArray(rows)) throw new FormatError(path, undefined, `benchmarks: expected an array, got ${describe(rows)}`);

  const groups = new Map<string, Group>();
  // Each benchmark and each of its metrics counts: a row per unique name is cheap to write and dear to hold.
  const budget = new ReadBudget(path);
  let lastKey: string | undefined;
  let lastGroup: Group | undefined;
  for (let i = 0; i < rows.length; i++) {
    const value: unknown = rows[i];
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      throw new FormatError(path, undefined, `benchmarks[${i}]: expected an object, got ${describe(value)}`);
    }
    const row = value as Row;
    const name = row.name;
    if (typeof name !== 'string') throw new FormatError(path, undefined, `benchmarks[${i}].name: expected a string, got ${describe(name)}`);
    const runName = row.run_name;
    if (runName !== undefined && typeof runName !== 'string') {
      throw new FormatError(path, undefined, `benchmarks[${i}].run_name: expected a string, got ${describe(runName)}`);
    }
    const aggregate = isAggregate(path, row, name, i);
    const key = runName ?? (aggregate ? stripAggregateSuffix(row, name) : name);
    // Repetitions of a benchmark are adjacent rows: comparing with the last key skips most hashing of fresh strings.
    let group = key === lastKey ? lastGroup : groups.get(key);
    if (group === undefined) {
      budget.series();
      group = { name: key, iterations: 0, failed: 0, failureKind: undefined, failureMessage: '', aggregates: [], metrics: new Map(), slots: [] };
      groups.set(key, group);
    }
    lastKey = key;
    lastGroup = group;
    if (aggregate) {
      if (group.iterations === 0) group.aggregates.push({ kind: aggregateKind(row, name), row, index: i });
      continue;
    }
    group.iterations += 1;
    if (group.aggregates.length > 0) group.aggregates = [];
    if (recordFailure(path, group, row, i)) continue;
    addRow(path, group, row, i, sanitized, budget);
  }

  const measurements: Measurement[] = [];
  const warnings: ReadWarning[] = [];
  const unpicked: Group[] = [];
  for (const group of groups.values()) {
    if (group.failed > 0) warnings.push(failureWarning(group));
    if (group.iterations === 0 && !summarize(path, group, warnings, sanitized, budget)) unpicked.push(group);
    for (const m of group.metrics.values()) measurements.push(m);
  }
  if (measurements.length === 0 && unpicked.length > 0) readEveryAggregate(path, unpicked, measurements, warnings, sanitized, budget);
  if (rows.length === 0) warnings.push({ message: `${path}: holds no benchmark (its "benchmarks" list is empty; did --benchmark_filter match nothing?)`, kind: 'note' });
  return { measurements, warnings, hints };
}

/**
 * readEveryAggregate reads a file that holds aggregates and nothing else
 * benchbot would take (no iteration row, no median or mean): each aggregate
 * row becomes a benchmark of its own, named as the row (`BM_x_stddev`, or
 * the name with `_KIND` appended when the row's name does not say its kind),
 * so that such a file compares as compare.py compares it instead of being
 * empty. Rows with `aggregate_unit` "percentage" (cv) are fractions: their
 * times are read in `%`. The summary-only warning of each group says so.
 */
function readEveryAggregate(path: string, groups: Group[], measurements: Measurement[], warnings: ReadWarning[], sanitized: boolean, budget: ReadBudget): void {
  for (const group of groups) {
    const used = group.aggregates.filter((a) => a.kind !== 'BigO' && a.kind !== 'RMS');
    if (used.length === 0) continue;
    const kinds = new Set(used.map((a) => a.kind));
    const series = new Map<string, Group>();
    for (const { kind, row, index } of used) {
      const name = row.name as string;
      const own = kind === '' || name.endsWith(`_${kind}`) || kinds.size === 1 ? name : `${name}_${kind}`;
      let target = series.get(own);
      if (target === undefined) {
        budget.series();
        target = { name: own, iterations: 0, failed: 0, failureKind: undefined, failureMessage: '', aggregates: [], metrics: new Map(), slots: [] };
        series.set(own, target);
      }
      addRow(path, target, row, index, sanitized, budget, row.aggregate_unit === 'percentage' ? '%' : undefined);
    }
    const names = [...series.keys()];
    const warning = warnings.findLast((w) => w.benchmark === group.name && w.kind === 'summary-only');
    if (warning) {
      warning.message = `${group.name} reported only aggregates (${[...kinds].map((k) => k || 'unnamed').join(', ')}) and no median or mean, and the file holds nothing else: each aggregate is read as a benchmark of its own (${names.join(', ')}), one value per run; run with repetitions and without --benchmark_report_aggregates_only for samples`;
    }
    for (const target of series.values()) for (const m of target.metrics.values()) measurements.push(m);
  }
}

/**
 * GoogleBenchmarkRow is one entry of `benchmarks` as Google Benchmark's
 * compare.py reads it: the name as written (`BM_x_mean` for an aggregate),
 * whether `run_type` is exactly "aggregate", the raw `time_unit`, the two
 * times (NaN for the bare NaN the library writes) and the indices
 * compare.py sorts by. Fields that are absent or of another type are undefined.
 */
export interface GoogleBenchmarkRow {
  name: string;
  aggregate: boolean;
  timeUnit?: string;
  realTime?: number;
  cpuTime?: number;
  familyIndex?: number;
  perFamilyInstanceIndex?: number;
  repetitionIndex?: number;
  /** `run_name`, else the name: what `--filter` matches, so a benchmark's aggregates stay with it. */
  runName: string;
}

/**
 * readGoogleBenchmarkRows returns every row of a Google Benchmark JSON file in
 * file order, for `--output compare.py`, which reproduces compare.py from the
 * rows themselves rather than from benchbot's measurements. The same limits
 * and syntax errors as {@link googleBenchmarkReader}.
 */
export function readGoogleBenchmarkRows(file: SourceFile): GoogleBenchmarkRow[] {
  const { document } = parse(file);
  const rows = document !== null && typeof document === 'object' && !Array.isArray(document) ? (document as Row).benchmarks : undefined;
  if (!Array.isArray(rows)) throw new FormatError(file.path, undefined, 'benchmarks: expected an array of rows');
  const number = (value: unknown) => (typeof value === 'number' ? value : typeof value === 'string' ? NON_FINITE_VALUES.get(value) : undefined);
  const index = (value: unknown) => (typeof value === 'number' && Number.isFinite(value) ? value : undefined);
  const out: GoogleBenchmarkRow[] = [];
  for (let i = 0; i < rows.length; i++) {
    const row: unknown = rows[i];
    if (row === null || typeof row !== 'object' || Array.isArray(row)) throw new FormatError(file.path, undefined, `benchmarks[${i}]: expected an object, got ${describe(row)}`);
    const r = row as Row;
    if (typeof r.name !== 'string') throw new FormatError(file.path, undefined, `benchmarks[${i}].name: expected a string, got ${describe(r.name)}`);
    out.push({
      name: r.name,
      runName: typeof r.run_name === 'string' ? r.run_name : r.name,
      aggregate: r.run_type === 'aggregate',
      timeUnit: typeof r.time_unit === 'string' ? r.time_unit : undefined,
      realTime: number(r.real_time),
      cpuTime: number(r.cpu_time),
      familyIndex: index(r.family_index),
      perFamilyInstanceIndex: index(r.per_family_instance_index),
      repetitionIndex: index(r.repetition_index),
    });
  }
  return out;
}

/** parse runs JSON.parse once, and a second time only for files with bare NaN/Infinity. */
function parse(source: SourceFile): { document: unknown; sanitized: boolean } {
  // Windows editors and PowerShell's Out-File add a byte order mark that JSON.parse refuses.
  const file = source.text.charCodeAt(0) === 0xfeff ? { path: source.path, text: source.text.slice(1) } : source;
  // Before any parse, and outside the fallback below: a refusal for size must not be retried.
  checkJsonElements(file.path, file.text);
  try {
    // parseJsonDocument but for its element count, just checked on this very text.
    checkJsonText(file);
    return { document: parseCheckedJson(file), sanitized: false };
  } catch (error) {
    if (!(error instanceof FormatError)) throw error;
    const quoted = quoteBareNonFinite(file.text);
    if (quoted === file.text) throw error;
    // quoteBareNonFinite may have hit a string that mentions NaN after a colon; then the inserted quote
    // ends that string early, the document cannot parse, and the slower string-aware rewrite runs.
    try {
      return { document: JSON.parse(quoted), sanitized: true };
    } catch {
      // Quoting keeps every token on its line, so errors from this parse still point at the right line.
      const text = quoteNonFiniteOutsideStrings(file.text);
      return { document: parseJsonDocument({ path: file.path, text }), sanitized: true };
    }
  }
}

/**
 * quoteBareNonFinite quotes NaN/Infinity tokens that stand where a value
 * starts (after `:`, `,` or `[`). It finds them with indexOf, which is an
 * order of magnitude faster than a regex over a 50 MB file.
 */
function quoteBareNonFinite(text: string): string {
  const spans: [number, number][] = [];
  for (const token of BARE_TOKENS) {
    for (let i = text.indexOf(token); i >= 0; i = text.indexOf(token, i + token.length)) {
      const end = i + token.length;
      if (isWordChar(text.charCodeAt(end))) continue;
      let start = i;
      if (text.charCodeAt(start - 1) === 45) start -= 1; // '-'
      else if (isWordChar(text.charCodeAt(start - 1))) continue;
      let j = start - 1;
      while (j >= 0 && isSpace(text.charCodeAt(j))) j -= 1;
      const before = text.charCodeAt(j);
      if (before === 58 || before === 44 || before === 91) spans.push([start, end]); // ':' ',' '['
    }
  }
  if (spans.length === 0) return text;
  spans.sort((x, y) => x[0] - y[0]);
  const parts: string[] = [];
  let at = 0;
  for (const [start, end] of spans) {
    parts.push(text.slice(at, start), '"', text.slice(start, end), '"');
    at = end;
  }
  parts.push(text.slice(at));
  return parts.join('');
}

/**
 * quoteNonFiniteOutsideStrings quotes every bare NaN/Infinity/nan/inf token
 * (with its `-`) that is not inside a string, in one pass that steps over
 * strings with indexOf. A regular expression alternating strings and tokens
 * rescanned the rest of the file from every escaped quote of an unterminated
 * string (quadratic) and overflowed its backtracking stack on long strings.
 */
function quoteNonFiniteOutsideStrings(text: string): string {
  const parts: string[] = [];
  let copied = 0;
  let i = 0;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      let end = text.indexOf('"', i + 1);
      while (end > 0) {
        let backslashes = 0;
        while (text.charCodeAt(end - 1 - backslashes) === 92) backslashes += 1;
        if (backslashes % 2 === 0) break;
        end = text.indexOf('"', end + 1);
      }
      if (end < 0) break;
      i = end + 1;
      continue;
    }
    if (!isWordChar(c)) {
      i += 1;
      continue;
    }
    let start = i;
    while (i < text.length && isWordChar(text.charCodeAt(i))) i += 1;
    if (BARE_TOKENS.includes(text.slice(start, i))) {
      if (start > copied && text.charCodeAt(start - 1) === 45) start -= 1; // '-'
      parts.push(text.slice(copied, start), '"', text.slice(start, i), '"');
      copied = i;
    }
  }
  parts.push(text.slice(copied));
  return parts.join('');
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}

function isAggregate(path: string, row: Row, name: string, index: number): boolean {
  const runType = row.run_type;
  if (runType === 'iteration') return false;
  if (runType === 'aggregate') return true;
  if (runType === undefined) return row.aggregate_name !== undefined || AGGREGATE_SUFFIX.test(name);
  throw new FormatError(path, undefined, `benchmarks[${index}].run_type: expected "iteration" or "aggregate", got ${describe(runType)}`);
}

function aggregateKind(row: Row, name: string): string {
  if (typeof row.aggregate_name === 'string') return row.aggregate_name;
  const suffix = AGGREGATE_SUFFIX.exec(name);
  return suffix ? suffix[1] : '';
}

/** stripAggregateSuffix groups old-schema `BM_x_mean` rows (no run_name) with `BM_x`. */
function stripAggregateSuffix(row: Row, name: string): string {
  const kind = aggregateKind(row, name);
  return kind !== '' && name.endsWith(`_${kind}`) ? name.slice(0, name.length - kind.length - 1) : name;
}

/** recordFailure notes an errored or skipped row and says whether it was one. */
function recordFailure(path: string, group: Group, row: Row, index: number): boolean {
  // The values are read here by name (a named load) rather than by a key argument in flag (a keyed one, per row).
  const error = flag(path, row.error_occurred, 'error_occurred', index);
  const skipped = flag(path, row.skipped, 'skipped', index);
  if (!error && !skipped) return false;
  group.failed += 1;
  if (group.failureKind !== 'error') {
    group.failureKind = error ? 'error' : 'skipped';
    const message = error ? row.error_message : row.skip_message;
    group.failureMessage = typeof message === 'string' ? message : '';
  }
  return true;
}

function flag(path: string, value: unknown, field: string, index: number): boolean {
  if (value === undefined || value === false) return false;
  if (value === true) return true;
  throw new FormatError(path, undefined, `benchmarks[${index}].${field}: expected a boolean, got ${describe(value)}`);
}

function failureWarning(group: Group): ReadWarning {
  const what = group.failureKind === 'error' ? 'failed' : 'was skipped';
  const detail = group.failureMessage === '' ? '' : `: ${group.failureMessage}`;
  return {
    message: `${group.name} ${what} in ${group.failed} of ${group.iterations} repetitions${detail}`,
    benchmark: group.name,
    kind: group.failureKind,
  };
}

/** summarize reads an aggregates-only group's median (else mean) with a warning; false when it has neither. */
function summarize(path: string, group: Group, warnings: ReadWarning[], sanitized: boolean, budget: ReadBudget): boolean {
  const kinds = group.aggregates.map((a) => a.kind);
  if (kinds.every((k) => k === 'BigO' || k === 'RMS')) return true;
  const pick = group.aggregates.find((a) => a.kind === 'median') ?? group.aggregates.find((a) => a.kind === 'mean');
  const listed = [...new Set(kinds.map((k) => k || 'unnamed'))].join(', ');
  warnings.push({
    message: pick
      ? `${group.name} reported only aggregates (${listed}); its ${pick.kind} is used as a single value per metric`
      : `${group.name} reported only aggregates (${listed}) and no median or mean; it contributes no values`,
    benchmark: group.name,
    kind: 'summary-only',
  });
  if (pick) addRow(path, group, pick.row, pick.index, sanitized, budget);
  return pick !== undefined;
}

/** addRow appends one row's metrics to its group: the per-row hot path, so no allocation per field. */
function addRow(path: string, group: Group, row: Row, index: number, sanitized: boolean, budget: ReadBudget, timeUnitOverride?: string): void {
  let timeUnit: string | undefined = timeUnitOverride;
  let j = -1;
  for (const field in row) {
    // Rows parsed from one file share their fields' order, so the rule of the j-th field is most often the last one's.
    j += 1;
    let rule = ruleFields[j] === field ? ruleCache[j] : undefined;
    if (rule === undefined) {
      rule = FIELD_RULES.get(field) ?? COUNTER_RULE;
      ruleFields[j] = field;
      ruleCache[j] = rule;
    }
    if (rule.skip) continue;
    const value = row[field];
    let unit: string;
    if (rule.time) {
      timeUnit ??= timeUnitOf(path, row, index);
      unit = timeUnit;
    } else if (typeof value === 'number' || (sanitized && typeof value === 'string' && NON_FINITE_STRINGS.has(value))) {
      unit = rule.unit;
    } else {
      // Strings, booleans and objects that are not standard fields carry no measurement.
      continue;
    }
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      const got = typeof value === 'string' && sanitized && NON_FINITE_STRINGS.has(value) ? value : describe(value);
      throw new FormatError(path, undefined, `benchmarks[${index}].${field}: expected a finite number, got ${got}`);
    }
    if (value < 0 && rule.nonNegative) {
      throw new FormatError(path, undefined, `benchmarks[${index}].${field}: expected a non-negative number, got ${value}; a ${unit === timeUnit ? 'time' : 'rate or size'} cannot be below zero`);
    }
    // The group's series of the j-th field in the last row, else the map's (the one that counts).
    let m: Measurement | undefined = group.slots[j];
    if (m === undefined || m.metric !== field) {
      m = group.metrics.get(field);
      if (m === undefined) {
        budget.series();
        m = { benchmark: group.name, metric: field, unit, better: directionFor(field, unit), values: [] };
        group.metrics.set(field, m);
      }
      group.slots[j] = m;
    }
    if (m.unit === unit) {
      // Percentage aggregates (cv) hold fractions; `%` holds percent.
      m.values.push(unit === '%' && timeUnitOverride === '%' ? value * 100 : value);
    } else {
      const factor = conversionFactor(unit, m.unit);
      if (factor === undefined) throw new FormatError(path, undefined, `benchmarks[${index}].${field}: unit ${unit} does not match ${m.unit} of earlier rows`);
      m.values.push(value * factor);
    }
  }
}

function timeUnitOf(path: string, row: Row, index: number): string {
  const raw = row.time_unit;
  if (raw === undefined) return 'ns';
  const unit = typeof raw === 'string' ? normalizeTimeUnit(raw) : undefined;
  if (unit === undefined) throw new FormatError(path, undefined, `benchmarks[${index}].time_unit: expected ns, us, ms or s, got ${describe(raw)}`);
  return unit;
}

function directionFor(metric: string, unit: string): Direction {
  if (unit === 'count' && RATE_COUNTER.test(metric)) return 'higher';
  return directionOf(metric, unit);
}

function readHints(path: string, context: unknown): FingerprintHints {
  const hints: FingerprintHints = {};
  if (context === undefined || context === null) return hints;
  if (typeof context !== 'object' || Array.isArray(context)) throw new FormatError(path, undefined, `context: expected an object, got ${describe(context)}`);
  const c = context as Row;
  for (const key of CONTEXT_STRINGS) if (typeof c[key] === 'string') hints[key] = c[key];
  for (const key of CONTEXT_NUMBERS) {
    const v = c[key];
    if (typeof v === 'number' && Number.isFinite(v)) hints[key] = v;
  }
  if (typeof c.cpu_scaling_enabled === 'boolean') hints.cpu_scaling_enabled = c.cpu_scaling_enabled;
  // The 1-minute value is the one that says whether the machine was busy during this run.
  const load = c.load_avg;
  if (Array.isArray(load) && typeof load[0] === 'number' && Number.isFinite(load[0])) hints.load_avg = load[0];
  return hints;
}
