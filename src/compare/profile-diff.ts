import type { CallgrindProfile } from '../formats/callgrind-profile.ts';
import type { FunctionChange, ProfileDiff } from '../model/profile-diff.ts';

/**
 * PROFILE_DIFF_DEFAULTS: `top` functions per ranking (10: the PR comment
 * shows them folded, and a change spread thinner than ten functions is not
 * one place anyway); `event` Ir, the instructions executed, which callgrind
 * counts exactly and every run has.
 */
export const PROFILE_DIFF_DEFAULTS = { top: 10, event: 'Ir' } as const;

/** ProfiledSide is one side's profile, the iterations it covers, and its commit. */
export interface ProfiledSide {
  profile: CallgrindProfile;
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
 * diffProfiles compares the profiles of one benchmark at base and head:
 * every cost divided by its side's iterations, functions matched by object
 * file name and name, the `top` largest absolute changes of self and of
 * inclusive cost, each with its share of the benchmark's whole change.
 * The inclusive ranking leaves out the benchmark's frames, the functions
 * whose inclusive cost is (at least 99% of) the whole profile's on either side.
 */
export function diffProfiles(benchmark: string, base: ProfiledSide, head: ProfiledSide, options: { top?: number; event?: string } = {}): ProfileDiff {
  const top = options.top ?? PROFILE_DIFF_DEFAULTS.top;
  const event = options.event ?? PROFILE_DIFF_DEFAULTS.event;
  for (const [side, s] of [['base', base], ['head', head]] as const) {
    if (!(Number.isInteger(s.iterations) && s.iterations > 0)) throw new RangeError(`${side}: iterations ${s.iterations} is not a positive whole number`);
    if (!s.profile.events.includes(event)) throw new ProfileEventError(`the ${side} profile counts ${s.profile.events.join(' ')}, not ${event}`);
  }
  const baseAt = base.profile.events.indexOf(event);
  const headAt = head.profile.events.indexOf(event);
  const baseTotal = (base.profile.totals[baseAt] ?? 0) / base.iterations;
  const headTotal = (head.profile.totals[headAt] ?? 0) / head.iterations;
  const change = headTotal - baseTotal;

  type Pair = { name: string; object: string; self: [number, number]; inclusive: [number, number] };
  const pairs = new Map<string, Pair>();
  const collect = (side: ProfiledSide, at: number, index: 0 | 1) => {
    for (const f of side.profile.functions) {
      const key = `${f.object}\u0000${f.name}`;
      let pair = pairs.get(key);
      if (!pair) pairs.set(key, (pair = { name: f.name, object: f.object, self: [0, 0], inclusive: [0, 0] }));
      pair.self[index] += (f.self[at] ?? 0) / side.iterations;
      pair.inclusive[index] += (f.inclusive[at] ?? 0) / side.iterations;
    }
  };
  collect(base, baseAt, 0);
  collect(head, headAt, 1);

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
      changed.push({ name: p.name, object: p.object, base: b, head: h, change: h - b, share: Math.abs(change) < NO_CHANGE ? null : (h - b) / change });
    }
    changed.sort((x, y) => Math.abs(y.change) - Math.abs(x.change) || (x.name < y.name ? -1 : x.name > y.name ? 1 : 0) || (x.object < y.object ? -1 : 1));
    return { list: changed.slice(0, top), omitted: Math.max(0, changed.length - top) };
  };
  const self = rank('self');
  const inclusive = rank('inclusive');
  return {
    benchmark,
    tool: 'callgrind',
    event,
    base: { ...(base.sha === undefined ? {} : { sha: base.sha }), iterations: base.iterations, total: baseTotal },
    head: { ...(head.sha === undefined ? {} : { sha: head.sha }), iterations: head.iterations, total: headTotal },
    change,
    self: self.list,
    inclusive: inclusive.list,
    omitted: { self: self.omitted, inclusive: inclusive.omitted },
  };
}

/**
 * whereItLives is the one-line answer of a differential profile: the
 * function whose self cost changed most, with its share of the change, or
 * undefined when nothing changed.
 */
export function whereItLives(diff: ProfileDiff): FunctionChange | undefined {
  return diff.self[0];
}
