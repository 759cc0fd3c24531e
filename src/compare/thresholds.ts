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

/** PercentProblem says why a threshold text was refused and what to write instead, phrased to follow `X is` (callers name the setting). */
export interface PercentProblem {
  problem: string;
}

/**
 * readPercent is the one reading of a threshold, wherever it is typed (a
 * flag, `--threshold-for`, an action input, `.github/benchbot.yml`, `/bench
 * threshold=`): a percentage. `2%` and `2` are 0.02, `0.5%` is 0.005. A bare
 * number below 1 (`0.5`, `.02`) is refused with both readings named, since
 * some read 0.5 as 0.5% and others as the fraction 50%, and guessing either
 * way silently moves every verdict by a factor of 100. `0` and `0%` are 0
 * (callers that need a positive threshold say so); anything else, or 100%
 * and more, is a problem.
 */
export function readPercent(text: string): number | PercentProblem {
  const match = /^\s*(\d+(?:\.\d+)?|\.\d+)\s*(%?)\s*$/.exec(text);
  if (!match) return { problem: 'not a percentage such as 2% or 0.5%' };
  const number = Number(match[1]);
  if (match[2] === '' && number > 0 && number < 1) {
    const digits = match[1].trim();
    return { problem: `ambiguous: write ${digits}% or ${Number((number * 100).toFixed(6))}% (a bare number below 1 needs its % sign)` };
  }
  const fraction = number / 100;
  return fraction < 1 ? fraction : { problem: 'not a percentage below 100% such as 2%' };
}

