import { conversionFactor, normalizeTimeUnit } from '../formats/units.ts';

const TIME_SCALES: [string, string][] = [['s', 's'], ['ms', 'ms'], ['us', 'µs'], ['ns', 'ns']];

/** significant prints a number with `digits` significant digits, without exponent for everyday sizes. */
export function significant(value: number, digits = 3): string {
  if (value === 0) return '0';
  const abs = Math.abs(value);
  if (abs >= 1e15 || abs < 1e-6) return value.toExponential(digits - 1);
  const decimals = Math.max(0, digits - 1 - Math.floor(Math.log10(abs)));
  return value.toFixed(Math.min(decimals, 12));
}

/**
 * formatQuantity prints a value with its unit in a readable scale: times are
 * moved to the largest unit that keeps them >= 1 (`1234 ns` -> `1.23 µs`),
 * per-operation suffixes are kept (`ns/op`), counts get k/M/G.
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
  const abs = Math.abs(value);
  const [divisor, prefix] = abs >= 1e9 ? [1e9, 'G'] : abs >= 1e6 ? [1e6, 'M'] : abs >= 1e4 ? [1e3, 'k'] : [1, ''];
  const shown = `${significant(value / divisor)}${prefix}`;
  return unit === '' || unit === 'count' ? shown : `${shown} ${unit}`;
}

/** formatChange prints a ratio as a signed percent change: 1.023 -> `+2.3%`. */
export function formatChange(ratio: number): string {
  const percent = (ratio - 1) * 100;
  const text = Math.abs(percent) >= 100 ? percent.toFixed(0) : Math.abs(percent) >= 10 ? percent.toFixed(1) : percent.toFixed(2);
  return `${percent >= 0 ? '+' : ''}${text}%`;
}

/** formatP prints a p- or q-value compactly: `0.032`, `1.2e-5`. */
export function formatP(p: number | null): string {
  if (p === null) return '–';
  if (p >= 0.001) return p.toFixed(3);
  return p.toExponential(1);
}
