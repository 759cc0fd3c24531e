import type { Direction, FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { ReadBudget } from './input-limits.ts';
import { checkText } from './json-document.ts';
import { LineFields, NameCodes, POWERS_OF_TEN, TextWindow } from './text-lines.ts';
import { directionOf, isTimeUnit } from '../model/units.ts';

/** A Go benchmark name: `Benchmark` then nothing or a character that is not a lower-case letter (Go's own rule). */
const BENCHMARK_NAME = /^Benchmark($|[^a-z])/;
const CONFIG_LINE = /^([a-z][^\s:]*):(?:\s+(.*))?$/;
/** Config keys that describe the machine; other `key: value` lines are often stray program output. */
const HINT_KEYS = new Set(['goos', 'goarch', 'cpu']);

/** Units the testing package computes from unsigned counts: never negative. */
const NON_NEGATIVE_UNITS = new Set(['B/op', 'allocs/op', 'MB/s']);

/**
 * Series is one benchmark's values of one unit at one GOMAXPROCS, as read:
 * the very measurement returned, its `benchmark` the group's name until the
 * whole file is read (its GOMAXPROCS is its group's seriesProcs).
 */
type Series = Measurement;

/** NameEntry is what a full result name (`BenchmarkX/y-8`) of one package resolves to: its group and GOMAXPROCS, and the series of its units in the order of its last line. */
interface NameEntry {
  name: string;
  group: Group;
  procs: number;
  /** series[k] is the series of the k-th unit of the last line of this name. */
  series: Series[];
  /** next is the entry of the result line that followed this one's last time. */
  next: NameEntry | undefined;
  /** codes is where the name's code units start in the reader's NameCodes. */
  codes: number;
}

/** Group is one benchmark of one package; its series are named once the whole file is read. */
interface Group {
  pkg: string;
  base: string;
  /** procs is the first GOMAXPROCS seen; severalProcs says whether another one followed. */
  procs: number;
  severalProcs: boolean;
  /** series in the order they first appeared. */
  series: Series[];
  /** seriesProcs[i] is the GOMAXPROCS of series[i]. */
  seriesProcs: number[];
  /** index finds a series by procs and unit once there are more than LINEAR_SERIES. */
  index: Map<string, Series> | undefined;
  /** entries are the full names (`BenchmarkX-8`, `BenchmarkX-16`) of the benchmark; names finds one by name once there are more than LINEAR_SERIES. */
  entries: NameEntry[];
  names: Map<string, NameEntry> | undefined;
}

/** LINEAR_SERIES is how many series of one benchmark are searched one by one before an index is built (hostile output may hold thousands of units). */
const LINEAR_SERIES = 16;

const seriesKey = (procs: number, unit: string) => `${procs}\u0000${unit}`;

/** findSeries returns the group's series of the given GOMAXPROCS and unit, if there is one. */
function findSeries(group: Group, procs: number, unit: string): Series | undefined {
  if (group.index !== undefined) return group.index.get(seriesKey(procs, unit));
  const { series, seriesProcs } = group;
  for (let i = 0; i < series.length; i++) if (seriesProcs[i] === procs && series[i].unit === unit) return series[i];
  return undefined;
}

/** findEntry returns the group's entry of the full name `name`, if there is one. */
function findEntry(group: Group, name: string): NameEntry | undefined {
  if (group.names !== undefined) return group.names.get(name);
  for (const entry of group.entries) if (entry.name === name) return entry;
  return undefined;
}

function addEntry(group: Group, entry: NameEntry): void {
  group.entries.push(entry);
  if (group.names !== undefined) group.names.set(entry.name, entry);
  else if (group.entries.length > LINEAR_SERIES) group.names = new Map(group.entries.map((e) => [e.name, e]));
}

/** addSeries adds the group's series of the given GOMAXPROCS and unit (metric `time` for ns/op, else the unit; its direction from `directions`, which keeps one per unit). */
function addSeries(group: Group, procs: number, unit: string, directions: Map<string, Direction>): Series {
  const metric = unit === 'ns/op' ? 'time' : unit;
  let better = directions.get(unit);
  if (better === undefined) directions.set(unit, (better = directionOf(metric, unit)));
  // Named as most are, by the group's name; measurementsOf renames the others.
  const series: Series = { benchmark: group.base, metric, unit, better, values: [] };
  group.series.push(series);
  group.seriesProcs.push(procs);
  if (group.index !== undefined) group.index.set(seriesKey(procs, unit), series);
  else if (group.series.length > LINEAR_SERIES) group.index = new Map(group.series.map((s, i) => [seriesKey(group.seriesProcs[i], s.unit), s]));
  return series;
}

/** hashOf is the FNV-1a hash of a string's UTF-16 code units, its high half folded into its low, a 32-bit integer. */
export function hashOf(text: string): number {
  let hash = 0x811c9dc5 | 0;
  for (let i = 0; i < text.length; i++) hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193);
  // The table indexes by the low bits, which the multiplications fill from low bits only: the high ones are folded in.
  return hash ^ (hash >>> 16);
}

