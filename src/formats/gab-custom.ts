import type { Direction, Measurement, ReadWarning } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { conversionFactor, directionOf, normalizeTimeUnit } from '../model/units.ts';

/** GAB_CUSTOM_KEYS are the fields of one entry of github-action-benchmark's custom JSON (its `BenchmarkResult`). */
const GAB_CUSTOM_KEYS = new Set(['name', 'unit', 'value', 'range', 'extra']);

/** How the direction of a custom file is decided: stated by the format (as the action's tool name does), or guessed from units. */
type Mode = Direction | 'from-unit';

/**
 * customReader, customSmallerIsBetterReader and customBiggerIsBetterReader
 * read the JSON that github-action-benchmark's `customSmallerIsBetter` and
 * `customBiggerIsBetter` tools take: an array of `{name, unit, value,
 * range?, extra?}`, one entry per benchmark.
 *
 * The action takes the direction from the tool name, never from the file, so
 * a repository moving over says it with `--format custom-smaller-is-better`
 * or `--format custom-bigger-is-better` (every entry of the file gets that
 * direction). Detection picks `custom`, which decides per entry from the
 * unit as everywhere else (times lower, rates such as `req/s` or `ops/s`
 * higher) and, when some unit says neither (`Megabytes`, `Percent`), reads
 * those lower-is-better with one `note` warning naming them and the two
 * formats that state it.
 *
 * Each entry is one value of metric `time` when its unit is a time (`ns`,
 * `ms`, `us/iter`, `nsec`), else of metric `value`, in its unit as written
 * except `µs`/`μs` spelled `us`: exactly the series `benchbot import` makes
 * of the action's data.js history, so imported nights and new runs line up.
 * A name given twice adds a second value to the same series (converted when
 * both units are times). `range` and `extra` are display text and are not
 * read.
 */
export const customReader: Reader = customJsonReader('custom', 'github-action-benchmark custom JSON, direction from units', 'from-unit', true);

/** customSmallerIsBetterReader reads github-action-benchmark's custom JSON as the `customSmallerIsBetter` tool does (see customReader). */
export const customSmallerIsBetterReader: Reader = customJsonReader('custom-smaller-is-better', 'github-action-benchmark customSmallerIsBetter JSON', 'lower', false);

/** customBiggerIsBetterReader reads github-action-benchmark's custom JSON as the `customBiggerIsBetter` tool does (see customReader). */
export const customBiggerIsBetterReader: Reader = customJsonReader('custom-bigger-is-better', 'github-action-benchmark customBiggerIsBetter JSON', 'higher', false);

function customJsonReader(format: string, description: string, mode: Mode, detect: boolean): Reader {
  return {
    format,
    description,
    sniff: (head: string) => detect && sniffCustom(head),
    read: (file: SourceFile) => readCustom(file, mode),
  };
}

/**
 * sniffCustom accepts a JSON array whose first element is an object with a
 * string `name`, a number `value`, a string `unit` and no key outside
 * GAB_CUSTOM_KEYS. The first object is cut out by one scan that skips
 * strings, so braces inside `extra` do not end it early.
 */
export function sniffCustom(head: string): boolean {
  const open = /^\uFEFF?\s*\[\s*\{/.exec(head);
  if (!open) return false;
  const start = open[0].length - 1;
  const end = objectEnd(head, start);
  if (end < 0) return false;
  let first: unknown;
  try {
    first = JSON.parse(head.slice(start, end + 1));
  } catch {
    return false;
  }
  if (first === null || typeof first !== 'object' || Array.isArray(first)) return false;
  const entry = first as Record<string, unknown>;
  return typeof entry.name === 'string' && typeof entry.value === 'number' && typeof entry.unit === 'string' && Object.keys(entry).every((k) => GAB_CUSTOM_KEYS.has(k));
}

/** objectEnd returns the index of the `}` closing a flat object opened at `start`, or -1 (nested values, or not closed within `text`). */
function objectEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      // Skip the string, honouring backslash escapes.
      i += 1;
      while (i < text.length && text.charCodeAt(i) !== 0x22) i += text.charCodeAt(i) === 0x5c ? 2 : 1;
      if (i >= text.length) return -1;
    } else if (c === 0x7d) {
      return i;
    } else if (c === 0x7b || c === 0x5b) {
      return -1;
    }
  }
  return -1;
}

