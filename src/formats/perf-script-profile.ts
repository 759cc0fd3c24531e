import type { CallgrindProfile, ProfileFunction } from './callgrind-profile.ts';
import { FormatError } from './format-error.ts';

/**
 * perf-script-profile reads what `perf script -F period,event,ip,sym,dso`
 * prints for a `perf record -g` recording (PERF_SCRIPT_FIELDS) into the
 * profile model callgrind's reader makes, so that the differential
 * profile, its reports and their escaping are the same for both tools.
 *
 * The text, as perf-script(1) prints it with those fields: one block per
 * sample, blocks separated by a blank line; a header line, the sample's
 * period and event (`   100000 cpu-clock:u: `), then one line per call
 * chain frame, the sampled instruction first and its callers after it,
 * each `<hex address> <symbol> (<object path>)`, the symbol `[unknown]`
 * where perf cannot name the code (a JIT without a perf map, a stripped
 * binary). Without a call chain (`perf record` without -g) the frame is on
 * the header line; that sample has its leaf only.
 *
 * What a sample is worth: its period, in the event's unit (nanoseconds of
 * CPU time for cpu-clock, cycles for cycles); benchbot records with a fixed
 * period (`-c`), so every sample weighs the same and sample counts are
 * Poisson counts of the time spent. The profile has two events: the event
 * (the sum of the periods) and `samples` (how many samples), from which a
 * differential profile derives its sampling error.
 *
 * Self cost: the sample's first frame. Inclusive cost: every function on
 * the chain, once per sample however often it is on it (a recursion is
 * counted once, as callgrind's reader counts it). `within`, when given,
 * keeps only the samples whose chain holds a function it accepts (the
 * benchmark function, as callgrind's `--toggle-collect` counts it), and of
 * those the frames from the leaf up to the outermost such function: the
 * harness and `main` above it are left out, as they are of a toggled
 * callgrind profile.
 *
 * Functions are keyed by object file name (no directory: base and head run
 * in different worktrees) and symbol; a JIT's perf map
 * (`/tmp/perf-<pid>.map`, which V8 writes under `--perf-basic-prof`) is
 * one object, `[perf map]`, whatever the process id.
 *
 * The input is the profiled program's (symbol names come from the pull
 * request's code) and so hostile: the reader is linear, caps the functions
 * and the frames of one sample, and throws FormatError naming the file and
 * line for anything it cannot read.
 */

/** PERF_SCRIPT_FIELDS are the `perf script -F` fields this reader reads. */
export const PERF_SCRIPT_FIELDS = 'period,event,ip,sym,dso';

/** SAMPLES_EVENT is the profile event that counts samples. */
export const SAMPLES_EVENT = 'samples';

/** UNKNOWN_SYMBOL is perf's name for code it cannot name. */
export const UNKNOWN_SYMBOL = '[unknown]';

/** PERF_MAP_OBJECT is the object name of every function a JIT's perf map names. */
export const PERF_MAP_OBJECT = '[perf map]';

/** MAX_SAMPLE_FUNCTIONS caps the distinct functions one profile may name. */
export const MAX_SAMPLE_FUNCTIONS = 1_000_000;

/** MAX_CHAIN_FRAMES caps one sample's call chain (perf's own limit, kernel.perf_event_max_stack, is 127 by default). */
export const MAX_CHAIN_FRAMES = 10_000;

/** PerfSampling says what a sampled profile's samples were, for its reader. */
export interface PerfSampling {
  /** event is what perf sampled on, without its modifiers (`cpu-clock`, `cycles`). */
  event: string;
  /** samples is how many samples the profile holds (after `within`). */
  samples: number;
  /** unnamed is how many of them perf could not name at their first frame (`[unknown]`). */
  unnamed: number;
  /** outside is how many samples `within` left out. */
  outside: number;
}

/** SampledProfile is a profile read from perf samples: callgrind's model, events `[event, samples]`, and what the samples were. */
export interface SampledProfile extends CallgrindProfile {
  sampling: PerfSampling;
}

