/**
 * ThresholdRule sets the threshold theta for benchmarks whose name matches a
 * glob (`*` any run of characters, `?` one character), e.g.
 * `BM_Network/*` = 10%. The last matching rule wins, so specific rules go last.
 */
export interface ThresholdRule {
  glob: string;
  threshold: number;
}

/**
 * globMatches says whether a benchmark glob matches the whole name: `*` any
 * run of characters (also none), `?` exactly one character (code point),
 * anything else itself. Globs come from configuration and names from the code
 * under test, so this is a two-pointer matcher that backs up only to the last
 * `*`, at most O(glob x name) steps; a RegExp built from the glob backtracks
 * exponentially (`*a*a*a*a*a*a*a*a*a*a*a*b` on 60 a's ran for minutes).
 */
export function globMatches(glob: string, name: string): boolean {
  const g = Array.from(glob);
  const s = Array.from(name);
  let gi = 0;
  let si = 0;
  // Where the last `*` was and how much of the name it has swallowed so far.
  let star = -1;
  let swallowed = 0;
  while (si < s.length) {
    if (gi < g.length && g[gi] === '*') {
      star = gi;
      swallowed = si;
      gi += 1;
    } else if (gi < g.length && (g[gi] === '?' || g[gi] === s[si])) {
      gi += 1;
      si += 1;
    } else if (star >= 0) {
      // Let the last `*` take one more character and retry the rest; an
      // earlier `*` never needs to, since the last one can absorb the same.
      gi = star + 1;
      swallowed += 1;
      si = swallowed;
    } else {
      return false;
    }
  }
  while (gi < g.length && g[gi] === '*') gi += 1;
  return gi === g.length;
}

/** thresholdFor returns the threshold that applies to a benchmark. */
export function thresholdFor(benchmark: string, fallback: number, rules: readonly ThresholdRule[]): number {
  let threshold = fallback;
  for (const rule of rules) if (globMatches(rule.glob, benchmark)) threshold = rule.threshold;
  return threshold;
}

/**
 * parsePercent reads a threshold as the user writes it: `2%`, `0.02` or `2`
 * (a bare number above 1 is taken as percent). Returns undefined when it is
 * not a number in [0, 100%).
 */
export function parsePercent(text: string): number | undefined {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)\s*$/.exec(text);
  if (!match) return undefined;
  const number = Number(match[1]);
  const fraction = match[2] === '%' || number >= 1 ? number / 100 : number;
  return fraction >= 0 && fraction < 1 ? fraction : undefined;
}
