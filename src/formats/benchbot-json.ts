import type { Direction, FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, describe, parseJsonDocument } from './json-document.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';
import { directionOf, isTimeUnit } from '../model/units.ts';

/** BENCHBOT_JSON_VERSION is the only `version` of the format there is. */
export const BENCHBOT_JSON_VERSION = 1;

/**
 * benchbotJsonReader reads benchbot's own JSON format, the way for any tool
 * without a reader to hand its results over (docs/benchbot-json.md):
 *
 *     {"version": 1, "benchmarks": [{"benchmark": "parse/small",
 *       "metric": "time", "unit": "ns", "better": "lower", "values": [...]}]}
 *
 * `metric` defaults to `time` and `better` to directionOf(metric, unit);
 * `version` and `$schema` are optional markers; an entry with `error` is
 * skipped with an `error` warning; entries with the same benchmark and
 * metric are merged (their units must agree). Optional `hints` is an object
 * of string, number or boolean facts about the machine; optional `harness`
 * names what produced the values (`pytest-benchmark`, `go`, ...; benchbot
 * writes it into its results artifact), which the default threshold of
 * counted work follows.
 */
export const benchbotJsonReader: Reader = {
  format: 'benchbot',
  description: 'benchbot JSON: {"benchmarks":[{"benchmark","metric","unit","better","values"}]}',
  sniff(head: string): boolean {
    if (!/^\s*\{/.test(head)) return false;
    if (/"\$schema"\s*:\s*"[^"]*benchbot/i.test(head)) return true;
    return /"benchmarks"\s*:\s*\[/.test(head) && /"benchmark"\s*:\s*"/.test(head) && /"values"\s*:\s*\[/.test(head);
  },
  read(file: SourceFile): ReadResult {
    const json = new JsonReader(file.path);
    const root = json.object(parseJsonDocument(file), '$');
    json.optionalString(root.$schema, '$schema');
    if (root.version !== undefined && root.version !== BENCHBOT_JSON_VERSION) {
      json.fail('version', `unsupported version ${describe(root.version)}; this benchbot reads version ${BENCHBOT_JSON_VERSION}`);
    }
    const hints = readHints(json, root.hints);
    const harness = readHarness(json, root.harness);
    const entries = json.array(root.benchmarks, 'benchmarks');
    if (entries.length === 0) throw new FormatError(file.path, undefined, 'benchmarks: the list is empty');

    const order: string[] = [];
    const byKey = new Map<string, Measurement>();
    const warnings: ReadWarning[] = [];
    const budget = new ReadBudget(file.path);
    entries.forEach((value, i) => {
      const path = `benchmarks[${i}]`;
      const entry = json.object(value, path);
      const benchmark = json.string(entry.benchmark, `${path}.benchmark`).trim();
      if (benchmark === '') json.fail(`${path}.benchmark`, 'is empty');
      const error = json.optionalString(entry.error, `${path}.error`);
      if (error !== undefined) {
        budget.series();
        warnings.push({ benchmark, kind: 'error', message: `benchmark "${benchmark}" failed: ${error}` });
        return;
      }
      const metric = json.optionalString(entry.metric, `${path}.metric`)?.trim() || 'time';
      const unit = json.string(entry.unit, `${path}.unit`).trim();
      if (unit === '') json.fail(`${path}.unit`, 'is empty; use "count" for dimensionless numbers');
      const better = readDirection(json, entry.better, `${path}.better`) ?? directionOf(metric, unit);
      const values = json.numbers(entry.values, `${path}.values`);
      if (values.length === 0) json.fail(`${path}.values`, 'is empty; give at least one value or an "error"');
      if (isTimeUnit(unit)) {
        const negative = values.findIndex((v) => v < 0);
        if (negative >= 0) json.fail(`${path}.values[${negative}]`, `is ${values[negative]}; a time (unit ${unit}) cannot be below zero`);
      }
      const key = `${benchmark}\u0000${metric}`;
      const existing = byKey.get(key);
      if (!existing) {
        budget.series();
        byKey.set(key, { benchmark, metric, unit, better, values });
        order.push(key);
        return;
      }
      if (existing.unit !== unit || existing.better !== better) {
        json.fail(path, `"${benchmark}" / ${metric} appears earlier with unit ${existing.unit} and better ${existing.better}`);
      }
      // A loop, not push(...values): spreading a long array overflows the call stack.
      for (const v of values) existing.values.push(v);
    });
    return { measurements: order.map((k) => byKey.get(k) as Measurement), warnings, hints, ...(harness !== undefined ? { harness } : {}) };
  },
};

function readDirection(json: JsonReader, value: unknown, path: string): Direction | undefined {
  const text = json.optionalString(value, path);
  if (text === undefined) return undefined;
  if (text !== 'lower' && text !== 'higher') json.fail(path, `expected "lower" or "higher", got ${describe(text)}`);
  return text;
}

/** HARNESS_NAME is what a harness's name may be: a format name (`google-benchmark`), or an importer's (`github-action-benchmark/go`). */
export const HARNESS_NAME = /^[a-z0-9][\w./-]{0,99}$/i;

function readHarness(json: JsonReader, value: unknown): string | undefined {
  const harness = json.optionalString(value, 'harness');
  if (harness !== undefined && !HARNESS_NAME.test(harness)) json.fail('harness', `${describe(harness)} is not a harness name such as "pytest-benchmark" (letters, digits, '-', '_', '.', '/', at most 100)`);
  return harness;
}

function readHints(json: JsonReader, value: unknown): FingerprintHints {
  if (value === undefined || value === null) return {};
  const object = json.object(value, 'hints');
  const hints: FingerprintHints = {};
  for (const [key, v] of Object.entries(object)) {
    if (key === '__proto__') continue;
    if (typeof v === 'string' || typeof v === 'boolean') hints[key] = v;
    else hints[key] = json.number(v, `hints.${key}`);
  }
  return hints;
}
