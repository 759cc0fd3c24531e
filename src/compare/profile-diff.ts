import type { CallgrindProfile } from '../formats/callgrind-profile.ts';
import type { PerfSampling } from '../formats/perf-script-profile.ts';
import type { FunctionChange, ProfileDiff } from '../model/profile-diff.ts';

/**
 * PROFILE_DIFF_DEFAULTS: `top` functions per ranking (10: the PR comment
 * shows them folded, and a change spread thinner than ten functions is not
 * one place anyway); `event` Ir, the instructions executed, which callgrind
 * counts exactly and every run has.
 */
export const PROFILE_DIFF_DEFAULTS = { top: 10, event: 'Ir' } as const;

/** ProfiledSide is one side's profile (a sampled one carries `sampling`), the iterations it covers, and its commit. */
export interface ProfiledSide {
  profile: CallgrindProfile & { sampling?: PerfSampling };
  iterations: number;
  sha?: string;
}

/** ProfileEventError says a profile does not count the event asked for (e.g. `Ir` without `--collect-atstart`'s events). */
export class ProfileEventError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ProfileEventError';
  }
}

// Per-iteration costs of equal counts over different schedules differ in the last bits (94180 / 20 vs 141270 / 30);
// a millionth of an instruction per iteration is no change.
const NO_CHANGE = 1e-6;

/**
 * FRAME_SHARE: a function whose inclusive cost is at least this share of
 * the whole profile, on either side, is one of the benchmark's frames, left
 * out of the inclusive ranking (its self cost is still ranked).
 */
const FRAME_SHARE = 0.99;

/**
 * SAMPLING_Z is how many standard errors a sampled change must be from
 * zero to be told from sampling noise: 1.96, a two-sided 95% normal
 * interval (each side's count is Poisson, and a profile's counts are
 * hundreds to thousands, where the normal approximation holds).
 */
export const SAMPLING_Z = 1.96;

/** SAMPLES is the event of a sampled profile that counts its samples (formats/perf-script-profile.ts). */
const SAMPLES = 'samples';

/**
 * diffProfiles compares the profiles of one benchmark at base and head:
 * every cost divided by its side's iterations, functions matched by object
 * file name and name, the `top` largest absolute changes of self and of
 * inclusive cost, each with its share of the benchmark's whole change.
 * The inclusive ranking leaves out the benchmark's frames, the functions
 * whose inclusive cost is (at least 99% of) the whole profile's on either side.
 */
