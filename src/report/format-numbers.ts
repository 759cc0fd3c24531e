import { conversionFactor, normalizeTimeUnit } from '../model/units.ts';

const TIME_SCALES: [string, string][] = [['s', 's'], ['ms', 'ms'], ['us', 'µs'], ['ns', 'ns']];

/** significant prints a number with `digits` significant digits, without exponent for everyday sizes. */
export function significant(value: number, digits = 3): string {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1e15 || abs < 1e-6) return value.toExponential(digits - 1);
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(abs)));
  return value.toFixed(Math.min(decimals, 12));
}

// Units a metric prefix belongs to: `3.60 GB/s`, `1.20 Melem/s`, never `3.60G B/s`.
const BYTES = /^(k|K|M|G|T|Ki|Mi|Gi|Ti)?(B|bytes?)(\/.+)?$/;
const ELEMENTS = /^(k|K|M|G)?(elem)(\/.+)?$/;
const DECIMAL: [number, string][] = [[1e12, 'T'], [1e9, 'G'], [1e6, 'M'], [1e3, 'k'], [1, '']];
const BINARY: [number, string][] = [[2 ** 40, 'Ti'], [2 ** 30, 'Gi'], [2 ** 20, 'Mi'], [2 ** 10, 'Ki'], [1, '']];
const PREFIX_FACTOR: Record<string, number> = { '': 1, k: 1e3, K: 1e3, M: 1e6, G: 1e9, T: 1e12, Ki: 2 ** 10, Mi: 2 ** 20, Gi: 2 ** 30, Ti: 2 ** 40 };

/**
 * formatQuantity prints a value with its unit in a readable scale: times are
 * moved to the largest unit that keeps them >= 1 (`1234 ns` -> `1.23 µs`),
 * per-operation suffixes are kept (`ns/op`); bytes and elements take the
 * prefix on the unit, decimal or binary as the harness used (`14400 MB/s` ->
 * `14.4 GB/s`, `3.6e9 bytes/s` -> `3.60 GB/s`, `2e6 elem/s` -> `2.00
 * Melem/s`); other counts get k/M/G on the number (`1.20M items/s`).
 */
export function formatQuantity(value: number, unit: string): string {
  const slash = unit.indexOf('/');
  const base = slash < 0 ? unit : unit.slice(0, slash);
  const per = slash < 0 ? '' : unit.slice(slash);
  if (normalizeTimeUnit(base) !== undefined) {
    for (const [scale, label] of TIME_SCALES) {
      const factor = conversionFactor(base, scale) as number;
      const scaled = value * factor;
      if (Math.abs(scaled) >= 1 || scale === 'ns') return `${significant(scaled)} ${label}${per}`;
    }
  }
  const bytes = BYTES.exec(unit);
  if (bytes) {
    const prefix = bytes[1] ?? '';
    return prefixed(value * PREFIX_FACTOR[prefix], prefix.endsWith('i') ? BINARY : DECIMAL, 'B', bytes[3] ?? '');
  }
  const elements = ELEMENTS.exec(unit);
  if (elements) return prefixed(value * PREFIX_FACTOR[elements[1] ?? ''], DECIMAL, 'elem', elements[3] ?? '');
  const abs = Math.abs(value);
  const [divisor, prefix] = abs >= 1e9 ? [1e9, 'G'] : abs >= 1e6 ? [1e6, 'M'] : abs >= 1e4 ? [1e3, 'k'] : [1, ''];
  const shown = `${significant(value / divisor)}${prefix}`;
  return unit === '' || unit === 'count' ? shown : `${shown} ${unit}`;
}

function prefixed(value: number, scales: readonly [number, string][], symbol: string, per: string): string {
  const abs = Math.abs(value);
  const [factor, prefix] = scales.find(([f]) => abs >= f) ?? scales[scales.length - 1];
  return `${significant(value / factor)} ${prefix}${symbol}${per}`;
}

