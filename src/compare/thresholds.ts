/**
 * ThresholdRule sets the threshold theta for benchmarks whose name matches a
 * glob (`*` any run of characters, `?` one character), e.g.
 * `BM_Network/*` = 10%. The last matching rule wins, so specific rules go last.
 */
export interface ThresholdRule {
  glob: string;
  threshold: number;
}

/** globToRegExp turns a benchmark glob into an anchored regular expression. */
export function globToRegExp(glob: string): RegExp {
  const escaped = glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*').replace(/\?/g, '.');
  return new RegExp(`^${escaped}$`);
}

/** thresholdFor returns the threshold that applies to a benchmark. */
export function thresholdFor(benchmark: string, fallback: number, rules: readonly ThresholdRule[]): number {
  let threshold = fallback;
  for (const rule of rules) if (globToRegExp(rule.glob).test(benchmark)) threshold = rule.threshold;
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
