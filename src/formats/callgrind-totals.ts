import { FormatError } from './format-error.ts';

/**
 * CALLGRIND_EVENTS are the events `valgrind --tool=callgrind --cache-sim=yes`
 * records, in the order its `events:` line names them: instruction reads
 * (Ir, the instructions executed), data reads and writes (Dr, Dw), L1 misses
 * (I1mr, D1mr, D1mw) and last-level misses (ILmr, DLmr, DLmw).
 */
export const CALLGRIND_EVENTS = ['Ir', 'Dr', 'Dw', 'I1mr', 'D1mr', 'D1mw', 'ILmr', 'DLmr', 'DLmw'] as const;

/** CallgrindEvent is one of {@link CALLGRIND_EVENTS}. */
export type CallgrindEvent = (typeof CALLGRIND_EVENTS)[number];

/** CallgrindTotals is one profile's event counts: every event its `events:` line names, missing ones 0. */
export type CallgrindTotals = Record<CallgrindEvent, number> & Record<string, number>;

/** MAX_HEADER_LINES bounds how far into a file the `events:` line is looked for (it is in the header, before any cost line). */
const MAX_HEADER_LINES = 200;

/**
 * parseCallgrindTotals reads the totals of a callgrind output file (format
 * described in valgrind's callgrind format manual): the `events:` line names
 * the columns, and `totals:` (or `summary:`, the same numbers in files of
 * older valgrinds) gives the whole profile's cost, one number per event,
 * trailing zeros omitted. With `--toggle-collect` that is the cost inside
 * the toggled function only (collection is off elsewhere). `path` names the
 * file in errors. Linear in the text; the last `totals:` line wins (one
 * per dump).
 */
export function parseCallgrindTotals(text: string, path: string): CallgrindTotals {
  let events: string[] | undefined;
  let totals: string | undefined;
  let totalsLine = 0;
  let summary: string | undefined;
  let lineNo = 0;
  let start = 0;
  while (start <= text.length) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? text.length : end);
    lineNo += 1;
    if (line.startsWith('events:')) events = line.slice('events:'.length).trim().split(/\s+/).filter((e) => e !== '');
    else if (line.startsWith('totals:')) {
      totals = line.slice('totals:'.length);
      totalsLine = lineNo;
    } else if (line.startsWith('summary:')) summary = line.slice('summary:'.length);
    if (events === undefined && lineNo > MAX_HEADER_LINES) break;
    if (end < 0) break;
    start = end + 1;
  }
  if (events === undefined) throw new FormatError(path, undefined, 'not a callgrind output file: no `events:` line in its header');
  const numbers = totals ?? summary;
  if (numbers === undefined) throw new FormatError(path, undefined, 'the callgrind output has no `totals:` or `summary:` line; was valgrind killed before it wrote its profile?');
  const values = numbers.trim() === '' ? [] : numbers.trim().split(/\s+/);
  if (values.length > events.length) throw new FormatError(path, totalsLine || undefined, `${values.length} totals for ${events.length} events`);
  const out: Record<string, number> = Object.fromEntries(CALLGRIND_EVENTS.map((e) => [e, 0]));
  events.forEach((event, i) => {
    const value = values[i] === undefined ? 0 : Number(values[i]);
    if (!Number.isSafeInteger(value) || value < 0) throw new FormatError(path, totalsLine || undefined, `the total of ${event} is ${JSON.stringify(values[i])}, not a count`);
    out[event] = value;
  });
  return out as CallgrindTotals;
}

/** addTotals sums the totals of several profiles (one per process of one benchmark run), event by event. */
export function addTotals(all: readonly CallgrindTotals[]): CallgrindTotals {
  const out: Record<string, number> = Object.fromEntries(CALLGRIND_EVENTS.map((e) => [e, 0]));
  for (const t of all) for (const [event, value] of Object.entries(t)) out[event] = (out[event] ?? 0) + value;
  return out as CallgrindTotals;
}

/**
 * estimatedCycles weights callgrind's cache simulation the way iai-callgrind
 * documents it (after Itamar Turner-Trauring's formula):
 * `L1 hits + 5 x LL hits + 35 x RAM accesses`, where RAM accesses are the
 * last-level misses (ILmr + DLmr + DLmw), LL hits the L1 misses that hit
 * the last level ((I1mr + D1mr + D1mw) - RAM), and L1 hits every access
 * that did not miss L1 ((Ir + Dr + Dw) - (I1mr + D1mr + D1mw)).
 */
export function estimatedCycles(t: CallgrindTotals): number {
  const ram = t.ILmr + t.DLmr + t.DLmw;
  const l1Misses = t.I1mr + t.D1mr + t.D1mw;
  const l1Hits = t.Ir + t.Dr + t.Dw - l1Misses;
  const llHits = l1Misses - ram;
  return l1Hits + 5 * llHits + 35 * ram;
}

/**
 * callsOf counts the calls callgrind recorded to functions whose name
 * `matches` (the `calls=N` lines under a `cfn=` naming one), summed over
 * callers. Names are compressed (`cfn=(12) name` the first time, `cfn=(12)`
 * after), so the table of ids is built as the file is read. It is how a
 * harness's fixed schedule is confirmed: Go calls a benchmark function once
 * with b.N = 1 and once with b.N = N, or once in all when it uses b.Loop.
 */
export function callsOf(text: string, matches: (name: string) => boolean): number {
  const names = new Map<string, string>();
  let calls = 0;
  let pending = false;
  let start = 0;
  while (start < text.length) {
    const end = text.indexOf('\n', start);
    const line = text.slice(start, end < 0 ? text.length : end);
    if (line.startsWith('fn=') || line.startsWith('cfn=')) {
      const spec = line.slice(line.indexOf('=') + 1);
      const m = /^\((\d+)\)(?: (.*))?$/.exec(spec);
      let name = spec;
      if (m) {
        if (m[2] !== undefined) names.set(m[1], m[2]);
        name = names.get(m[1]) ?? '';
      }
      pending = line.startsWith('cfn=') && matches(name);
    } else if (line.startsWith('calls=')) {
      if (pending) calls += Number.parseInt(line.slice('calls='.length), 10) || 0;
      pending = false;
    }
    if (end < 0) break;
    start = end + 1;
  }
  return calls;
}
