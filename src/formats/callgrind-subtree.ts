import { FormatError } from './format-error.ts';
import { CALLGRIND_EVENTS, type CallgrindTotals } from './callgrind-totals.ts';
import { MAX_PROFILE_EDGES, MAX_PROFILE_FUNCTIONS } from './callgrind-profile.ts';

/**
 * callgrind-subtree reads, from a callgrind profile of a whole process
 * (collection on throughout), the cost of one function's own work: the self
 * cost of that function and of every function of the program it reaches by
 * calls, plus the inclusive cost of each call from them into the code
 * `outside` (a language runtime, a harness). It is how Go benchmarks are
 * counted exactly (runner/valgrind-count.ts).
 *
 * Why not callgrind's `--toggle-collect` on the function: callgrind keeps a
 * shadow call stack per thread and pops every frame whose stack pointer lies
 * below the current one. Go runs goroutines on stacks of their own and
 * switches to the thread's system stack to grow a stack or to preempt a
 * goroutine (sysmon asks every 10 ms of wall time): callgrind then pops the
 * benchmark function, collection stops, and it resumes only when some code
 * returns into the benchmark function (callgrind counts that as another
 * call). The count lost the rest of an iteration per preemption and its
 * divisor grew by one: BenchmarkSort read 56,256..58,190 instructions per
 * iteration in three repeats. Self cost is charged by instruction address,
 * whatever the shadow stack says, so it does not depend on when the
 * scheduler ran; the runtime's own functions are left out of it (their work
 * — the scheduler, sysmon, the collector, timers — depends on wall time) and
 * counted only inside a call the program made into them (an allocation, a
 * copy, a map lookup): as that call's inclusive cost, or, from a profile
 * that names each function's callers (SubtreeSettings.byContext), as the
 * self cost of the runtime's instructions whose callers lead back to the
 * program, which a lost return cannot count twice.
 */

/** SubtreeSettings say which function is the root, which functions are outside the program, and which calls, or parts of calls, are not the program's work. */
export interface SubtreeSettings {
  /** isRoot picks the function whose work is counted (the benchmark function). */
  isRoot: (name: string) => boolean;
  /** isOutside says a function belongs to the runtime or harness: not followed, its cost counted per call from the program only. */
  isOutside: (name: string) => boolean;
  /** isIgnoredCall says a call from the program's function `caller` into this function is not work (a stack switch, a return into the harness callgrind mistook for a call, a callback of the harness's). */
  isIgnoredCall: (name: string, caller: string) => boolean;
  /**
   * byContext says the profile names every function with its callers,
   * nearest first (`fn'caller1'caller2`, callgrind's `--separate-callers=N`),
   * and the outside code's work is read from it: the self cost of each
   * outside function in the contexts whose callers reach a counted function
   * of the program through outside functions alone, none of them an
   * ignored call. Every instruction is then counted once at most, where the
   * program's calls' inclusive costs (without byContext) hold everything
   * that ran while callgrind thought the call still open, the program's own
   * work too when it lost a return. Work deeper below the program than the
   * N callers callgrind names is not counted.
   */
  byContext?: boolean;
  /**
   * isUncounted says that an outside function, called through `callers`
   * (nearest first), is not the program's work even inside a call the
   * program made into the outside code: with byContext, neither it nor what
   * it calls is counted.
   */
  isUncounted?: (name: string, callers: readonly string[]) => boolean;
}

/**
 * Subtree is the root's work: totals per event, the program's functions
 * counted, the outside functions they call, and a callgrind file of that
 * work alone. It has no call count of the root: a return into a function
 * after a stack switch is a call in callgrind's eyes, so how often the root
 * ran is for the harness to say.
 */
export interface Subtree {
  totals: CallgrindTotals;
  /** own is the part of `totals` that is the program's functions' self cost (the rest is their calls into outside functions). */
  own: CallgrindTotals;
  functions: string[];
  /** outside are the outside functions the program's functions called (the harness's helpers among them). */
  outside: string[];
  /** profile is a callgrind output file holding only what was counted: each program function's self cost and its calls out, each outside function's cost as called from the program. */
  profile: string;
  /** uncounted is what {@link SubtreeSettings.isUncounted} left out of the program's calls into outside functions (byContext only). */
  uncounted: CallgrindTotals;
}

/** contextOf splits a callgrind function name into the function and its callers (`fn'caller1'caller2`, --separate-callers), recursion levels (`'2`) dropped. */
function contextOf(name: string): { base: string; callers: string[] } {
  const [base, ...callers] = name.split("'").filter((part, i) => i === 0 || !/^\d+$/.test(part));
  return { base, callers };
}
const COUNT = /^(?:\d+|0x[0-9a-fA-F]+)$/;