export function diffProfiles(benchmark: string, base: ProfiledSide, head: ProfiledSide, options: { top?: number; event?: string; scope?: 'command' } = {}): ProfileDiff {
  const top = options.top ?? PROFILE_DIFF_DEFAULTS.top;
  const sampled = base.profile.sampling !== undefined || head.profile.sampling !== undefined;
  if (sampled && (base.profile.sampling === undefined || head.profile.sampling === undefined)) throw new ProfileEventError('one side is sampled (perf) and the other counted (callgrind): profile both sides with one tool');
  if (options.scope === 'command' && sampled) return diffShares(benchmark, base, head, top);
  // A sampled profile's cost is its event's (cpu-clock, cycles), beside the sample count.
  const event = options.event ?? (sampled ? base.profile.events[0] : PROFILE_DIFF_DEFAULTS.event);
  for (const [side, s] of [['base', base], ['head', head]] as const) {
    if (!(Number.isInteger(s.iterations) && s.iterations > 0)) throw new RangeError(`${side}: iterations ${s.iterations} is not a positive whole number`);
    if (!s.profile.events.includes(event)) throw new ProfileEventError(`the ${side} profile counts ${s.profile.events.join(' ')}, not ${event}`);
  }
  const baseAt = base.profile.events.indexOf(event);
  const headAt = head.profile.events.indexOf(event);
  const baseTotal = (base.profile.totals[baseAt] ?? 0) / base.iterations;
  const headTotal = (head.profile.totals[headAt] ?? 0) / head.iterations;
  const change = headTotal - baseTotal;

  type Pair = { name: string; object: string; self: [number, number]; inclusive: [number, number]; selfSamples: [number, number]; inclusiveSamples: [number, number] };
  const pairs = new Map<string, Pair>();
  const samplesAt = [base.profile.events.indexOf(SAMPLES), head.profile.events.indexOf(SAMPLES)];
  if (sampled && samplesAt.includes(-1)) throw new ProfileEventError(`a sampled profile counts ${SAMPLES} beside its event`);
  const collect = (side: ProfiledSide, at: number, index: 0 | 1) => {
    for (const f of side.profile.functions) {
      const key = `${f.object}\u0000${f.name}`;
      let pair = pairs.get(key);
      if (!pair) pairs.set(key, (pair = { name: f.name, object: f.object, self: [0, 0], inclusive: [0, 0], selfSamples: [0, 0], inclusiveSamples: [0, 0] }));
      pair.self[index] += (f.self[at] ?? 0) / side.iterations;
      pair.inclusive[index] += (f.inclusive[at] ?? 0) / side.iterations;
      if (sampled) {
        pair.selfSamples[index] += f.self[samplesAt[index]] ?? 0;
        pair.inclusiveSamples[index] += f.inclusive[samplesAt[index]] ?? 0;
      }
    }
  };
  collect(base, baseAt, 0);
  collect(head, headAt, 1);
  const error = sampled ? samplingError(base, head, baseTotal, headTotal, samplesAt) : undefined;

  const rank = (kind: 'self' | 'inclusive'): { list: FunctionChange[]; omitted: number } => {
    const changed: FunctionChange[] = [];
    for (const p of pairs.values()) {
      const [b, h] = p[kind];
      if (Math.abs(h - b) < NO_CHANGE) continue;
      // The benchmark's frames (main, the harness loop, the function profiling started in) hold the whole cost, and so
      // the whole change: they say nothing about where it lives. A function that holds it on one side only was on the
      // stack when collection began there (Go's goroutine switches leave the scheduler's frames on callgrind's call
      // stack: runtime.gcStart held 6,855,016 of a profile's 6,861,887 Ir): its inclusive cost is the profile's.
      const frame = (cost: number, total: number) => total > 0 && cost >= FRAME_SHARE * total;
      if (kind === 'inclusive' && (frame(b, baseTotal) || frame(h, headTotal))) continue;
      const share = Math.abs(change) < NO_CHANGE ? null : (h - b) / change;
      const row: FunctionChange = { name: p.name, object: p.object, base: b, head: h, change: h - b, share };
      if (error !== undefined) Object.assign(row, error.of(p[kind === 'self' ? 'selfSamples' : 'inclusiveSamples'], h - b, share));
      changed.push(row);
    }
    changed.sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0) || (x.object < y.object ? -1 : 1));
    return { list: changed.slice(0, top), omitted: Math.max(0, changed.length - top) };
  };
  const self = rank('self');
  const inclusive = rank('inclusive');
  return {
    benchmark,
    tool: sampled ? 'perf' : 'callgrind',
    event,
    base: sideOf(base, baseTotal),
    head: sideOf(head, headTotal),
    change,
    ...(error === undefined ? {} : { sampling: { error: error.whole, noise: Math.abs(change) < SAMPLING_Z * error.whole } }),
    self: self.list,
    inclusive: inclusive.list,
    omitted: { self: self.omitted, inclusive: inclusive.omitted },
  };
}

/**
 * diffShares compares two sampled profiles of a whole bench command whose
 * harness decides how long it runs (a JavaScript harness, pytest-benchmark,
 * criterion: each benchmark runs for a time budget, so both sides take
 * about as long whatever changed): a function's cost is its share of its
 * side's samples, the whole change is zero by construction, and what a
 * regression leaves is CPU time moved from some functions to others. So
 * `moved` is the share of the samples that moved (the sum of the self
 * shares that grew), and a function's `share` is its change over `moved`:
 * +80% reads "four fifths of the time that moved went into it". A share of
 * samples p from N samples has the binomial variance p(1 - p) / N (a
 * function without a sample on a side counted as one); a change adds both
 * sides', and its share's error is the change's over `moved`.
 */