// `<hex address> <symbol> (<object>)`: the object is the last parenthesized group, so a C++ symbol's own parentheses stay in it.
const FRAME = /^\s*([0-9a-fA-F]+)\s+(.*?)\s*\(([^()]*)\)\s*$/;
// `<period> <event>:` then, without a call chain, the frame.
const HEADER = /^\s*(\d+)\s+([^\s:]+)(?::[^\s:]*)?:\s*(.*)$/;
const PERF_MAP = /^perf-\d+\.map$/;
// V8's perf map names a function `JS:*name file:line:col` (`JS:*'name file` when the path holds a space): the tier mark
// (`*` optimized, `~` interpreted, `^` baseline, `+` maglev) and the position change when the code around it changes, so
// two commits would never name it alike.
const V8_NAME = /^(JS|LazyCompile|Function|InterpretedFunction):[*~^+]?'?(.*?)(?::\d+){1,2}$/;

interface Node {
  name: string;
  object: string;
  self: number[];
  inclusive: number[];
  /** seen is the last sample that counted this function inclusively, so a recursion counts once. */
  seen: number;
}

function objectName(path: string): string {
  const slash = path.lastIndexOf('/');
  const base = slash < 0 ? path : path.slice(slash + 1);
  return PERF_MAP.test(base) ? PERF_MAP_OBJECT : base;
}

/** Frame is one call chain frame: the function (perf's symbol) and the file name of its object. */
interface Frame {
  name: string;
  object: string;
}

/** Sample is one sample: its period, its event (without modifiers) and its call chain, leaf first. */
interface Sample {
  period: number;
  event: string;
  frames: Frame[];
  /** line is the sample's first line, for errors. */
  line: number;
}

/**
 * forEachSample reads `perf script -F PERF_SCRIPT_FIELDS` output sample by
 * sample; every sample is checked (a period, one event throughout, at
 * least one frame) before `visit` sees it.
 */
function forEachSample(text: string, path: string, visit: (sample: Sample) => void): { event: string | null } {
  const fail = (line: number, message: string): never => {
    throw new FormatError(path, line, message);
  };
  let event: string | null = null;
  let sample: Sample | null = null;
  let lineNo = 0;
  const frameOf = (line: string): Frame | null => {
    const m = FRAME.exec(line);
    if (!m) return null;
    const object = objectName(m[3]);
    const name = m[2] === '' ? UNKNOWN_SYMBOL : object === PERF_MAP_OBJECT ? m[2].replace(V8_NAME, '$1:$2') : m[2];
    return { name, object };
  };
  const finish = () => {
    if (sample === null) return;
    const s = sample;
    sample = null;
    if (s.frames.length === 0) fail(s.line, 'a sample without a frame: record with -g and print the ip,sym,dso fields');
    visit(s);
  };
  let start = 0;
  while (start <= text.length) {
    let end = text.indexOf('\n', start);
    if (end < 0) end = text.length;
    lineNo++;
    const raw = text.slice(start, end);
    start = end + 1;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (/^\s*$/.test(line)) {
      finish();
      continue;
    }
    if (sample !== null) {
      const frame = frameOf(line);
      if (frame === null) fail(lineNo, `"${line.slice(0, 60)}" is not a call chain frame (address symbol (object))`);
      if (sample.frames.length >= MAX_CHAIN_FRAMES) fail(lineNo, `a call chain of more than ${MAX_CHAIN_FRAMES} frames`);
      sample.frames.push(frame as Frame);
      continue;
    }
    const header = HEADER.exec(line);
    if (!header) fail(lineNo, `"${line.slice(0, 60)}" is not a sample's first line (period event:), as perf script -F ${PERF_SCRIPT_FIELDS} prints it`);
    const [, period, name, rest] = header as RegExpExecArray;
    if (event === null) event = name;
    else if (name !== event) fail(lineNo, `a ${name.slice(0, 40)} sample in a profile of ${event}: record one event`);
    const frames: Frame[] = [];
    if (rest.trim() !== '') {
      const frame = frameOf(rest);
      if (frame === null) fail(lineNo, `"${rest.slice(0, 60)}" is not a frame (address symbol (object))`);
      frames.push(frame as Frame);
    }
    sample = { period: Number(period), event: name, frames, line: lineNo };
  }
  finish();
  return { event };
}

