import type { Direction } from './measurement.ts';

/** Time units understood everywhere, as the power of ten of seconds per unit (exact, unlike 1e-6 / 1e-9). */
const SECONDS_EXPONENT: Record<string, number> = { ns: -9, us: -6, 'µs': -6, 'μs': -6, ms: -3, s: 0 };

/**
 * normalizeTimeUnit maps the spellings harnesses use (`µs`, `μs`, `us`,
 * `ns/op`'s `ns`) to one of ns, us, ms, s; returns undefined for anything else.
 */
export function normalizeTimeUnit(unit: string): string | undefined {
  const u = unit.trim();
  if (u === 'µs' || u === 'μs') return 'us';
  // Own keys only: a unit spelled `constructor` or `toString` is not a time.
  return Object.hasOwn(SECONDS_EXPONENT, u) ? u : undefined;
}

/**
 * conversionFactor returns f such that a value in `from` times f is the same
 * quantity in `to`, or undefined when the units do not convert. Time units
 * convert among themselves, also with a shared per-operation suffix
 * (`us/op` to `ns/op`); everything else converts only to itself.
 */
export function conversionFactor(from: string, to: string): number | undefined {
  if (from === to) return 1;
  const [fromBase, fromPer] = splitPer(from);
  const [toBase, toPer] = splitPer(to);
  if (fromPer !== toPer) return undefined;
  const a = normalizeTimeUnit(fromBase);
  const b = normalizeTimeUnit(toBase);
  if (a === undefined || b === undefined) return undefined;
  const exponent = SECONDS_EXPONENT[a] - SECONDS_EXPONENT[b];
  return exponent >= 0 ? 10 ** exponent : 1 / 10 ** -exponent;
}

/**
 * isTimeUnit says whether a unit measures time: ns, us, µs, ms, s or sec,
 * alone or per something (`ns/op`, `ms/iteration`). Times cannot be
 * negative, whatever the harness printed.
 */
export function isTimeUnit(unit: string): boolean {
  const [base] = splitPer(unit.trim());
  return base === 'sec' || normalizeTimeUnit(base) !== undefined;
}

function splitPer(unit: string): [string, string] {
  const slash = unit.indexOf('/');
  return slash < 0 ? [unit, ''] : [unit.slice(0, slash), unit.slice(slash)];
}

const HIGHER_IS_BETTER_METRICS = /(^|_)(bytes|items|ops|requests|ips)_per_second$|throughput|^score$|^mb\/s$/i;

/**
 * directionOf decides whether lower or higher is better from the metric name
 * and unit: rates (anything per second, `ops/s`, `MB/s`, `bytes_per_second`)
 * are higher-is-better; times, sizes and counters are lower-is-better. A
 * harness that states a direction itself overrides this at the reader.
 */
export function directionOf(metric: string, unit: string): Direction {
  if (HIGHER_IS_BETTER_METRICS.test(metric)) return 'higher';
  const u = unit.trim();
  if (/\/(s|sec|second)$/i.test(u) || /per[_ ]?s(ec(ond)?)?$/i.test(u) || /^ops\/(ms|us|ns|min)$/i.test(u)) return 'higher';
  return 'lower';
}
