import { FormatError } from './format-error.ts';

/**
 * callgrind-profile reads a callgrind output file (the Callgrind Format,
 * version 1, as valgrind's manual specifies it: cl-format) into per-function
 * self and inclusive costs, the input of a differential profile.
 *
 * What the format asks of a reader, and how this one answers:
 * - Name compression: `fn=(12) name` defines id 12, `fn=(12)` uses it;
 *   objects (`ob=`, `cob=`), files (`fl=`, `fi=`, `fe=`, `cfi=`, `cfl=`,
 *   `jfi=`) and functions (`fn=`, `cfn=`, `jfn=`) have one id space each.
 * - Positions: each cost line starts with as many subpositions as the
 *   `positions:` header names (`line` by default, `instr line` with
 *   --dump-instr), each absolute (decimal or 0x hex), relative (`+3`,
 *   `-2`) or `*` (the same); the events' counts follow, missing ones zero.
 *   Only the counts matter here, so subpositions are checked, not resolved.
 * - Calls: `calls=N target` is followed by one cost line, the inclusive
 *   cost of those calls, charged to the edge caller -> callee (`cob=` and
 *   `cfi=` name the callee's object and file for that one call; without
 *   them it is the caller's). Every other cost line is self cost.
 * - `summary:` (header) and `totals:` (end) give the whole cost; when
 *   neither is there, the sum of self costs is.
 *
 * Recursion: callgrind (by default, --separate-recs=2) names a function
 * entered while already on the stack `name'2`, so calls into the plain
 * `name` are exactly its outermost activations. A function's self cost sums
 * all its levels; its inclusive cost is the sum of the calls into its plain
 * name (from any other function), which counts every instruction once,
 * where summing the calls into all levels (as callgrind_annotate
 * --inclusive=yes shows `fib'2`) counts a recursion once per depth. A
 * function nothing calls in the profile (the program's root, or the
 * function --toggle-collect started in) has its self cost plus its calls.
 * With --separate-recs=1 a direct recursion shows as a call to itself,
 * which is left out for the same reason.
 *
 * The input is the profiled program's output and so hostile: the reader is
 * linear, keeps one record per function and call edge, caps both, and
 * throws FormatError naming the file and line for anything it cannot read.
 */

/** ProfileFunction is one function's cost in a profile, summed over its recursion levels, per event. */
export interface ProfileFunction {
  name: string;
  /** object is the file name (no directory) of the object (binary, library) that holds the function. */
  object: string;
  self: number[];
  inclusive: number[];
}

/** CallgrindProfile is what a callgrind output file holds, per function. */
export interface CallgrindProfile {
  events: string[];
  /** totals is the whole cost per event. */
  totals: number[];
  functions: ProfileFunction[];
  /** command is the profiled command line (`cmd:`), when given. */
  command?: string;
}

/** MAX_PROFILE_FUNCTIONS caps the distinct functions (with recursion levels) one profile may name. */
export const MAX_PROFILE_FUNCTIONS = 1_000_000;
/** MAX_PROFILE_EDGES caps the distinct call edges one profile may hold. */
export const MAX_PROFILE_EDGES = 4_000_000;

// A recursion level suffix (`'2`) callgrind adds for --separate-recs.
const RECURSION_LEVEL = /'(\d+)$/;
const SUBPOSITION = /^(?:[+-]?(?:0x[0-9a-fA-F]+|\d+)|\*)$/;
const COUNT = /^(?:\d+|0x[0-9a-fA-F]+)$/;

interface Node {
  object: string;
  /** base is the function's name without its recursion level. */
  base: string;
  level: number;
  self: number[];
  /** inFromOthers sums the calls into this node from functions other than itself; null while there is none. */
  inFromOthers: number[] | null;
  /** outToOthers sums this node's calls to other nodes (deeper levels of itself included). */
  outToOthers: number[];
}

function basename(path: string): string {
  const slash = path.lastIndexOf('/');
  return slash < 0 ? path : path.slice(slash + 1);
}

function add(into: number[], costs: readonly number[]): void {
  for (let i = 0; i < costs.length; i++) into[i] = (into[i] ?? 0) + costs[i];
}

