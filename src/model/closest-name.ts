/**
 * closestName returns the candidate a mistyped name most likely meant
 * (`googlebenchmark` -> `google-benchmark`, `--treshold` -> `--threshold`,
 * `scna` -> `scan`), or undefined when none is close. Close is an edit
 * distance (insertions, deletions, substitutions and swaps of two neighbours,
 * ignoring case) of at most a third of the typed name's length (at least 1, at most 3),
 * so a short name never "means" an unrelated one. Ties go to the earlier
 * candidate. Names are short (flags, formats, settings): the O(a x b) table
 * is cheap, and a library (e.g. fastest-levenshtein) would save ten lines.
 */
export function closestName(typed: string, candidates: readonly string[]): string | undefined {
  const wanted = typed.toLowerCase();
  const limit = Math.max(1, Math.min(3, Math.floor(wanted.length / 3)));
  let best: string | undefined;
  let bestDistance = limit + 1;
  for (const candidate of candidates) {
    const distance = editDistance(wanted, candidate.toLowerCase(), limit);
    if (distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * editDistance is the optimal string alignment distance of a and b
 * (Levenshtein plus the swap of two neighbours, the commonest typo), or
 * limit + 1 as soon as it is known to exceed limit.
 */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let before: number[] = [];
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1));
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) current[j] = Math.min(current[j], before[j - 2] + 1);
    }
    if (Math.min(...current) > limit) return limit + 1;
    before = previous;
    previous = current;
  }
  return previous[b.length];
}

/** didYouMean is what a refusal adds for closestName: ` (did you mean X?)`, or nothing when no name is close. */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const near = closestName(typed, candidates);
  return near === undefined ? '' : ` (did you mean ${near}?)`;
}
