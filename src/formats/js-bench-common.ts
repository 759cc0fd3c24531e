import type { JsonReader } from './json-document.ts';
import type { ReadBudget } from './input-limits.ts';

/**
 * UniqueNames hands out benchmark names in input order: a name seen before
 * gets ` #2`, ` #3`... (mitata and vitest accept the same name twice, and two
 * benchmarks must not pool their values).
 */
export class UniqueNames {
  private readonly taken = new Set<string>();
  /** next holds, per base name, the last number tried, so numbering stays linear. */
  private readonly next = new Map<string, number>();

  name(base: string): string {
    let name = base;
    let k = this.next.get(base) ?? 1;
    while (this.taken.has(name)) {
      k += 1;
      name = `${base} #${k}`;
    }
    this.next.set(base, k);
    this.taken.add(name);
    return name;
  }
}

/**
 * sampleTimes returns a harness's per-sample times at `path` (finite, not
 * negative, counted against the budget), or undefined when there are none:
 * absent, null or empty, as when the harness was told not to keep them.
 */
export function sampleTimes(j: JsonReader, budget: ReadBudget, value: unknown, path: string): number[] | undefined {
  if (value === undefined || value === null) return undefined;
  const raw = j.array(value, path);
  if (raw.length === 0) return undefined;
  budget.value(undefined, raw.length);
  // One pass with no path string per element (they cost more than JSON.parse
  // itself on a run of a million samples); the path is built for an error only.
  for (let i = 0; i < raw.length; i++) {
    const t = raw[i];
    if (typeof t !== 'number' || !Number.isFinite(t)) j.number(t, `${path}[${i}]`);
    if ((t as number) < 0) j.fail(`${path}[${i}]`, `negative time ${t}`);
  }
  const times = raw as number[];
  return times;
}

/** summaryTime reads one non-negative summary time (a median or mean) at `path`. */
export function summaryTime(j: JsonReader, budget: ReadBudget, value: unknown, path: string): number {
  const t = j.number(value, path);
  if (t < 0) j.fail(path, `negative time ${t}`);
  budget.value();
  return t;
}