/** MAX_PROBES is how far from its hash's slot a GroupTable places a name before it gives up hashing for a Map (names made to collide). */
const MAX_PROBES = 32;

/**
 * GroupTable holds the groups of one package by name, in the order added
 * (`list`). A suite may hold tens of thousands of benchmarks, each new one
 * a miss in the table: misses here compare hashes only, in an open-addressing
 * table, where a Map's compare names of the same length (slices of the text,
 * compared out of line). Every name sits at most MAX_PROBES slots from its
 * hash's, so a lookup stops there; one that would sit further (hostile names
 * that collide) turns the table into a Map for good.
 */
export class GroupTable<G extends { base: string }> {
  readonly list: G[] = [];
  /** slots[i] is 1 + the index in list of the group in slot i, 0 for none; hashes[i] is its name's hash. */
  private slots = new Int32Array(64);
  private hashes = new Int32Array(64);
  private map: Map<string, G> | undefined;

  /** get returns the group named `base`, whose hash is `hash`. */
  get(base: string, hash: number): G | undefined {
    if (this.map !== undefined) return this.map.get(base);
    const { slots, hashes, list } = this;
    const mask = slots.length - 1;
    for (let probe = 0, i = hash & mask; probe <= MAX_PROBES; probe++, i = (i + 1) & mask) {
      const slot = slots[i];
      if (slot === 0) return undefined;
      if (hashes[i] === hash && list[slot - 1].base === base) return list[slot - 1];
    }
    return undefined;
  }

  /** add adds a group not in the table, its name's hash `hash`. */
  add(group: G, hash: number): void {
    this.list.push(group);
    if (this.map !== undefined) {
      this.map.set(group.base, group);
      return;
    }
    if (2 * this.list.length > this.slots.length) {
      // Half full at most: twice the slots, every group placed again.
      const size = 2 * this.slots.length;
      const old = this.hashes;
      const oldSlots = this.slots;
      this.slots = new Int32Array(size);
      this.hashes = new Int32Array(size);
      for (let i = 0; i < oldSlots.length; i++) if (oldSlots[i] !== 0 && !this.place(oldSlots[i], old[i])) return this.toMap();
    }
    if (!this.place(this.list.length, hash)) this.toMap();
  }

  /** place puts slot value `slot` in the first free slot from its hash's, and says whether it is within MAX_PROBES of it. */
  private place(slot: number, hash: number): boolean {
    const { slots, hashes } = this;
    const mask = slots.length - 1;
    for (let probe = 0, i = hash & mask; probe <= MAX_PROBES; probe++, i = (i + 1) & mask) {
      if (slots[i] === 0) {
        slots[i] = slot;
        hashes[i] = hash;
        return true;
      }
    }
    return false;
  }

  private toMap(): void {
    this.map = new Map(this.list.map((group) => [group.base, group]));
    this.slots = new Int32Array(0);
    this.hashes = new Int32Array(0);
  }
}