interface Fn {
  object: string;
  self: number[];
  /** calls are this function's calls out, by callee: how many and their inclusive cost. */
  calls: Map<string, { count: number; cost: number[] }>;
}

function add(into: number[], costs: readonly number[]): void {
  for (let i = 0; i < costs.length; i++) into[i] = (into[i] ?? 0) + costs[i];
}

/**
 * callgrindSubtree reads a callgrind output file's text (`path` names it in
 * errors) and returns the root's work as {@link Subtree}; undefined when no
 * function `isRoot` picks is in the profile. Recursion levels (`name'2`)
 * and contexts (`name'caller`, --separate-callers) are one function. Linear in the text plus the call graph.
 */
export function callgrindSubtree(text: string, path: string, settings: SubtreeSettings): Subtree | undefined {
  const fail = (line: number, message: string): never => {
    throw new FormatError(path, line, message);
  };
  const names: Record<'ob' | 'fn', Map<string, string>> = { ob: new Map(), fn: new Map() };
  const fns = new Map<string, Fn>();
  let events: string[] | null = null;
  let positions = 1;
  let ob = '';
  let cob: string | null = null;
  let fn: Fn | null = null;
  let callee: string | null = null;
  let calleeObject = '';
  let pendingCalls: number | null = null;
  let lineNo = 0;
  let edges = 0;
  const resolve = (space: 'ob' | 'fn', value: string): string => {
    const m = /^\((\d+)\)(?:\s(.*))?$/.exec(value);
    if (!m) return value;
    if (m[2] !== undefined) {
      names[space].set(m[1], m[2]);
      return m[2];
    }
    const known = names[space].get(m[1]);
    return known ?? fail(lineNo, `${space} id (${m[1]}) is used before a line defines it`);
  };
  // byContext: the self cost of each function per context (`fn'caller1'caller2`).
  const contexts = new Map<string, number[]>();
  let context = '';
  const get = (name: string, object: string): Fn => {
    const base = contextOf(name).base;
    let found = fns.get(base);
    if (!found) {
      if (fns.size >= MAX_PROFILE_FUNCTIONS) fail(lineNo, `more than ${MAX_PROFILE_FUNCTIONS} functions: benchbot reads profiles of one benchmark, not of a whole system`);
      found = { object, self: [], calls: new Map() };
      fns.set(base, found);
    }
    return found;
  };
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    const line = text.slice(start, end).replace(/\r$/, '');
    start = end + 1;
    if (line === '' || line.startsWith('#')) continue;
    const first = line.charCodeAt(0);
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42) {
      if (events === null || fn === null) fail(lineNo, 'a cost line comes before the events: header or any fn= line');
      const fields = line.trim().split(/\s+/).slice(positions);
      if (fields.length > events!.length) fail(lineNo, `${fields.length} counts for ${events!.length} event(s)`);
      const costs = fields.map((c) => (COUNT.test(c) ? Number(c) : fail(lineNo, `"${c.slice(0, 40)}" is not a count`)));
      if (pendingCalls !== null) {
        const base = contextOf(callee as string).base;
        get(callee as string, calleeObject);
        if (++edges > MAX_PROFILE_EDGES) fail(lineNo, `more than ${MAX_PROFILE_EDGES} calls`);
        const edge = fn!.calls.get(base) ?? { count: 0, cost: [] };
        edge.count += pendingCalls;
        add(edge.cost, costs);
        fn!.calls.set(base, edge);
        pendingCalls = null;
      } else {
        add(fn!.self, costs);
        if (settings.byContext === true) {
          const seen = contexts.get(context) ?? [];
          add(seen, costs);
          contexts.set(context, seen);
        }
      }
      continue;
    }
    if (pendingCalls !== null) fail(lineNo, 'a calls= line must be followed by the cost line of those calls');
    const eq = line.indexOf('=');
    const spec = eq > 0 ? line.slice(0, eq) : '';
    const value = eq > 0 ? line.slice(eq + 1) : '';
    if (line.startsWith('events:')) events = line.slice('events:'.length).trim().split(/\s+/);
    else if (line.startsWith('positions:')) positions = line.slice('positions:'.length).trim().split(/\s+/).length;
    else if (spec === 'ob') ob = resolve('ob', value);
    else if (spec === 'cob') cob = resolve('ob', value);
    else if (spec === 'fn') {
      context = resolve('fn', value);
      fn = get(context, ob);
    }
    else if (spec === 'cfn') {
      callee = resolve('fn', value);
      calleeObject = cob ?? ob;
      cob = null;
    } else if (spec === 'calls') {
      if (callee === null) fail(lineNo, 'calls= before any cfn= line');
      const count = Number.parseInt(value, 10);
      if (!Number.isSafeInteger(count)) fail(lineNo, `calls=${value.slice(0, 40)}: the call count must be a number`);
      pendingCalls = count;
    }
  }
  if (events === null) throw new FormatError(path, undefined, 'not a callgrind output file: no `events:` line');
  const roots = [...fns.keys()].filter((name) => settings.isRoot(name));
  if (roots.length === 0) return undefined;

  // The program's functions the root reaches; outside functions end the walk.
  const counted = new Set(roots);
  const queue = [...roots];
  while (queue.length > 0) {
    const name = queue.pop() as string;
    for (const c of fns.get(name)?.calls.keys() ?? []) {
      if (counted.has(c) || settings.isOutside(c) || settings.isIgnoredCall(c, name)) continue;
      counted.add(c);
      queue.push(c);
    }
  }
  // byContext: each outside context's self cost under the program, by the program's call that led to it (program function -> the first outside function).
  const under = new Map<string, Map<string, number[]>>();
  const uncounted: number[] = [];
  if (settings.byContext === true) {
    for (const [name, cost] of contexts) {
      const { base, callers } = contextOf(name);
      if (counted.has(base) || !settings.isOutside(base)) continue;
      const k = callers.findIndex((c) => counted.has(c));
      if (k < 0) continue;
      // chain[j] was called by chain[j + 1], the last by the program's function callers[k].
      const chain = [base, ...callers.slice(0, k)];
      const callerOf = (j: number) => (j + 1 < chain.length ? chain[j + 1] : callers[k]);
      if (!chain.every((c, j) => settings.isOutside(c) && !settings.isIgnoredCall(c, callerOf(j)))) continue;
      if (settings.isUncounted !== undefined && chain.some((c, j) => settings.isUncounted!(c, callers.slice(j)))) {
        add(uncounted, cost);
        continue;
      }
      const byCallee = under.get(callers[k]) ?? new Map<string, number[]>();
      const sum = byCallee.get(chain[chain.length - 1]) ?? [];
      add(sum, cost);
      byCallee.set(chain[chain.length - 1], sum);
      under.set(callers[k], byCallee);
    }
  }
  const total: number[] = [];
  const own: number[] = [];
  const outside = new Map<string, { object: string; count: number; cost: number[] }>();
  const lines: string[] = [];
  for (const name of [...counted].sort()) {
    const f = fns.get(name) as Fn;
    add(total, f.self);
    add(own, f.self);
    lines.push(`ob=${f.object}`, `fn=${name}`, `0 ${padded(f.self, events.length)}`);
    const callees = new Set([...f.calls.keys(), ...(under.get(name)?.keys() ?? [])]);
    for (const c of callees) {
      // Calls between the program's own functions are left out: their inclusive costs are what a stack switch confuses (a return callgrind took for a call holds everything until it is popped).
      if (settings.isIgnoredCall(c, name) || counted.has(c) || !settings.isOutside(c)) continue;
      const count = f.calls.get(c)?.count ?? 0;
      const cost = settings.byContext === true ? (under.get(name)?.get(c) ?? []) : (f.calls.get(c)?.cost ?? []);
      lines.push(`cob=${fns.get(c)?.object ?? f.object}`, `cfn=${c}`, `calls=${count} 0`, `0 ${padded(cost, events.length)}`);
      add(total, cost);
      const o = outside.get(c) ?? { object: fns.get(c)?.object ?? f.object, count: 0, cost: [] };
      o.count += count;
      add(o.cost, cost);
      outside.set(c, o);
    }
  }
  // Each outside function as the program called it: its inclusive cost from those calls is its self cost here.
  for (const [name, o] of [...outside].sort(([a], [b]) => a.localeCompare(b))) lines.push(`ob=${o.object}`, `fn=${name}`, `0 ${padded(o.cost, events.length)}`);
  const byEvent = (costs: readonly number[]): CallgrindTotals => {
    const out: Record<string, number> = Object.fromEntries(CALLGRIND_EVENTS.map((e) => [e, 0]));
    events!.forEach((e, i) => {
      out[e] = costs[i] ?? 0;
    });
    return out as CallgrindTotals;
  };
  const profile = [
    '# callgrind format',
    '# benchbot: the work of ' + roots.join(', ') + ' alone (src/formats/callgrind-subtree.ts)',
    'version: 1',
    'creator: benchbot',
    'positions: line',
    `events: ${events.join(' ')}`,
    '',
    ...lines,
    '',
    `totals: ${padded(total, events.length)}`,
    '',
  ].join('\n');
  return { totals: byEvent(total), own: byEvent(own), functions: [...counted].sort(), outside: [...outside.keys()].sort(), profile, uncounted: byEvent(uncounted) };
}

function padded(costs: readonly number[], n: number): string {
  return Array.from({ length: n }, (_, i) => costs[i] ?? 0).join(' ');
}