/**
 * MAX_SHOWN_FACTOR: a change beyond 1000x reads `more than 1000x`. Samples
 * from 1e-300 to 1e300 are valid doubles, and their ratio overflows to
 * Infinity, which would print as `+Infinity%` or `Infinityx slower`; past
 * 1000x the digits say nothing a reader can use anyway.
 */
export const MAX_SHOWN_FACTOR = 1000;

const BEYOND = `more than ${MAX_SHOWN_FACTOR}x`;

/** formatChange prints a ratio as a signed percent change: 1.023 -> `+2.3%`; above MAX_SHOWN_FACTOR `more than 1000x`; NaN `–`. */
export function formatChange(ratio: number): string {
  if (ratio > MAX_SHOWN_FACTOR) return BEYOND;
  if (!Number.isFinite(ratio)) return '–';
  const percent = (ratio - 1) * 100;
  const text = Math.abs(percent) >= 100 ? percent.toFixed(0) : Math.abs(percent) >= 10 ? percent.toFixed(1) : percent.toFixed(2);
  return `${percent >= 0 ? '+' : ''}${text}%`;
}

/** FOLD_LIMIT: a change beyond this factor (2x either way) reads as `31x slower`, not `+2999%`. */
export const FOLD_LIMIT = 2;

/**
 * changeWords names a change beyond {@link FOLD_LIMIT} for a metric: times
 * get slower / faster, rates faster / slower, other lower-is-better amounts
 * (B/op, allocs/op) more / less, other scores higher / lower. The first
 * word is for a ratio above 1.
 */
export function changeWords(unit: string, better: 'lower' | 'higher'): [string, string] {
  const base = unit.split('/')[0];
  if (normalizeTimeUnit(base) !== undefined) return ['slower', 'faster'];
  if (/\/s$/.test(unit)) return better === 'higher' ? ['faster', 'slower'] : ['more', 'less'];
  return better === 'lower' ? ['more', 'less'] : ['higher', 'lower'];
}

/**
 * formatRatio prints a change with its CI for people: within 2x as percents
 * (`+11.0% [+9.93%, +12.2%]`), beyond as a factor with its word (`31x
 * slower [29x, 33x]`, `2.5x faster [1.9x, 2.9x]`), the CI's bounds then as
 * factors in the same sense, smallest first. `bold` marks the estimate.
 */
export function formatRatio(ratio: number, ci: [number, number] | null, words: [string, string], bold = (s: string) => s): string {
  const parts = ratioParts(ratio, ci, words);
  return `${bold(parts.estimate)}${parts.ci ? ` ${parts.ci}` : ''}`;
}

/** ratioParts is formatRatio's estimate and CI apart (`31x slower`, `[29x, 33x]`; CI '' when there is none), for tables with a CI column. */
export function ratioParts(ratio: number, ci: [number, number] | null, words: [string, string]): { estimate: string; ci: string } {
  if (ratio > 0 && (ratio >= FOLD_LIMIT || ratio <= 1 / FOLD_LIMIT)) {
    const up = ratio > 1;
    const fold = (r: number) => (up ? r : 1 / r);
    const factor = (r: number) => (fold(r) > MAX_SHOWN_FACTOR ? `>${MAX_SHOWN_FACTOR}x` : `${significant(fold(r), 2)}x`);
    const estimate = `${fold(ratio) > MAX_SHOWN_FACTOR ? BEYOND : factor(ratio)} ${up ? words[0] : words[1]}`;
    if (ci === null || !(ci[0] > 0)) return { estimate, ci: '' };
    const bounds = up ? [ci[0], ci[1]] : [ci[1], ci[0]];
    return { estimate, ci: `[${factor(bounds[0])}, ${factor(bounds[1])}]` };
  }
  return { estimate: formatChange(ratio), ci: ci ? `[${formatChange(ci[0])}, ${formatChange(ci[1])}]` : '' };
}

/** formatP prints a p- or q-value compactly: `0.032`, `1.2e-5`. */
export function formatP(p: number | null): string {
  if (p === null) return '–';
  if (p >= 0.001) return p.toFixed(3);
  return p.toExponential(1);
}