/**
 * goBenchReader reads the text that `go test -bench` prints (the Go benchmark
 * data format), with or without `-v`, `-benchmem`, `-count N` and `-cpu`.
 *
 * Each result line `BenchmarkX/sub-8  1000  1234 ns/op  56 B/op ...` adds one
 * value to every metric it reports: `ns/op` becomes metric `time` with unit
 * `ns/op`; every other unit (`B/op`, `allocs/op`, `MB/s`, b.ReportMetric's
 * custom units) is both the metric and the unit, its direction from
 * directionOf, so `MB/s` and other rates are higher-is-better.
 *
 * Names: the GOMAXPROCS suffix `-N` is stripped and reported as the
 * `gomaxprocs` hint (a number, or a list such as "1,2" when it varies). When
 * one benchmark ran with several GOMAXPROCS values (`-cpu 1,2`) every one of
 * its series is named `<name>/procs=N` so they stay distinct. When the output
 * holds benchmarks of more than one package (`go test ./...`), every name is
 * qualified as `<import path>.<name>`, because two packages may well both
 * have a `BenchmarkParse`.
 *
 * Warnings: `--- SKIP: X` (skipped), `--- FAIL: X` (error), and a package's
 * `FAIL <import path>` line (error, with no benchmark). Config lines `goos`,
 * `goarch`, `cpu` and `pkg` become hints.
 */