function readCustom(file: SourceFile, mode: Mode): ReadResult {
  const doc = parseJsonDocument(file);
  const j = new JsonReader(file.path);
  if (!Array.isArray(doc)) return j.fail('$', "expected an array of {name, unit, value} entries (github-action-benchmark's custom JSON)");
  const entries: unknown[] = doc;
  if (entries.length === 0) j.fail('$', 'no benchmarks: the array is empty');
  const budget = new ReadBudget(file.path);
  const measurements: Measurement[] = [];
  const guessed = new Map<string, string>();
  let guessedCount = 0;

  // Units repeat from entry to entry: spell and classify each once.
  const units = new Map<string, { unit: string; time: boolean; better: Direction }>();
  const unitOf = (written: string) => {
    let known = units.get(written);
    if (known === undefined) {
      const unit = spellUnit(written);
      const time = isGabTimeUnit(unit);
      known = { unit, time, better: mode === 'from-unit' ? directionOf(time ? 'time' : 'value', unit) : mode };
      if (units.size < 10_000) units.set(written, known);
    }
    return known;
  };
  // One map per metric, so no key has to be built per entry.
  const series = { time: new Map<string, { m: Measurement; i: number }>(), value: new Map<string, { m: Measurement; i: number }>() };

  entries.forEach((raw, i) => {
    const entry = (raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? raw : j.object(raw, `[${i}]`)) as Record<string, unknown>;
    const benchmark = typeof entry.name === 'string' ? entry.name : j.string(entry.name, `[${i}].name`);
    if (benchmark.trim() === '') j.fail(`[${i}].name`, 'must not be empty');
    const written = typeof entry.unit === 'string' ? entry.unit : j.string(entry.unit, `[${i}].unit`);
    const { unit, time, better } = unitOf(written);
    if (unit === '') j.fail(`[${i}].unit`, 'must not be empty; use `count` for a plain number');
    let value = typeof entry.value === 'number' && Number.isFinite(entry.value) ? entry.value : j.number(entry.value, `[${i}].value`);
    if (time && value < 0) j.fail(`[${i}].value`, `is ${value}; a time (unit ${unit}) cannot be below zero`);
    const metric = time ? 'time' : 'value';
    budget.value();
    const byName = series[metric];
    const seen = byName.get(benchmark);
    if (seen) {
      const factor = conversionFactor(unit, seen.m.unit);
      if (factor === undefined) return j.fail(`[${i}].unit`, `is ${JSON.stringify(written)}, but [${seen.i}] has the same name in ${JSON.stringify(seen.m.unit)}; give each unit its own name`);
      if (factor !== 1) value *= factor;
      seen.m.values.push(value);
      return;
    }
    budget.series();
    if (mode === 'from-unit' && !time && better === 'lower') {
      guessedCount += 1;
      if (guessed.size < 1000) guessed.set(benchmark, unit);
    }
    const m: Measurement = { benchmark, metric, unit, better, values: [value] };
    byName.set(benchmark, { m, i });
    measurements.push(m);
  });

  const warnings: ReadWarning[] = [];
  if (guessed.size > 0) {
    const units = [...new Set(guessed.values())].slice(0, 5).map((u) => JSON.stringify(u)).join(', ');
    const names = [...guessed.keys()].slice(0, 3);
    const shown = names.map((n) => JSON.stringify(n.length > 60 ? `${n.slice(0, 60)}…` : n)).join(', ') + (guessedCount > 3 ? ` and ${guessedCount - 3} more` : '');
    warnings.push({
      kind: 'note',
      message: `the file does not say whether smaller or bigger is better (github-action-benchmark takes it from the tool name); ${shown} in ${units} read as smaller-is-better: pass --format custom-smaller-is-better or --format custom-bigger-is-better to state it`,
    });
  }
  return { measurements, warnings, hints: {} };
}

/** spellUnit trims a unit and spells `µs`/`μs` as `us`, keeping a per-something suffix (`µs/iter` -> `us/iter`); `benchbot import` spells data.js units the same way. */
export function spellUnit(unit: string): string {
  const u = unit.trim();
  const slash = u.indexOf('/');
  const base = slash < 0 ? u : u.slice(0, slash);
  const normal = normalizeTimeUnit(base);
  return normal === undefined ? u : normal + (slash < 0 ? '' : u.slice(slash));
}

/** isGabTimeUnit is github-action-benchmark's test for a time, here and in the data.js import: ns, us, ms, s (or nsec, usec, msec, sec), alone or per something, but not a rate. */
export function isGabTimeUnit(unit: string): boolean {
  if (/\/(s|sec|second)$/i.test(unit)) return false;
  const base = unit.split('/')[0];
  return normalizeTimeUnit(base) !== undefined || /^(n|u|m)?sec$/.test(base);
}