function diffShares(benchmark: string, base: ProfiledSide, head: ProfiledSide, top: number): ProfileDiff {
  const at = [base.profile.events.indexOf(SAMPLES), head.profile.events.indexOf(SAMPLES)];
  if (at.includes(-1)) throw new ProfileEventError(`a sampled profile counts ${SAMPLES} beside its event`);
  const totals = [base.profile.totals[at[0]] ?? 0, head.profile.totals[at[1]] ?? 0];
  if (totals.includes(0)) throw new ProfileEventError('a side has no samples');
  type Pair = { name: string; object: string; self: [number, number]; inclusive: [number, number] };
  const pairs = new Map<string, Pair>();
  [base, head].forEach((side, index) => {
    for (const f of side.profile.functions) {
      const key = `${f.object}\u0000${f.name}`;
      let pair = pairs.get(key);
      if (!pair) pairs.set(key, (pair = { name: f.name, object: f.object, self: [0, 0], inclusive: [0, 0] }));
      pair.self[index] += f.self[at[index]] ?? 0;
      pair.inclusive[index] += f.inclusive[at[index]] ?? 0;
    }
  });
  const variance = (n: number, index: number) => {
    const p = Math.max(n, 1) / totals[index];
    return (p * (1 - Math.min(p, 1))) / totals[index];
  };
  let moved = 0;
  for (const p of pairs.values()) moved += Math.max(0, p.self[1] / totals[1] - p.self[0] / totals[0]);
  let beyond = false;
  const rank = (kind: 'self' | 'inclusive'): { list: FunctionChange[]; omitted: number } => {
    const changed: FunctionChange[] = [];
    for (const p of pairs.values()) {
      const b = p[kind][0] / totals[0];
      const h = p[kind][1] / totals[1];
      if (Math.abs(h - b) < NO_CHANGE) continue;
      if (kind === 'inclusive' && (b >= FRAME_SHARE || h >= FRAME_SHARE)) continue;
      const error = Math.sqrt(variance(p[kind][0], 0) + variance(p[kind][1], 1));
      const share = moved < NO_CHANGE ? null : (h - b) / moved;
      const noise = Math.abs(h - b) < SAMPLING_Z * error;
      if (kind === 'self' && !noise) beyond = true;
      changed.push({ name: p.name, object: p.object, base: b, head: h, change: h - b, share, error, shareError: share === null ? null : error / moved, noise });
    }
    changed.sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0) || (x.object < y.object ? -1 : 1));
    return { list: changed.slice(0, top), omitted: Math.max(0, changed.length - top) };
  };
  const self = rank('self');
  const inclusive = rank('inclusive');
  const event = base.profile.events[0];
  return {
    benchmark,
    tool: 'perf',
    event,
    scope: 'command',
    base: sideOf(base, 1),
    head: sideOf(head, 1),
    change: 0,
    moved,
    sampling: { error: 0, noise: !beyond },
    self: self.list,
    inclusive: inclusive.list,
    omitted: { self: self.omitted, inclusive: inclusive.omitted },
  };
}

function sideOf(side: ProfiledSide, total: number): ProfileDiff['base'] {
  const sampling = side.profile.sampling;
  return {
    ...(side.sha === undefined ? {} : { sha: side.sha }),
    iterations: side.iterations,
    total,
    ...(sampling === undefined ? {} : { samples: sampling.samples, unnamed: sampling.unnamed }),
  };
}

/**
 * samplingError is the sampling error of a differential profile made of
 * samples. Every sample of a side weighs the same (benchbot records with a
 * fixed period), `w = total / samples` per iteration, and a function's
 * sample count n is a Poisson count, whose variance is n itself: the
 * variance of its cost per iteration is `w^2 n`, and of a change the sum
 * of both sides' (the two recordings are independent). A side where the
 * function has no sample is counted as one, so a function seen on one side
 * only is never surer than a single sample. The whole change's variance is
 * the same over the sides' sample totals. A share s = d / D has, by the
 * delta method with Cov(d, D) = Var(d) (a function's samples, self or
 * inclusive, are a subset of the whole profile's), the variance
 * `((1 - s)^2 Var(d) + s^2 (Var(D) - Var(d))) / D^2`.
 */
function samplingError(base: ProfiledSide, head: ProfiledSide, baseTotal: number, headTotal: number, samplesAt: number[]) {
  const counts = [base.profile.totals[samplesAt[0]] ?? 0, head.profile.totals[samplesAt[1]] ?? 0];
  const weight = [counts[0] > 0 ? baseTotal / counts[0] : 0, counts[1] > 0 ? headTotal / counts[1] : 0];
  const variance = (n: readonly number[]) => weight[0] ** 2 * Math.max(n[0], 1) + weight[1] ** 2 * Math.max(n[1], 1);
  const wholeVariance = weight[0] ** 2 * counts[0] + weight[1] ** 2 * counts[1];
  const whole = Math.sqrt(wholeVariance);
  const D = headTotal - baseTotal;
  return {
    whole,
    of(n: readonly [number, number], d: number, share: number | null): Pick<FunctionChange, 'error' | 'shareError' | 'noise'> {
      const v = variance(n);
      const shareError = share === null ? null : Math.sqrt(Math.max(0, (1 - share) ** 2 * v + share ** 2 * Math.max(0, wholeVariance - v))) / Math.abs(D);
      const changeError = Math.sqrt(v);
      return { error: changeError, shareError, noise: Math.abs(d) < SAMPLING_Z * changeError };
    },
  };
}

/**
 * whereItLives is the one-line answer of a differential profile: the
 * function whose self cost changed most, with its share of the change, or
 * undefined when nothing changed. Of a sampled profile, the first function
 * whose change is beyond sampling noise; none when the whole change is not.
 */
export function whereItLives(diff: ProfileDiff): FunctionChange | undefined {
  if (diff.sampling === undefined) return diff.self[0];
  if (diff.sampling.noise) return undefined;
  // Of a whole command's shares, where the time went: the largest gain beyond noise.
  if (diff.moved !== undefined) return diff.self.find((f) => !f.noise && f.change > 0);
  return diff.self.find((f) => !f.noise);
}