export const goBenchReader: Reader = {
  format: 'go',
  description: 'go test -bench text output (Go benchmark data format)',

  sniff(head: string): boolean {
    let results = 0;
    let config = 0;
    for (const line of head.split(/\r?\n/)) {
      if (/^(goos|goarch|pkg):\s+\S/.test(line)) config += 1;
      else if (BENCHMARK_NAME.test(line) && /^\S+\s+\d+\s+[-+\d.eE]+\s+\S+/.test(line)) results += 1;
    }
    return results > 0 || config >= 2;
  },

  read(file: SourceFile): ReadResult {
    checkText(file);
    if (file.text.trim() === '') throw new FormatError(file.path, undefined, 'file is empty');
    const text = file.text;
    const length = text.length;
    const budget = new ReadBudget(file.path);
    const hints: FingerprintHints = {};
    const warnings: ReadWarning[] = [];
    const pendingWarnings: { pkg: string; base: string | undefined; message: string; kind: 'error' | 'skipped' }[] = [];
    // Values go straight into their series (no object per result line): a
    // 256 MiB output holds over ten million lines.
    // Packages in the order of their first result, each with its groups by name.
    const groups = new Map<string, GroupTable<Group>>();
    // Each full result name (with its -N suffix) of a package keeps its
    // group and series (found as one of its group's entries): a repeated line
    // costs no suffix match, no key string per value and no lookups by key.
    const allProcs = new Set<number>();
    const fields = new LineFields();
    const scratch: Scratch = { nameEnd: 0, newline: 0, values: [], units: [], lastUnits: [], lastUnitAt: [] };
    // Result lines are read from a window of the text in a typed array, and names compared with their units in nameCodes.
    const window = new TextWindow(text);
    const nameCodes = new NameCodes();
    let lastEntry: NameEntry | undefined;
    // followed says whether the last line's entry was the one after the line before's.
    let followed = false;
    let results = 0;
    // What fastRun carries on from the lines before and hands back.
    const run: Run = { lastEntry: undefined, followed: false, number: 0, results: 0, directions: new Map() };
    let pkg = '';

    // Lines are walked in place (start..end of each in the whole text) and
    // only the few that need it become strings: a result line gives its name
    // and, when they differ from the line before, its units.
    let number = 0;
    for (let start = 0; start <= length; ) {
      if (lastEntry !== undefined && start < length) {
        // Lines of known names in the order predicted, in a loop of their own.
        run.lastEntry = lastEntry;
        run.followed = followed;
        run.number = number;
        run.results = results;
        start = fastRun(window, length, start, scratch, nameCodes.codes, budget, run);
        lastEntry = run.lastEntry;
        followed = run.followed;
        number = run.number;
        results = run.results;
        if (start > length) break;
      }
      number += 1;
      const lineStart = start;
      let first = NaN;
      if (lineStart < length) {
        window.cover(lineStart);
        first = window.codes[lineStart - window.base];
      }
      if (first === 66) {
        // Names come back in the order they came before: the same again
        // (-count N) or the one that followed it last time (rounds of a suite
        // concatenated). Such a name is compared in place, not read again,
        // and is known to be a benchmark name.
        let entry: NameEntry | undefined;
        if (lastEntry !== undefined) {
          const likely: NameEntry | undefined = followed ? lastEntry.next : lastEntry;
          const other: NameEntry | undefined = followed ? lastEntry : lastEntry.next;
          entry = namesAt(window, nameCodes.codes, lineStart, likely) ? likely : namesAt(window, nameCodes.codes, lineStart, other) ? other : undefined;
        }
        // `Benchmark` then the end of the line or a character that is not a lower-case letter.
        const isResult = entry !== undefined || (text.startsWith('Benchmark', lineStart) && !(text.charCodeAt(lineStart + 9) >= 97 && text.charCodeAt(lineStart + 9) <= 122));
        // The usual result line is read in one pass to its end (fastResult); any
        // other line, and every error, takes the general path below.
        let pairs = isResult ? fastResult(window, length, lineStart, scratch, entry === undefined ? -1 : lineStart + entry.name.length) : 0;
        let newline = scratch.newline;
        if (pairs === 0) {
          newline = text.indexOf('\n', lineStart);
          if (newline < 0) newline = length;
        }
        start = newline + 1;
        if (!isResult) continue;
        let name: string;
        if (pairs > 0) {
          name = entry === undefined ? text.slice(lineStart, scratch.nameEnd) : entry.name;
        } else {
          const count = fields.split(text, lineStart, newline);
          // A bare name (printed under -v before sub-benchmarks) or a name followed by
          // the benchmark's own stdout is not a result; a result has an iteration count.
          if (count < 2 || !fields.isCount(text, 1)) continue;
          name = fields.text(text, 0);
          if (count < 4 || count % 2 !== 0) {
            throw new FormatError(file.path, number, `benchmark result "${name}" needs value/unit pairs after the iteration count`);
          }
          // Every pair is checked before any value is kept, as the errors name the first bad pair.
          pairs = (count - 2) / 2;
          for (let k = 0; k < pairs; k++) {
            const i = 2 + 2 * k;
            const value = fields.number(text, i);
            if (value === undefined) throw new FormatError(file.path, number, `${name}: "${fields.text(text, i)}" is not a finite number`);
            const unit = fields.unit(text, i + 1, k);
            if (fields.repeatsUnit(k)) throw new FormatError(file.path, number, `${name}: unit ${unit} appears twice`);
            if (value < 0 && (isTimeUnit(unit) || NON_NEGATIVE_UNITS.has(unit))) {
              throw new FormatError(file.path, number, `${name}: negative ${unit} (${fields.text(text, i)}); a time or size cannot be below zero`);
            }
            scratch.values[k] = value;
            scratch.units[k] = unit;
          }
        }
        entry ??= entryOf(name, pkg, groups, nameCodes, allProcs);
        if (lastEntry !== undefined) {
          followed = lastEntry.next === entry && lastEntry !== entry;
          lastEntry.next = entry;
        }
        lastEntry = entry;
        addValues(entry, pairs, scratch, budget, number, run.directions);
        results += 1;
        continue;
      }
      let newline = text.indexOf('\n', lineStart);
      if (newline < 0) newline = length;
      start = newline + 1;
      // Each pattern runs only on lines that start the way it needs, so junk lines cost a character test.
      if (!((first >= 97 && first <= 122) || first === 45 || first === 70)) continue;
      const line = text.slice(lineStart, lineEnd(text, lineStart, newline));
      const config = first >= 97 && first <= 122 ? CONFIG_LINE.exec(line) : null;
      if (config) {
        const [, key, rawValue] = config;
        const value = (rawValue ?? '').trim();
        if (key === 'pkg') {
          pkg = value;
          lastEntry = undefined;
        } else if (HINT_KEYS.has(key) && value !== '' && hints[key] === undefined) hints[key] = value;
        continue;
      }
      const status = first === 45 ? /^--- (FAIL|SKIP): (\S+)/.exec(line) : null;
      if (status) {
        const failed = status[1] === 'FAIL';
        budget.series(number);
        pendingWarnings.push({
          pkg,
          base: stripProcs(status[2]).base,
          message: failed ? `${status[2]} failed` : `${status[2]} was skipped`,
          kind: failed ? 'error' : 'skipped',
        });
        continue;
      }
      const pkgFail = first === 70 ? /^FAIL\s+(\S+)/.exec(line) : null;
      if (pkgFail) {
        budget.series(number);
        pendingWarnings.push({ pkg: pkgFail[1], base: undefined, message: `package ${pkgFail[1]} failed: ${line.trim().replace(/\s+/g, ' ')}`, kind: 'error' });
        continue;
      }
    }

    if (results === 0 && pendingWarnings.length === 0) {
      throw new FormatError(file.path, undefined, 'no Go benchmark result lines (BenchmarkX  N  value unit ...) found');
    }

    const qualifyPackage = groups.size > 1;
    const qualified = (p: string, base: string) => (qualifyPackage && p !== '' ? `${p}.${base}` : base);
    const measurements = measurementsOf(groups, qualifyPackage);

    for (const w of pendingWarnings) {
      warnings.push(w.base === undefined ? { message: w.message, kind: w.kind } : { message: w.message, benchmark: qualified(w.pkg, w.base), kind: w.kind });
    }

    if (allProcs.size === 1) hints.gomaxprocs = [...allProcs][0];
    else if (allProcs.size > 1) hints.gomaxprocs = [...allProcs].join(',');
    const pkgs = [...groups.keys()].filter((p) => p !== '');
    if (pkgs.length > 0) hints.pkg = pkgs.join(',');

    return { measurements, warnings, hints };
  },
};