/**
 * parseCallgrind reads the text of a callgrind output file; `path` names it
 * in errors. Functions are keyed by object file name and function name, so
 * the same function at base and head matches though the two builds live in
 * different directories.
 */
export function parseCallgrind(text: string, path: string): CallgrindProfile {
  const fail = (line: number, message: string): never => {
    throw new FormatError(path, line, message);
  };
  const names: Record<'ob' | 'fl' | 'fn', Map<string, string>> = { ob: new Map(), fl: new Map(), fn: new Map() };
  const nodes = new Map<string, Node>();
  let edgeCount = 0;
  let events: string[] | null = null;
  let positions = 1;
  let summary: number[] | null = null;
  let totals: number[] | null = null;
  let command: string | undefined;
  let ob = '';
  let fn: Node | null = null;
  let cob: string | null = null;
  let callee: Node | null = null;
  let callPending = false;
  let lineNo = 0;

  // `(12) name` defines id 12, `(12)` uses it, anything else is the name itself.
  const resolveName = (space: 'ob' | 'fl' | 'fn', value: string): string => {
    const m = /^\((\d+)\)(?:\s(.*))?$/.exec(value);
    if (!m) return value;
    const map = names[space];
    if (m[2] !== undefined) {
      map.set(m[1], m[2]);
      return m[2];
    }
    const known = map.get(m[1]);
    if (known === undefined) fail(lineNo, `${space} id (${m[1]}) is used before a line defines it (${space}=(${m[1]}) name)`);
    return known as string;
  };
  const node = (object: string, name: string): Node => {
    const key = `${object}\u0000${name}`;
    let found = nodes.get(key);
    if (found) return found;
    if (nodes.size >= MAX_PROFILE_FUNCTIONS) fail(lineNo, `more than ${MAX_PROFILE_FUNCTIONS} functions: benchbot reads profiles of one benchmark, not of a whole system`);
    const level = RECURSION_LEVEL.exec(name);
    found = { object, base: level ? name.slice(0, level.index) : name, level: level ? Number(level[1]) : 1, self: [], inFromOthers: null, outToOthers: [] };
    nodes.set(key, found);
    return found;
  };
  const costsOf = (fields: string[]): number[] => {
    if (events === null) return fail(lineNo, 'a cost line comes before the events: header line');
    if (fields.length < positions) fail(lineNo, `a cost line needs ${positions} position(s) (positions: header) before its counts`);
    for (let i = 0; i < positions; i++) if (!SUBPOSITION.test(fields[i])) fail(lineNo, `"${fields[i].slice(0, 40)}" is not a position (a number, +N, -N or *)`);
    const counts = fields.slice(positions);
    if (counts.length > events.length) fail(lineNo, `${counts.length} counts for ${events.length} event(s) (events: ${events.join(' ')})`);
    return counts.map((c) => {
      if (!COUNT.test(c)) fail(lineNo, `"${c.slice(0, 40)}" is not a count`);
      return Number(c);
    });
  };
  const sumLine = (value: string): number[] => value.trim().split(/\s+/).map((c) => {
    if (!COUNT.test(c)) fail(lineNo, `"${c.slice(0, 40)}" is not a count`);
    return Number(c);
  });

  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    const raw = text.slice(start, end);
    start = end + 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line === '' || line.startsWith('#') || /^\s*$/.test(line)) continue;
    const first = line.charCodeAt(0);
    // Cost lines start with a subposition: a digit, +, - or *.
    if ((first >= 48 && first <= 57) || first === 43 || first === 45 || first === 42) {
      const costs = costsOf(line.trim().split(/\s+/));
      if (fn === null) fail(lineNo, 'a cost line comes before any fn= line');
      const caller = fn as Node;
      if (callPending) {
        callPending = false;
        const target = callee as Node;
        if (target !== caller) add(caller.outToOthers, costs);
        // A call from another level of the same function is a recursion already inside the outer call.
        if (target.base !== caller.base || target.object !== caller.object) {
          target.inFromOthers ??= [];
          add(target.inFromOthers, costs);
        }
        if (++edgeCount > MAX_PROFILE_EDGES) fail(lineNo, `more than ${MAX_PROFILE_EDGES} calls`);
      } else {
        add(caller.self, costs);
      }
      continue;
    }
    if (callPending) fail(lineNo, 'a calls= line must be followed by the cost line of those calls');
    const eq = line.indexOf('=');
    const spec = eq > 0 ? line.slice(0, eq) : '';
    const value = eq > 0 ? line.slice(eq + 1) : '';
    switch (spec) {
      case 'ob': ob = basename(resolveName('ob', value)); continue;
      case 'fl': case 'fi': case 'fe': case 'cfi': case 'cfl': case 'jfi': resolveName('fl', value); continue;
      case 'fn': fn = node(ob, resolveName('fn', value)); continue;
      case 'cob': cob = basename(resolveName('ob', value)); continue;
      case 'cfn': callee = node(cob ?? ob, resolveName('fn', value)); cob = null; continue;
      case 'jfn': resolveName('fn', value); continue;
      case 'calls':
        if (callee === null) fail(lineNo, 'calls= before any cfn= line naming the function called');
        if (!/^\d+(\s|$)/.test(value)) fail(lineNo, `calls=${value.slice(0, 40)}: the call count must be a number`);
        callPending = true;
        continue;
      case 'jump': case 'jcnd': continue;
    }
    const header = /^([A-Za-z][\w-]*):\s*(.*)$/.exec(line);
    if (!header) fail(lineNo, `"${line.slice(0, 60)}" is neither a header line (key: value), a spec (fn=...) nor a cost line`);
    const [, key, rest] = header as RegExpExecArray;
    if (key === 'events') {
      events = rest.trim().split(/\s+/).filter((e) => e !== '');
      if (events.length === 0) fail(lineNo, 'events: names no event');
    } else if (key === 'positions') {
      positions = rest.trim().split(/\s+/).filter((p) => p !== '').length;
      if (positions === 0) fail(lineNo, 'positions: names no position');
    } else if (key === 'summary') {
      summary ??= [];
      add(summary, sumLine(rest));
    } else if (key === 'totals') {
      totals ??= [];
      add(totals, sumLine(rest));
    } else if (key === 'cmd') {
      command = rest.trim();
    } else if (key === 'version' && !/^1(\s|$)/.test(rest.trim())) {
      fail(lineNo, `callgrind format version ${rest.trim().slice(0, 20)}: benchbot reads version 1`);
    }
  }
  if (callPending) fail(lineNo, 'the file ends after a calls= line, before the cost of those calls');
  if (events === null) throw new FormatError(path, undefined, 'no events: line: not a callgrind output file');
  return { events, totals: totalsOf(nodes, totals ?? summary, events.length), functions: functionsOf(nodes, events.length), command };
}

