/** format: how numbers, changes and dates read on the pages (text only; units are shown as given). */

/** value prints a measurement with four significant digits and its unit. */
export function value(v: number | null, unit: string): string {
  if (v === null || !Number.isFinite(v)) return '–';
  const abs = Math.abs(v);
  const text = abs !== 0 && (abs >= 1e15 || abs < 1e-3) ? v.toExponential(3) : v.toLocaleString('en-US', { maximumSignificantDigits: 4 });
  return unit === '' ? text : `${text} ${unit}`;
}

/** change prints a relative change (0.031 -> "+3.1%"). */
export function change(c: number | null): string {
  if (c === null || !Number.isFinite(c)) return '–';
  const pct = c * 100;
  const digits = Math.abs(pct) >= 10 ? 0 : 1;
  return `${pct > 0 ? '+' : pct < 0 ? '−' : '±'}${Math.abs(pct).toFixed(digits)}%`;
}

/** ratioChange prints after/before as a change. */
export function ratioChange(ratio: number): string {
  return change(ratio - 1);
}

/** date prints an epoch-ms time as its UTC day. */
export function date(ms: number | null): string {
  return ms === null || !Number.isFinite(ms) ? '–' : new Date(ms).toISOString().slice(0, 10);
}

/** dateTime prints an epoch-ms time to the minute, UTC. */
export function dateTime(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

/** shortSha is a commit's first 10 hex digits. */
export function shortSha(sha: string): string {
  return sha.slice(0, 10);
}

/** worse says whether a change is for the worse given the metric's direction. */
export function worse(c: number | null, better: 'lower' | 'higher'): boolean {
  return c !== null && (better === 'lower' ? c > 0 : c < 0);
}

/** STATUS_LABEL is how a status reads on a badge: what the scan decided, and for the undecided what they wait for. */
export const STATUS_LABEL = {
  regression: 'regression',
  improvement: 'improvement',
  awaiting: 'awaiting A/B',
  watch: 'watch: 1 night',
  refuted: 'refuted',
  ok: 'steady',
} as const;