/**
 * entryOf returns the entry of the full result name `name` of package
 * `pkg`, found among its group's entries (one lookup by its name without
 * the GOMAXPROCS suffix, where a map of full names would cost two for a new
 * name), or added with its group (created if it is the first GOMAXPROCS of
 * its benchmark). A function of its own, as fastRun is (see there).
 */
function entryOf(name: string, pkg: string, groups: Map<string, GroupTable<Group>>, nameCodes: NameCodes, allProcs: Set<number>): NameEntry {
  const { base, procs } = stripProcs(name);
  let byBase = groups.get(pkg);
  if (!byBase) groups.set(pkg, (byBase = new GroupTable<Group>()));
  const hash = hashOf(base);
  let group = byBase.get(base, hash);
  if (!group) byBase.add((group = { pkg, base, procs, severalProcs: false, series: [], seriesProcs: [], index: undefined, entries: [], names: undefined }), hash);
  else {
    const known = findEntry(group, name);
    if (known !== undefined) return known;
    if (group.procs !== procs) group.severalProcs = true;
  }
  allProcs.add(procs);
  const entry: NameEntry = { name, group, procs, series: [], next: undefined, codes: nameCodes.add(name) };
  addEntry(group, entry);
  return entry;
}

/**
 * measurementsOf names the series of every group, packages in the order of
 * their first result (qualified with their import path when there are
 * several) and benchmarks in the order of theirs. A function of its own, as
 * fastRun is (see there): a file may hold a million series.
 */
function measurementsOf(groups: Map<string, GroupTable<Group>>, qualifyPackage: boolean): Measurement[] {
  const measurements: Measurement[] = [];
  for (const byBase of groups.values()) {
    for (const group of byBase.list) {
      const qualify = qualifyPackage && group.pkg !== '';
      const severalProcs = group.severalProcs;
      const { series, seriesProcs } = group;
      // With one GOMAXPROCS the procs part of the key is the same for all, so
      // series keep the order in which their units first appeared. They are
      // named by the group's name already, unless qualified or by GOMAXPROCS.
      if (qualify || severalProcs) {
        const name = qualify ? `${group.pkg}.${group.base}` : group.base;
        for (let i = 0; i < series.length; i++) series[i].benchmark = severalProcs ? `${name}/procs=${seriesProcs[i]}` : name;
      }
      for (let i = 0; i < series.length; i++) measurements.push(series[i]);
    }
  }
  return measurements;
}

/** Run is the state of read() that fastRun carries on: the entry of the last result line, whether it followed the one before, the number of the last line read and the results so far. */
interface Run {
  lastEntry: NameEntry | undefined;
  followed: boolean;
  number: number;
  results: number;
  /** directions keeps the direction of each unit, worked out once. */
  directions: Map<string, Direction>;
}

/** addValues appends a result line's `pairs` values (in `scratch`) to its name's series, finding or adding the series of each unit. */
function addValues(entry: NameEntry, pairs: number, scratch: Scratch, budget: ReadBudget, number: number, directions: Map<string, Direction>): void {
  const { values, units } = scratch;
  for (let k = 0; k < pairs; k++) {
    const unit = units[k];
    let series: Series | undefined = entry.series[k];
    if (series === undefined || series.unit !== unit) {
      series = findSeries(entry.group, entry.procs, unit);
      if (!series) {
        budget.series(number);
        series = addSeries(entry.group, entry.procs, unit, directions);
      }
      entry.series[k] = series;
    }
    budget.value(number);
    series.values.push(values[k]);
  }
}