function totalsOf(nodes: Map<string, Node>, given: number[] | null, width: number): number[] {
  const sum = new Array<number>(width).fill(0);
  if (given !== null) {
    add(sum, given);
    return sum;
  }
  for (const n of nodes.values()) add(sum, n.self);
  return sum;
}

function functionsOf(nodes: Map<string, Node>, width: number): ProfileFunction[] {
  const byFunction = new Map<string, Node[]>();
  for (const n of nodes.values()) {
    const key = `${n.object}\u0000${n.base}`;
    const list = byFunction.get(key);
    if (list) list.push(n);
    else byFunction.set(key, [n]);
  }
  const out: ProfileFunction[] = [];
  for (const levels of byFunction.values()) {
    levels.sort((a, b) => a.level - b.level);
    const outer = levels[0];
    const self = new Array<number>(width).fill(0);
    for (const n of levels) add(self, n.self);
    const inclusive = new Array<number>(width).fill(0);
    if (outer.inFromOthers !== null) add(inclusive, outer.inFromOthers);
    else {
      // Nothing in the profile called it: the outermost level's own cost and its calls (deeper levels included).
      add(inclusive, outer.self);
      add(inclusive, outer.outToOthers);
    }
    out.push({ name: outer.base, object: outer.object, self, inclusive });
  }
  return out;
}