/** framesWithin are a sample's frames from the leaf up to the outermost one `within` accepts; null when none does. */
function framesWithin(frames: Frame[], within: ((name: string) => boolean) | undefined): Frame[] | null {
  if (within === undefined) return frames;
  for (let i = frames.length - 1; i >= 0; i--) if (within(frames[i].name)) return frames.slice(0, i + 1);
  return null;
}

/**
 * parsePerfScript reads `perf script -F PERF_SCRIPT_FIELDS` output; `path`
 * names it in errors. `within` keeps the samples (and frames) of one
 * benchmark function, as described above.
 */
export function parsePerfScript(text: string, path: string, options: { within?: (name: string) => boolean } = {}): SampledProfile {
  const nodes = new Map<string, Node>();
  let total = 0;
  let samples = 0;
  let unnamed = 0;
  let outside = 0;
  const node = (f: Frame, line: number): Node => {
    const key = `${f.object}\u0000${f.name}`;
    let found = nodes.get(key);
    if (found) return found;
    if (nodes.size >= MAX_SAMPLE_FUNCTIONS) throw new FormatError(path, line, `more than ${MAX_SAMPLE_FUNCTIONS} functions: benchbot reads profiles of one benchmark, not of a whole system`);
    found = { name: f.name, object: f.object, self: [0, 0], inclusive: [0, 0], seen: -1 };
    nodes.set(key, found);
    return found;
  };
  const { event } = forEachSample(text, path, (s) => {
    const frames = framesWithin(s.frames, options.within);
    if (frames === null) {
      outside++;
      return;
    }
    samples++;
    total += s.period;
    if (frames[0].name === UNKNOWN_SYMBOL) unnamed++;
    const leaf = node(frames[0], s.line);
    leaf.self[0] += s.period;
    leaf.self[1] += 1;
    for (const f of frames) {
      const n = node(f, s.line);
      if (n.seen === samples) continue;
      n.seen = samples;
      n.inclusive[0] += s.period;
      n.inclusive[1] += 1;
    }
  });
  if (event === null) throw new FormatError(path, undefined, 'no samples: perf recorded nothing (the command ran too briefly, or perf could not sample it)');
  const functions: ProfileFunction[] = [...nodes.values()].map((n) => ({ name: n.name, object: n.object, self: n.self, inclusive: n.inclusive }));
  return {
    events: [event, SAMPLES_EVENT],
    totals: [total, samples],
    functions,
    sampling: { event, samples, unnamed, outside },
  };
}

/**
 * perfScriptWithin is the part of `perf script` output that `within`
 * keeps, in the same format (frames cut above the outermost accepted one,
 * object paths reduced to file names): what benchbot keeps of a recording
 * of one benchmark, so that the kept file reads to the benchmark's profile
 * without knowing its function, wherever it is read again (the action's
 * report job, the app). `kept` and `outside` count samples.
 */
export function perfScriptWithin(text: string, path: string, within: ((name: string) => boolean) | undefined): { text: string; kept: number; outside: number } {
  const out: string[] = [];
  let kept = 0;
  let outside = 0;
  forEachSample(text, path, (s) => {
    const frames = framesWithin(s.frames, within);
    if (frames === null) {
      outside++;
      return;
    }
    kept++;
    out.push(`${s.period} ${s.event}:`, ...frames.map((f) => `\t0 ${f.name} (${f.object})`), '');
  });
  return { text: out.join('\n'), kept, outside };
}