/**
 * fastRun reads result lines from `start` on for as long as each is the
 * usual result line (fastResult) of the name predicted (the same again or
 * the one that followed it last time), with the state of read() in `run`,
 * and returns where the first line it did not read starts (past the text's
 * length after the last line). It does what read()'s loop does for such a
 * line, in the same order; being a function of its own, it stays compiled
 * from one read to the next, where read() itself, called once per input,
 * starts every time in V8's slower tiers.
 */
function fastRun(window: TextWindow, length: number, start: number, scratch: Scratch, names: Uint16Array, budget: ReadBudget, run: Run): number {
  if (run.lastEntry === undefined) return start;
  let lastEntry: NameEntry = run.lastEntry;
  let followed = run.followed;
  let number = run.number;
  let results = run.results;
  while (start < length) {
    window.cover(start);
    const likely: NameEntry | undefined = followed ? lastEntry.next : lastEntry;
    const other: NameEntry | undefined = followed ? lastEntry : lastEntry.next;
    const entry: NameEntry | undefined = namesAt(window, names, start, likely) ? likely : namesAt(window, names, start, other) ? other : undefined;
    if (entry === undefined) break;
    const pairs = fastResult(window, length, start, scratch, start + entry.name.length);
    if (pairs === 0) break;
    number += 1;
    followed = lastEntry.next === entry && lastEntry !== entry;
    lastEntry.next = entry;
    lastEntry = entry;
    addValues(entry, pairs, scratch, budget, number, run.directions);
    results += 1;
    start = scratch.newline + 1;
  }
  run.lastEntry = lastEntry;
  run.followed = followed;
  run.number = number;
  run.results = results;
  return start;
}

/** Scratch holds what fastResult read from a line, reused for every line. */
interface Scratch {
  /** nameEnd is where the benchmark name ends (it starts the line). */
  nameEnd: number;
  /** newline is where the line's `\n` is (the text's length for the last line). */
  newline: number;
  values: number[];
  /** units[k] is the line's k-th unit: the same string as lastUnits[k] when the characters match. */
  units: string[];
  lastUnits: string[];
  /** lastUnitAt[k] is where lastUnits[k] stood on the line before: units are compared there, in the window when it still holds it. */
  lastUnitAt: number[];
}

/** MAX_FAST_PAIRS is the most value/unit pairs fastResult reads (the testing package prints four with -benchmem and a rate). */
const MAX_FAST_PAIRS = 8;

/**
 * fastResult reads the usual Go result line, `BenchmarkX-8  1000  12.5 ns/op
 * 64 B/op ...`, in one pass over its characters to its end, and returns its
 * number of value/unit pairs with the values and units in `scratch`, and
 * where its `\n` is; 0 when the line is anything else (white space other
 * than space, tab and a final `\r`, a number that is not a plain decimal of
 * at most 15 digits, a negative value, a repeated unit, more than
 * MAX_FAST_PAIRS pairs, not a result at all) or runs past the window: the
 * general path then reads it, and raises any error. A plain decimal is an
 * integer over an exact power of ten, correctly rounded as Number() is.
 * The line starts with `Benchmark`, at `start` (in the text) in `window`;
 * `nameEnd` is where its name ends when it is known, else -1.
 */
function fastResult(window: TextWindow, length: number, start: number, scratch: Scratch, nameEnd: number): number {
  // The line ends at a `\n` or at the end of the text; the window's 0 (no
  // text holds a NUL) ends it too, at the end of the text or else past the
  // window, where the line is not read here. Every loop over spaces, digits
  // and printable characters stops at either.
  const codes = window.codes;
  const base = window.base;
  const end = length - base;
  let p = nameEnd - base;
  let c = 0;
  if (nameEnd < 0) {
    // The name: printable ASCII up to a space or tab.
    p = start - base + 9;
    while ((c = codes[p]) > 32 && c < 127) p++;
    if (c !== 32 && c !== 9) return 0;
  }
  scratch.nameEnd = p + base;
  // Space, then the iteration count.
  while ((c = codes[++p]) === 32 || c === 9);
  const count = p;
  while ((c = codes[p]) >= 48 && c <= 57) p++;
  if (p === count || (c !== 32 && c !== 9)) return 0;
  const { values, units, lastUnits, lastUnitAt } = scratch;
  let pairs = 0;
  for (;;) {
    // Space, then the end of the line or a value.
    while ((c = codes[p]) === 32 || c === 9) p++;
    if (c === 13 && (codes[p + 1] === 10 || p + 1 === end)) c = codes[++p];
    if (c === 10 || p === end) {
      scratch.newline = p + base;
      return pairs;
    }
    if (pairs === MAX_FAST_PAIRS) return 0;
    // A plain decimal: digits, at most one dot.
    const number = p;
    let mantissa = 0;
    let dot = -1;
    for (;;) {
      c = codes[p];
      if (c >= 48 && c <= 57) mantissa = mantissa * 10 + (c - 48);
      else if (c === 46 && dot < 0) dot = p;
      else break;
      p++;
    }
    const digits = p - number - (dot < 0 ? 0 : 1);
    if (digits === 0 || digits > 15 || (c !== 32 && c !== 9)) return 0;
    values[pairs] = dot < 0 || dot === p - 1 ? mantissa : mantissa / POWERS_OF_TEN[p - dot - 1];
    while ((c = codes[++p]) === 32 || c === 9);
    // The unit: the one in this place on the line before, or printable ASCII up to a space, a tab or the end.
    const unitStart = p;
    const known = lastUnits[pairs];
    let unit: string | undefined;
    if (known !== undefined) {
      const unitLength = known.length;
      const at = lastUnitAt[pairs] - base;
      let i = 0;
      // The line before is in the window, unless the window moved to this line.
      if (at >= 0) while (i < unitLength && codes[unitStart + i] === codes[at + i]) i++;
      else while (i < unitLength && codes[unitStart + i] === known.charCodeAt(i)) i++;
      p = unitStart + unitLength;
      c = codes[p];
      if (i === unitLength && (c === 32 || c === 9 || c === 10 || p === end || (c === 13 && (codes[p + 1] === 10 || p + 1 === end)))) unit = known;
    }
    if (unit === undefined) {
      p = unitStart;
      while ((c = codes[p]) > 32 && c < 127) p++;
      if (p === unitStart || (c !== 32 && c !== 9 && c !== 10 && p !== end && !(c === 13 && (codes[p + 1] === 10 || p + 1 === end)))) return 0;
      lastUnits[pairs] = unit = window.text.slice(unitStart + base, p + base);
    }
    lastUnitAt[pairs] = unitStart + base;
    for (let k = 0; k < pairs; k++) if (units[k] === unit) return 0;
    units[pairs] = unit;
    pairs += 1;
  }
}

/** namesAt says whether the line at `start` begins with the name of `entry` followed by a space or tab, compared in the window (which covers `start`) with the name's units in `names`. */
function namesAt(window: TextWindow, names: Uint16Array, start: number, entry: NameEntry | undefined): entry is NameEntry {
  if (entry === undefined) return false;
  const length = entry.name.length;
  // Past the window's end its array holds units of an earlier window.
  if (start + length >= window.limit) return false;
  const codes = window.codes;
  const s = start - window.base;
  const c = codes[s + length];
  if (c !== 32 && c !== 9) return false;
  const at = entry.codes;
  for (let i = length - 1; i >= 0; i--) if (codes[s + i] !== names[at + i]) return false;
  return true;
}

/** lineEnd is where a line's text ends: before its `\n`, and before a `\r` that precedes it (as LineCursor cuts lines). */
function lineEnd(text: string, start: number, newline: number): number {
  return newline < text.length && newline > start && text.charCodeAt(newline - 1) === 13 ? newline - 1 : newline;
}

/** stripProcs splits `BenchmarkX/y-8` into `BenchmarkX/y` and 8; Go prints no suffix for GOMAXPROCS=1. */
function stripProcs(name: string): { base: string; procs: number } {
  // As /-(\d+)$/: the digits at the end, after a `-`.
  let digits = name.length;
  while (digits > 0 && name.charCodeAt(digits - 1) >= 48 && name.charCodeAt(digits - 1) <= 57) digits -= 1;
  if (digits === name.length || digits === 0 || name.charCodeAt(digits - 1) !== 45) return { base: name, procs: 1 };
  return { base: name.slice(0, digits - 1), procs: Number(name.slice(digits)) };
}
