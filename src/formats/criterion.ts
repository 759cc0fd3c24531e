import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { ReadBudget } from './input-limits.ts';
import { Finder, isSpace, LineCursor, NameOrder, NOWHERE, parseFiniteNumber, POWERS_OF_TEN, readDecimal, sameText, NameCodes, TextWindow, type NamedEntry } from './text-lines.ts';
import { directionOf } from '../model/units.ts';

/**
 * THROUGHPUT_KINDS maps the keys of criterion's `Throughput` enum, as
 * benchmark.json spells them, to the base unit benchbot reports.
 */
const THROUGHPUT_KINDS: Record<string, string> = {
  Bytes: 'B/s',
  BytesDecimal: 'B/s',
  Elements: 'elem/s',
  Bits: 'b/s',
};

/**
 * CONSOLE_THROUGHPUT maps the scaled units criterion prints to a base unit
 * and its factor. criterion picks the prefix per value (one bracket can read
 * `[850.95 MiB/s 989.53 MiB/s 1.0547 GiB/s]`), and base and head may land on
 * different prefixes, so only the base unit compares reliably.
 */
const CONSOLE_THROUGHPUT: Record<string, [string, number]> = {
  'B/s': ['B/s', 1],
  'KiB/s': ['B/s', 1024],
  'MiB/s': ['B/s', 1024 ** 2],
  'GiB/s': ['B/s', 1024 ** 3],
  'KB/s': ['B/s', 1e3],
  'MB/s': ['B/s', 1e6],
  'GB/s': ['B/s', 1e9],
  'elem/s': ['elem/s', 1],
  'Kelem/s': ['elem/s', 1e3],
  'Melem/s': ['elem/s', 1e6],
  'Gelem/s': ['elem/s', 1e9],
  'b/s': ['b/s', 1],
  'Kb/s': ['b/s', 1e3],
  'Mb/s': ['b/s', 1e6],
  'Gb/s': ['b/s', 1e9],
};

/** CONSOLE_TIME maps criterion's time units to benchbot's; `ps` has no entry in units.ts, so it becomes ns. */
const CONSOLE_TIME: Record<string, [string, number]> = {
  ps: ['ns', 1e-3],
  ns: ['ns', 1],
  'µs': ['us', 1],
  'μs': ['us', 1],
  us: ['us', 1],
  ms: ['ms', 1],
  s: ['s', 1],
};

/** Sample is one criterion sample.json: per-iteration times in ns, one per sample. */
interface Sample {
  perIteration: number[];
}

function readSample(file: SourceFile): Sample {
  const j: JsonReader = new JsonReader(file.path);
  const root = j.object(parseJsonDocument(file), '$');
  j.optionalString(root.sampling_mode, 'sampling_mode');
  const iters = j.numbers(root.iters, 'iters');
  const times = j.numbers(root.times, 'times');
  if (iters.length === 0) j.fail('iters', 'no samples');
  if (times.length !== iters.length) j.fail('times', `has ${times.length} values but iters has ${iters.length}`);
  iters.forEach((n, i) => {
    if (n <= 0) j.fail(`iters[${i}]`, `expected a positive iteration count, got ${n}`);
  });
  times.forEach((t, i) => {
    if (t <= 0) j.fail(`times[${i}]`, `expected a positive time, got ${t}`);
  });
  const perIteration = times.map((t, i) => t / iters[i]);
  perIteration.forEach((v, i) => {
    if (!Number.isFinite(v) || v <= 0) j.fail(`times[${i}]`, `time per iteration ${v} is out of range (times[${i}] / iters[${i}])`);
  });
  return { perIteration };
}

function splitPath(path: string): string[] {
  return path.replace(/\\/g, '/').split('/').filter((p) => p !== '' && p !== '.');
}

/**
 * criterionNameFromPath derives a benchmark name from the path of a
 * sample.json: the directories between `target/criterion/` (or the last
 * `criterion/`) and the baseline directory holding the file (`new/`, `base/`
 * or a `--save-baseline` name), which is criterion's `directory_name` and equals
 * its `full_id` unless the id held characters criterion replaces in paths.
 * Without a `criterion/` directory in the path, the benchmark directory alone
 * is the name.
 */
export function criterionNameFromPath(path: string): string {
  const parts = splitPath(path);
  parts.pop();
  parts.pop();
  let root = -1;
  for (let i = parts.length - 1; i >= 0; i -= 1) {
    if (parts[i] === 'criterion' && (root < 0 || parts[i - 1] === 'target')) {
      root = i;
      if (parts[i - 1] === 'target') break;
    }
  }
  const name = root >= 0 ? parts.slice(root + 1).join('/') : (parts[parts.length - 1] ?? '');
  return name === '' ? path : name;
}

function throughputValues(file: SourceFile, perIteration: number[], amount: number): number[] {
  const values = perIteration.map((ns) => (amount * 1e9) / ns);
  if (values.some((v) => !Number.isFinite(v))) throw new FormatError(file.path, undefined, 'throughput: amount per iteration over time per iteration is out of range');
  return values;
}

/**
 * criterionReader reads one criterion `sample.json` (from
 * `target/criterion/<benchmark>/new/`): metric `time`, unit `ns`, one value
 * per sample, `times[i] / iters[i]` (criterion's own per-iteration estimate
 * for both linear and flat sampling). The file does not name its benchmark,
 * so the name comes from the path (see criterionNameFromPath); throughput
 * needs the sibling benchmark.json, so it is only read by
 * readCriterionDirectory.
 */
export const criterionReader: Reader = {
  format: 'criterion',
  description: 'criterion target/criterion/<benchmark>/new/sample.json',

  sniff(head: string): boolean {
    return /^\s*\{/.test(head) && /"sampling_mode"\s*:/.test(head) && /"iters"\s*:/.test(head);
  },

  read(file: SourceFile): ReadResult {
    const { perIteration } = readSample(file);
    const benchmark = criterionNameFromPath(file.path);
    return { measurements: [{ benchmark, metric: 'time', unit: 'ns', better: 'lower', values: perIteration }], warnings: [], hints: {} };
  },
};

function commonDirectory(files: SourceFile[]): string {
  if (files.length === 0) return 'target/criterion';
  let common = splitPath(files[0].path).slice(0, -1);
  for (const f of files.slice(1)) {
    const parts = splitPath(f.path);
    let k = 0;
    while (k < common.length && k < parts.length - 1 && common[k] === parts[k]) k += 1;
    common = common.slice(0, k);
  }
  return common.length === 0 ? '.' : common.join('/');
}

/**
 * readCriterionDirectory reads every benchmark of a `target/criterion` tree,
 * given as all the files found under it (the caller walks the directory).
 *
 * Only `<benchmark>/new/sample.json` is read, with its sibling
 * `new/benchmark.json` for the name (`full_id`, else `title`) and the
 * throughput; `base/`, `change/`, saved baselines, `report/`, estimates and
 * anything else are ignored. Each benchmark yields metric `time` (ns, one
 * value per sample) and, when benchmark.json declares a throughput, metric
 * `throughput` per sample in `B/s`, `elem/s` or `b/s` (amount per iteration
 * divided by the sample's per-iteration time). A sample.json without
 * benchmark.json is named from its path, with a `note` warning. Benchmarks
 * come in path order. Throws FormatError naming the bad file when a file is
 * malformed, a name repeats, or the tree holds no `new/sample.json` at all.
 */
export function readCriterionDirectory(files: SourceFile[]): ReadResult {
  const byPath = new Map(files.map((f) => [splitPath(f.path).join('/'), f]));
  const samples = [...byPath.entries()]
    .filter(([p]) => /(^|\/)new\/sample\.json$/.test(p))
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  if (samples.length === 0) {
    throw new FormatError(commonDirectory(files), undefined, 'no criterion results: expected <benchmark>/new/sample.json files under target/criterion (run `cargo bench` first)');
  }

  const measurements: Measurement[] = [];
  const warnings: ReadWarning[] = [];
  const seen = new Map<string, string>();
  for (const [samplePath, sampleFile] of samples) {
    const { perIteration } = readSample(sampleFile);
    const benchmarkFile = byPath.get(samplePath.replace(/sample\.json$/, 'benchmark.json'));
    let benchmark = criterionNameFromPath(sampleFile.path);
    let throughput: { unit: string; amount: number; file: SourceFile } | undefined;
    if (benchmarkFile === undefined) {
      warnings.push({ benchmark, kind: 'note', message: `${sampleFile.path}: no benchmark.json beside it; named the benchmark "${benchmark}" from its path and read no throughput` });
    } else {
      const described = readBenchmarkJson(benchmarkFile, warnings);
      benchmark = described.name;
      if (described.throughput) throughput = { unit: described.throughput[0], amount: described.throughput[1], file: benchmarkFile };
    }
    const where = benchmarkFile?.path ?? sampleFile.path;
    const earlier = seen.get(benchmark);
    if (earlier !== undefined) throw new FormatError(where, undefined, `benchmark "${benchmark}" also appears in ${earlier}`);
    seen.set(benchmark, where);
    measurements.push({ benchmark, metric: 'time', unit: 'ns', better: 'lower', values: perIteration });
    if (throughput) {
      measurements.push({ benchmark, metric: 'throughput', unit: throughput.unit, better: 'higher', values: throughputValues(throughput.file, perIteration, throughput.amount) });
    }
  }
  return { measurements, warnings, hints: {} };
}

function readBenchmarkJson(file: SourceFile, warnings: ReadWarning[]): { name: string; throughput?: [string, number] } {
  const j: JsonReader = new JsonReader(file.path);
  const root = j.object(parseJsonDocument(file), '$');
  const fullId = j.optionalString(root.full_id, 'full_id');
  const name = fullId ?? j.optionalString(root.title, 'title');
  if (name === undefined || name === '') j.fail('full_id', 'missing: benchmark.json names no benchmark (no full_id or title)');
  if (root.throughput === undefined || root.throughput === null) return { name };
  const t = j.object(root.throughput, 'throughput');
  const keys = Object.keys(t);
  if (keys.length !== 1) j.fail('throughput', `expected one throughput kind, got ${keys.length}`);
  const kind = keys[0];
  const amount = j.number(t[kind], `throughput.${kind}`);
  if (amount < 0) j.fail(`throughput.${kind}`, `expected a non-negative amount, got ${amount}`);
  const unit = THROUGHPUT_KINDS[kind];
  if (unit === undefined) {
    warnings.push({ benchmark: name, kind: 'note', message: `${file.path}: unknown throughput kind "${kind}"; read the time only` });
    return { name };
  }
  return { name, throughput: [unit, amount] };
}

// ---------------------------------------------------------------------------
// cargo bench console

/** ANSI escapes criterion and cargo emit when they think they talk to a terminal. */
const ANSI = /\u001b\[[0-9;?]*[A-Za-z]/g;

const THRPT_LINE = /^\s*thrpt:\s+\[([^\]]*)\]/;
const CHANGE_BLOCK = /^\s*change:\s*$/;
const BENCH_FAILED = /^error: bench failed\b/;
const ANALYZING = /^Benchmarking (.+): Analyzing\s*$/;

/**
 * cargoBenchReader reads the console text of `cargo bench`: criterion's
 * result lines and libtest's `#[bench]` lines, also both in one file.
 *
 * criterion: `name  time:   [low estimate high]` (a name longer than the
 * column stands alone on the line before) gives metric `time` with the middle
 * (point) estimate in criterion's unit (`ps` converted to `ns`, `µs` as
 * `us`); a following `thrpt:` line gives metric `throughput` in the base unit
 * `B/s`, `elem/s` or `b/s`, since criterion rescales per value. `change:`
 * blocks (percentages against the last run) and progress lines are ignored.
 *
 * libtest and criterion's `--output-format bencher`: `test NAME ... bench:
 * 1,234 ns/iter (+/- 56)`, where NAME is everything up to the last ` ... `
 * (`Symbols (Execution)`, `fib 31 (slow)`), gives metric `time`, unit
 * `ns/iter` (libtest's median, criterion's median estimate). Other units are
 * kept as printed: a custom criterion measurement's `cycles/iter` is metric
 * `cycles`, lower is better; a rate (`MS/s`, also as `MS/s/iter`) is metric
 * `throughput` in that rate, higher is better. A trailing `= N MB/s` gives
 * metric `throughput`, unit `MB/s`. `ignored` yields a `skipped` warning,
 * `FAILED` an `error` warning, cargo's `error: bench failed` an `exit-code`
 * warning. criterion's stderr lines between them ("Gnuplot not found",
 * "Warning: Unable to complete 100 samples") are not results and are skipped.
 *
 * The console has one estimate per benchmark, not samples, so a file yields
 * one value per benchmark (more when the same benchmark is printed again, as
 * in concatenated runs) and one `summary-only` warning for the whole file;
 * readCriterionDirectory gives the samples.
 */
export const cargoBenchReader: Reader = {
  format: 'cargo-bench',
  description: 'cargo bench console output (criterion and libtest #[bench])',

  sniff(head: string): boolean {
    const text = head.replace(ANSI, '');
    return (
      /^(\S.*?)?\s+time:\s+\[\s*\d[\d.]*\s+\S+\s+\d/m.test(text) ||
      /^Benchmarking \S.*: (Warming up for|Collecting \d+ samples|Analyzing)/m.test(text) ||
      text.split('\n').some((line) => line.startsWith('test') && libtestLine(line)?.outcome === 'bench')
    );
  },

  read(file: SourceFile): ReadResult {
    const lines = new ConsoleLines(file);
    const { cursor, input } = lines;
    // previous is the last line that was not blank: a string, or while
    // lines.previousStart >= 0 the text between previousStart and previousEnd.
    let previous = '';
    // The usual lines are read by lines.fastRun (see there); any other line,
    // and every error, takes the general path below.
    for (let run = lines.fastRun(); run !== END; run = lines.fastRun()) {
      if (run === AGAIN) continue;
      const number = cursor.number;
      const raw = cursor.line();
      if (lines.previousStart >= 0) {
        previous = input.slice(lines.previousStart, lines.previousEnd);
        lines.previousStart = -1;
      }
      // The patterns run only on lines holding their keyword: reading stays
      // a few indexOf per line, so a result file at the size limit is read
      // in seconds (a round's reading must end well inside its timeout).
      const clean = raw.includes('\u001b') ? raw.replace(ANSI, '') : raw;
      const text = clean.includes('\r') ? (clean.split('\r').pop() ?? '') : clean;
      const estimateLine = text.includes('time:') || text.includes('thrpt:');
      const time = estimateLine ? timeEstimate(text) : undefined;
      const thrpt = estimateLine ? THRPT_LINE.exec(text) : null;
      const libtest = text.startsWith('test') ? libtestLine(text) : undefined;
      // A change block is all indented; anything at the margin ends it.
      if (text !== '' && !isSpace(text.charCodeAt(0))) lines.inChange = false;
      if (estimateLine && truncatedEstimate(text)) throw new FormatError(file.path, number, 'criterion estimate line is truncated (no closing "]")');
      if (text.includes('change:') && CHANGE_BLOCK.test(text)) {
        lines.inChange = true;
      } else if (time && !(time.name.trim() === '' && lines.inChange) && !time.inner.includes('%')) {
        // A long name stands alone on the line before; if stderr's progress
        // line got in between, that line names the benchmark too.
        const name = time.name.trim() !== '' ? time.name.trim() : (ANALYZING.exec(previous)?.[1] ?? previous).trim();
        if (name === '') throw new FormatError(file.path, number, 'criterion time line without a benchmark name');
        const [value, unit] = estimate(file.path, number, time.inner, CONSOLE_TIME);
        lines.add(number, name, 'time', unit, value);
        lines.current = { name, hasThroughput: false, entry: undefined };
        lines.inChange = false;
      } else if (thrpt && !lines.inChange && !thrpt[1].includes('%')) {
        const current = lines.current;
        if (!current) throw new FormatError(file.path, number, 'criterion thrpt line without a time line before it');
        if (current.hasThroughput) throw new FormatError(file.path, number, `second thrpt line for benchmark "${current.name}"`);
        const [value, unit] = estimate(file.path, number, thrpt[1], CONSOLE_THROUGHPUT);
        lines.add(number, current.name, 'throughput', unit, value);
        current.hasThroughput = true;
      } else if (libtest?.outcome === 'bench') {
        const { name, value, unit, megabytes } = libtest;
        const [metric, reported] = libtestMetric(unit);
        lines.add(number, name, metric, reported, libtestNumber(file.path, number, value));
        if (megabytes !== undefined) lines.add(number, name, 'throughput', 'MB/s', libtestNumber(file.path, number, megabytes));
        lines.current = undefined;
      } else if (libtest) {
        const { name, outcome } = libtest;
        lines.warn(
          number,
          outcome === 'ignored'
            ? { benchmark: name, kind: 'skipped', message: `${name}: ignored` }
            : { benchmark: name, kind: 'error', message: `${name}: FAILED (${file.path}:${number}); it has no results` },
        );
      } else if (text.startsWith('error: bench failed') && BENCH_FAILED.test(text)) {
        lines.warn(number, { kind: 'exit-code', message: `cargo reported a failed bench run (${file.path}:${number}); results may be missing` });
      }
      if (text.trim() !== '') previous = text;
    }

    const { order, warnings } = lines;
    if (order.length === 0) {
      throw new FormatError(file.path, undefined, 'no criterion `time:` lines or libtest `bench:` lines found; is this `cargo bench` output?');
    }
    const measurements = measurementsOf(order);
    warnings.push({
      kind: 'summary-only',
      message: `${file.path}: console output has one estimate per benchmark (criterion's point estimate, libtest's median), not its samples; read target/criterion for per-sample values`,
    });
    return { measurements, warnings, hints: {} };
  },
};

/** measurementsOf turns the series into measurements, in the order of their first values. A function of its own, as ConsoleLines.fastRun is (see there). */
function measurementsOf(order: Series[]): Measurement[] {
  return order.map(({ benchmark, metric, unit, values }) => ({
    benchmark,
    metric,
    unit,
    better: metric === 'time' ? 'lower' : metric === 'throughput' ? 'higher' : directionOf(metric, unit),
    values,
  }));
}

/** What ConsoleLines.fastRun stopped at: the end of the text, a line for the general path (the cursor's), or FAST_RUN_LINES lines read. */
const END = 0;
const GENERAL = 1;
const AGAIN = 2;

/**
 * FAST_RUN_LINES is how many lines fastRun reads at most in one call: called
 * again and again, it is compiled as a function and stays so from one read
 * to the next, where a loop over the whole text, run once per input, starts
 * each time in V8's slower tiers (and is compiled on the stack).
 */
const FAST_RUN_LINES = 4096;

/**
 * ConsoleLines is the state of cargoBenchReader.read: the series so far and
 * what the fast path keeps between lines. read() itself holds only the
 * general path; the usual lines are read by fastRun, a method called many
 * times per input (see FAST_RUN_LINES).
 */
class ConsoleLines {
  readonly path: string;
  readonly input: string;
  readonly cursor: LineCursor;
  // Series by benchmark name (a name read in place is the same string each time, so its hash is
  // computed once), its time and throughput in fields of its entry, other metrics in a map of it:
  // a new name costs one lookup and one insertion.
  private readonly names = new Map<string, EstimateEntry>();
  /** order is every series in the order of its first value. */
  readonly order: Series[] = [];
  readonly warnings: ReadWarning[] = [];
  private readonly budget: ReadBudget;

  // What the general path reads and sets too.
  /** The last line that was not blank is input[previousStart, previousEnd) while previousStart >= 0 (read() keeps it as a string else). */
  previousStart = -1;
  previousEnd = -1;
  current: Current | undefined = undefined;
  /** fastCurrent is what current is after a time line of the fast path (one object, changed each time). */
  private readonly fastCurrent: Current = { name: '', hasThroughput: false, entry: undefined };
  inChange = false;

  // The usual lines are read in place: a line without a keyword is looked
  // at no further than its first character (keywords, escapes and `\r` are
  // found with indexOf over the whole text, see Finder), an estimate line
  // and a libtest line are read in one pass (fastEstimate, fastLibtest).
  /** odd is the next escape or `\r` (asked of the Finders only once the lines pass it). */
  private odd = -1;
  private readonly escapes: Finder;
  private readonly returns: Finder;
  private readonly colons: Finder;
  private readonly dots: Finder;
  private readonly closings: Finder;
  private readonly estimateNames = new NameOrder<EstimateEntry>();
  private readonly nameCodes = new NameCodes();
  private readonly libtestNames = new NameOrder<LibtestEntry>();
  private readonly libtestEntries = new Map<string, LibtestEntry>();
  private readonly tokens = new Tokens();
  /** Estimate lines are read from a window of the text in a typed array. */
  private readonly window: TextWindow;
  private readonly tail: UsualTail = { value: 0, unitStart: 0 };
  private readonly timeUnits = new UnitCache(CONSOLE_TIME);
  private readonly thrptUnits = new UnitCache(CONSOLE_THROUGHPUT);
  private libtestUnit = '';
  private libtestMetricAndUnit: [string, string] = ['', ''];

  constructor(file: SourceFile) {
    const input = file.text;
    this.path = file.path;
    this.input = input;
    this.cursor = new LineCursor(file);
    this.budget = new ReadBudget(file.path);
    this.escapes = new Finder(input, '\u001b');
    this.returns = new Finder(input, '\r');
    this.colons = new Finder(input, ':');
    this.dots = new Finder(input, ' ... ');
    this.closings = new Finder(input, ']');
    this.window = new TextWindow(input);
  }

  /** add adds a value to the series of benchmark and metric, which must be in `unit` if it has values; returns the series. */
  add(line: number, benchmark: string, metric: string, unit: string, value: number): Series {
    let entry = this.names.get(benchmark);
    if (entry === undefined) this.names.set(benchmark, (entry = nameEntry(benchmark, -1, -1)));
    return this.addTo(entry, line, metric, unit, value);
  }

  /** addTo adds a value as add() does, to the series of entry's name. */
  private addTo(entry: EstimateEntry, line: number, metric: string, unit: string, value: number): Series {
    let known = metric === 'time' ? entry.time : metric === 'throughput' ? entry.throughput : entry.others?.get(metric);
    if (known && known.unit !== unit) {
      throw new FormatError(this.path, line, `benchmark "${entry.name}" ${metric} is in ${unit} here but ${known.unit} earlier`);
    }
    if (!known) {
      this.budget.series(line);
      known = { benchmark: entry.name, metric, unit, values: [] };
      if (metric === 'time') entry.time = known;
      else if (metric === 'throughput') entry.throughput = known;
      else (entry.others ??= new Map()).set(metric, known);
      this.order.push(known);
    }
    this.budget.value(line);
    known.values.push(value);
    return known;
  }

  /** push adds a value as addTo() does, straight to `known` when that is the series of entry's name and metric in this unit. */
  private push(line: number, entry: EstimateEntry, metric: string, unit: string, value: number, known: Series | undefined): void {
    if (known !== undefined && known.unit === unit) {
      this.budget.value(line);
      known.values.push(value);
    } else {
      this.addTo(entry, line, metric, unit, value);
    }
  }

  warn(line: number, warning: ReadWarning): void {
    this.budget.series(line);
    this.warnings.push(warning);
  }

  /**
   * fastRun moves the cursor on and reads its lines for as long as they are
   * the usual ones, FAST_RUN_LINES at most: it returns GENERAL with the
   * cursor at a line for the general path, END past the last line, AGAIN
   * after FAST_RUN_LINES lines.
   */
  fastRun(): number {
    const input = this.input;
    const cursor = this.cursor;
    const colons = this.colons;
    for (let lines = 0; lines < FAST_RUN_LINES; lines++) {
      if (!cursor.next()) return END;
      const { number, start, end } = cursor;
      const first = start < end ? input.charCodeAt(start) : -1;
      if (this.odd < start) this.odd = Math.min(this.escapes.next(start), this.returns.next(start));
      if (first === 116 && input.startsWith('test', start)) {
        if (this.fastLibtest(number, start, end)) {
          // The libtest lines that follow, in a loop of their own.
          const read = this.libtestRun();
          if (read < 0) return GENERAL;
          lines += read;
          continue;
        }
      } else if (this.odd >= end) {
        // The keywords on the line, found by their colon (a single character is found many times faster).
        let time = NOWHERE;
        let thrpt = NOWHERE;
        let change = NOWHERE;
        let keywords = 0;
        for (let colon = colons.next(start); colon < end; colon = colons.next(colon + 1)) {
          if (colon - 4 >= start && input.startsWith('time', colon - 4)) {
            if (time === NOWHERE) time = colon - 4;
          } else if (colon - 5 >= start && input.startsWith('thrpt', colon - 5)) {
            if (thrpt === NOWHERE) thrpt = colon - 5;
          } else if (colon - 6 >= start && input.startsWith('change', colon - 6)) {
            if (change === NOWHERE) change = colon - 6;
          } else continue;
          keywords += 1;
        }
        if (keywords === 0) {
          if (first !== 101 || !input.startsWith('error: bench failed', start)) {
            // No keyword: not a result; only the state of the general path changes.
            if (first >= 0 && !isSpace(first)) {
              this.inChange = false;
              this.previousStart = start;
              this.previousEnd = end;
            } else if (!allSpace(input, start, end)) {
              this.previousStart = start;
              this.previousEnd = end;
            }
            continue;
          }
        } else {
          // One keyword, once: the estimate lines criterion prints.
          const keyword = keywords > 1 ? -1 : time < end ? TIME : thrpt < end ? THRPT : CHANGE;
          if (keyword >= 0 && this.fastEstimate(number, start, end, keyword === TIME ? time : keyword === THRPT ? thrpt : change, keyword)) continue;
        }
      }
      return GENERAL;
    }
    return AGAIN;
  }

  /**
   * libtestRun moves the cursor on over the lines after its own for as long
   * as they start with `test` and fastLibtest reads them, FAST_RUN_LINES at
   * most; it returns how many it read, or -1 with the cursor at a line for the
   * general path. (The escapes and `\r` found for fastRun are not needed:
   * fastLibtest reads such lines itself.)
   */
  private libtestRun(): number {
    const input = this.input;
    const cursor = this.cursor;
    let read = 0;
    // The next line starts after the cursor's `\n` (an empty line, or none, does not start with `test`).
    while (read < FAST_RUN_LINES && input.startsWith('test', cursor.newline + 1)) {
      cursor.next();
      if (!this.fastLibtest(cursor.number, cursor.start, cursor.end)) return -1;
      read += 1;
    }
    return read;
  }

  /** fastEstimate reads a line whose one keyword (time:, thrpt: or change:) is at `at`; false, with nothing changed, for the general path. */
  private fastEstimate(number: number, start: number, end: number, at: number, keyword: number): boolean {
    const input = this.input;
    // A `test` line is libtest's; an `error: bench failed` line may be a warning.
    if (input.startsWith('test', start) || input.startsWith('error: bench failed', start)) return false;
    // The line is read from the window (positions in it: s, e, a), when it holds the whole line.
    const window = this.window;
    window.cover(start);
    if (end > window.limit) return false;
    const codes = window.codes;
    const b = window.base;
    const s = start - b;
    const e = end - b;
    const a = at - b;
    const margin = s < e && !isSpace(codes[s]);
    const changing = margin ? false : this.inChange;
    if (keyword === CHANGE) {
      // As CHANGE_BLOCK: white space around `change:` and nothing else; any other such line is no result.
      this.inChange = allSpaceIn(codes, s, a) && allSpaceIn(codes, a + 7, e) ? true : changing;
    } else {
      const length = keyword === TIME ? 5 : 6;
      if (keyword === TIME ? a > s && isWordChar(codes[a - 1]) : !allSpaceIn(codes, s, a)) return false;
      // The keyword ends before the line's end: open is at most e.
      let open = a + length;
      if (!isSpace(codes[open]) || open >= e) return false;
      while (open < e && space(codes[open])) open += 1;
      if (open >= e || codes[open] !== 0x5b) return false;
      let nameStart = s;
      let nameEnd = a;
      if (keyword === TIME) {
        while (nameStart < nameEnd && space(codes[nameStart])) nameStart += 1;
        while (nameEnd > nameStart && space(codes[nameEnd - 1])) nameEnd -= 1;
      }
      nameStart += b;
      nameEnd += b;
      // In a change block the estimate is ignored whatever it holds: it only needs its `]`.
      const inBlock = keyword === TIME ? nameStart === nameEnd && changing : changing;
      const tokens = this.tokens;
      if (inBlock ? this.closings.next(open + b + 1) >= end : !tokens.readCodes(codes, b, open + 1, e)) return false;
      const ignored = inBlock || tokens.percent;
      if (!ignored) {
        // A name on the line before, a thrpt line without its time line, and any error: the general path.
        const current = this.current;
        if (keyword === TIME ? nameStart === nameEnd : current === undefined || current.hasThroughput) return false;
        if (tokens.count !== 6) return false;
        let value = tokens.values[2];
        if (value !== value) value = readDecimal(input, tokens.starts[2], tokens.ends[2]);
        let low = tokens.values[0];
        if (low !== low) low = readDecimal(input, tokens.starts[0], tokens.ends[0]);
        let high = tokens.values[4];
        if (high !== high) high = readDecimal(input, tokens.starts[4], tokens.ends[4]);
        if (!(value >= 0) || low !== low || high !== high) return false;
        const cache = keyword === TIME ? this.timeUnits : this.thrptUnits;
        if (!cache.read(input, tokens.starts[3], tokens.ends[3])) return false;
        // A name's series are kept with it (EstimateEntry): a known name costs no key and no lookup.
        if (keyword === TIME) {
          // The names expected next are compared in the window, with their units in nameCodes.
          const names = this.estimateNames;
          let entry = sameCodes(codes, nameStart - b, nameEnd - b, this.nameCodes.codes, names.candidate(0));
          entry ??= sameCodes(codes, nameStart - b, nameEnd - b, this.nameCodes.codes, names.candidate(1));
          entry ??= this.estimateEntry(nameStart, nameEnd);
          this.push(number, entry, 'time', cache.unit, value * cache.factor, entry.time);
          names.record(entry);
          const known = this.fastCurrent;
          known.name = entry.name;
          known.hasThroughput = false;
          known.entry = entry;
          this.current = known;
        } else {
          const known = current as Current;
          const entry = known.entry;
          if (entry === undefined) this.add(number, known.name, 'throughput', cache.unit, value * cache.factor);
          else this.push(number, entry, 'throughput', cache.unit, value * cache.factor, entry.throughput);
          known.hasThroughput = true;
        }
        this.inChange = false;
      } else {
        this.inChange = changing;
      }
    }
    this.previousStart = start;
    this.previousEnd = end;
    return true;
  }

  /** estimateEntry returns the entry of the name at input[nameStart, nameEnd) with its units in nameCodes, a new one if it has none yet. */
  private estimateEntry(nameStart: number, nameEnd: number): EstimateEntry {
    const name = this.input.slice(nameStart, nameEnd);
    let entry = this.names.get(name);
    if (entry === undefined) this.names.set(name, (entry = nameEntry(name, nameStart, this.nameCodes.add(name))));
    else if (entry.codes < 0) entry.codes = this.nameCodes.add(name);
    return entry;
  }

  /** fastLibtest reads `test NAME ... bench: V UNIT (+/- D)`; false, with nothing changed, for the general path. */
  private fastLibtest(number: number, start: number, end: number): boolean {
    const input = this.input;
    // Found without the keyword Finders: known names hold no keyword, escape or `\r`, the
    // white space read here is spaces and tabs, and the tail's tokens are checked by tokens.read.
    if (input.charCodeAt(start + 4) !== 32) return false;
    // The name is trimmed (libtest pads it to a column) and ends at the last ` ... `.
    let nameStart = start + 5;
    let c = 0;
    while (nameStart < end && ((c = input.charCodeAt(nameStart)) === 32 || c === 9)) nameStart += 1;
    if (nameStart === end || isSpace(c)) return false;
    let nameEnd = -1;
    let at = -1;
    // The name expected next, then ` ... bench:` after white space: no search for the last ` ... ` (the
    // tail read below holds none, unless its unit is `...`).
    const libtestNames = this.libtestNames;
    let entry: LibtestEntry | undefined;
    for (let k: 0 | 1 = 0; entry === undefined; k = 1) {
      const candidate = libtestNames.candidate(k);
      const e = candidate === undefined ? end + 1 : nameStart + candidate.name.length;
      // A slice compared with ===: V8 compares a name of this length faster than a loop of charCodeAt.
      if (candidate !== undefined && e <= end && input.slice(nameStart, e) === candidate.name) {
        let dot = e;
        while (dot < end && ((c = input.charCodeAt(dot)) === 32 || c === 9)) dot += 1;
        if (dot > e && input.charCodeAt(dot - 1) === 32 && input.startsWith('... bench:', dot)) {
          entry = candidate;
          nameEnd = e;
          at = dot - 1;
        }
      }
      if (k === 1) break;
    }
    if (entry === undefined) {
      const dots = this.dots;
      at = dots.next(start);
      if (at >= end) return false;
      for (let later = dots.next(at + 1); later < end; later = dots.next(at + 1)) at = later;
      nameEnd = at;
      while (nameEnd > nameStart && isSpace(input.charCodeAt(nameEnd - 1))) nameEnd -= 1;
      if (nameEnd <= nameStart || !input.startsWith('bench:', at + 5) || LIBTEST_ODD.test(input.slice(start, at + 11))) return false;
    }
    // The tail: `V UNIT (+/- D)`, usually with the unit of the line before (usualTail), else cut into tokens.
    let value: number;
    let unitStart: number;
    let unitEnd: number;
    const libtestUnit = this.libtestUnit;
    const tail = this.tail;
    const usual = usualTail(input, at + 11, end, libtestUnit, tail);
    if (usual) {
      value = tail.value;
      unitStart = tail.unitStart;
      unitEnd = unitStart + libtestUnit.length;
    } else {
      const tokens = this.tokens;
      if (!tokens.read(input, at + 11, end, false) || tokens.odd || tokens.count !== 4 || !tokens.is(input, 2, '(+/-') || input.charCodeAt(tokens.ends[3] - 1) !== 0x29) return false;
      if (entry !== undefined && tokens.is(input, 1, '...')) return false;
      value = readDecimal(input, tokens.starts[0], tokens.ends[0]);
      unitStart = tokens.starts[1];
      unitEnd = tokens.ends[1];
    }
    if (!(value >= 0)) return false;
    // usualTail found the unit of the line before; tokens may have found another.
    if (!usual && !sameText(input, unitStart, unitEnd, libtestUnit)) {
      this.libtestUnit = input.slice(unitStart, unitEnd);
      this.libtestMetricAndUnit = libtestMetric(this.libtestUnit);
    }
    const [metric, reported] = this.libtestMetricAndUnit;
    entry ??= libtestNames.find(input, nameStart, nameEnd);
    if (entry === undefined) {
      const name = input.slice(nameStart, nameEnd);
      entry = this.libtestEntries.get(name);
      if (entry === undefined) this.libtestEntries.set(name, (entry = { name, at: nameStart, next: undefined, metric: '', unit: '', values: undefined }));
    }
    if (entry.values !== undefined && entry.metric === metric && entry.unit === reported) {
      this.budget.value(number);
      entry.values.push(value);
    } else {
      entry.values = this.add(number, entry.name, metric, reported, value).values;
      entry.metric = metric;
      entry.unit = reported;
    }
    libtestNames.record(entry);
    this.current = undefined;
    this.inChange = false;
    this.previousStart = start;
    this.previousEnd = end;
    return true;
  }
}

const TIME = 0;
const THRPT = 1;
const CHANGE = 2;

/** Series is the values of one benchmark and metric, in one unit. */
interface Series {
  benchmark: string;
  metric: string;
  unit: string;
  values: number[];
}

/** Current is the benchmark of the last time line, which a thrpt line belongs to; entry holds its series when the fast path read it. */
interface Current {
  name: string;
  hasThroughput: boolean;
  entry: EstimateEntry | undefined;
}

/** EstimateEntry is a benchmark name with its series (the fast path's estimate lines name it by its entry). */
interface EstimateEntry extends NamedEntry {
  /** codes is where the name's units start in the reader's NameCodes, -1 until an estimate line of the fast path named it. */
  codes: number;
  time: Series | undefined;
  throughput: Series | undefined;
  /** others holds the series of other metrics (libtest's custom units), once there is one. */
  others: Map<string, Series> | undefined;
}

/** nameEntry is a new EstimateEntry, without series. */
function nameEntry(name: string, at: number, codes: number): EstimateEntry {
  return { name, at, next: undefined, codes, time: undefined, throughput: undefined, others: undefined };
}

/** LibtestEntry is a libtest name with the series its last line went to. */
interface LibtestEntry extends NamedEntry {
  metric: string;
  unit: string;
  values: number[] | undefined;
}

/** LIBTEST_ODD finds what sends a libtest line the general way: an escape, a `\r`, a keyword of the estimate lines. */
const LIBTEST_ODD = /[\u001b\r]|time:|thrpt:|change:/;

/** allSpace says whether text[start, end) is all white space (or empty); read from its end (the lines asked about, indented, end in a word). */
function allSpace(text: string, start: number, end: number): boolean {
  for (let i = end - 1; i >= start; i--) if (!space(text.charCodeAt(i))) return false;
  return true;
}

/** space is isSpace with the usual white space, a space, decided first (where runs of spaces are read). */
function space(c: number): boolean {
  return c === 32 || isSpace(c);
}

/** sameCodes returns entry when codes[start, end) is its name, whose units are at entry.codes in `names`. */
function sameCodes(codes: Uint16Array, start: number, end: number, names: Uint16Array, entry: EstimateEntry | undefined): EstimateEntry | undefined {
  if (entry === undefined || entry.name.length !== end - start) return undefined;
  const at = entry.codes - start;
  for (let i = end - 1; i >= start; i--) if (codes[i] !== names[at + i]) return undefined;
  return entry;
}

/** allSpaceIn says whether codes[start, end) is all white space (or empty). */
function allSpaceIn(codes: Uint16Array, start: number, end: number): boolean {
  for (let i = start; i < end; i++) if (!space(codes[i])) return false;
  return true;
}

/** UsualTail is what usualTail read. */
interface UsualTail {
  value: number;
  unitStart: number;
}

/**
 * usualTail reads the tail of the usual libtest line after `bench:`, in one
 * pass: spaces, a number, one space, `unit` (the unit of the line before; not
 * `...`, which would hold the last ` ... `), one space, `(+/-`, one space, a
 * token ending in `)` without white space, `:` or escapes in it, then spaces
 * or tabs to the end. The value is NaN when readDecimal cannot read it.
 */
function usualTail(text: string, p: number, end: number, unit: string, tail: UsualTail): boolean {
  if (unit === '' || unit === '...') return false;
  let c = 0;
  while (p < end && ((c = text.charCodeAt(p)) === 32 || c === 9)) p += 1;
  // The value, read as it is scanned when it is the usual one: digits, each comma followed by three
  // digits and then none (a thousands separator), at most one dot and no comma after it; else readDecimal.
  const valueStart = p;
  let mantissa = 0;
  let digits = 0;
  let dot = -1;
  let comma = -1;
  let usual = true;
  for (; p < end; p++) {
    c = text.charCodeAt(p);
    if (c >= 48 && c <= 57) {
      mantissa = mantissa * 10 + (c - 48);
      digits += 1;
      continue;
    }
    if (comma >= 0 && p - comma !== 4) usual = false;
    comma = -1;
    if (c === 44) {
      if (dot >= 0) usual = false;
      comma = p;
    } else if (c === 46) {
      if (dot >= 0) usual = false;
      dot = p;
    } else break;
  }
  if (p === valueStart || c !== 32) return false;
  if (comma >= 0 && p - comma !== 4) usual = false;
  const unitStart = p + 1;
  const unitEnd = unitStart + unit.length;
  if (unitEnd + 6 > end || !sameText(text, unitStart, unitEnd, unit) || text.charCodeAt(unitEnd) !== 32 || !text.startsWith('(+/- ', unitEnd + 1)) return false;
  p = unitEnd + 6;
  const deviation = p;
  while (p < end && (c = text.charCodeAt(p)) > 32 && c < 127 && c !== 58) p += 1;
  if (p === deviation || text.charCodeAt(p - 1) !== 0x29) return false;
  while (p < end && ((c = text.charCodeAt(p)) === 32 || c === 9)) p += 1;
  if (p !== end) return false;
  // Up to 15 digits the mantissa is exact and an exact power of ten divides it with one rounding, as Number() rounds.
  tail.value = usual && digits > 0 && digits <= 15 ? (dot < 0 ? mantissa : mantissa / POWERS_OF_TEN[unitStart - 2 - dot]) : readDecimal(text, valueStart, unitStart - 1);
  tail.unitStart = unitStart;
  return true;
}

/** MAX_TOKENS is how many tokens Tokens keeps the place of; it counts them all. */
const MAX_TOKENS = 8;

/**
 * Tokens cuts part of a line into its white-space-separated tokens in place,
 * as `.trim().split(/\s+/)` would when spaces and tabs are the only white
 * space in it: read() says false on any other (the general path then reads
 * the line).
 */
class Tokens {
  count = 0;
  /** percent says whether a token holds `%` (criterion's change estimates). */
  percent = false;
  /** odd says whether a token holds `:` (which a keyword needs) or an escape. */
  odd = false;
  readonly starts = new Int32Array(MAX_TOKENS);
  readonly ends = new Int32Array(MAX_TOKENS);
  /**
   * values[i] is token i's value as readDecimal reads it when readCodes read
   * it and it is a plain decimal (digits, at most one dot, at most 15 digits:
   * an exact integer over an exact power of ten, rounded once as Number()
   * rounds), else NaN.
   */
  readonly values = new Float64Array(MAX_TOKENS);

  /** read cuts text[from, end), up to the first `]` when `bracket` (false when there is none), into tokens. */
  read(text: string, from: number, end: number, bracket: boolean): boolean {
    let count = 0;
    let percent = false;
    let odd = false;
    let p = from;
    let c = 0;
    for (;;) {
      while (p < end && ((c = text.charCodeAt(p)) === 32 || c === 9)) p += 1;
      if (p >= end) {
        if (bracket) return false;
        break;
      }
      if (bracket && c === 0x5d) break;
      const start = p;
      for (; p < end; p++) {
        c = text.charCodeAt(p);
        if (c === 32 || c === 9 || (bracket && c === 0x5d)) break;
        if (c < 32 ? c >= 10 && c <= 13 : c >= 0xa0 && isSpace(c)) return false;
        if (c === 37) percent = true;
        else if (c === 58 || c === 27) odd = true;
      }
      if (count < MAX_TOKENS) {
        this.starts[count] = start;
        this.ends[count] = p;
      }
      count += 1;
    }
    this.count = count;
    this.percent = percent;
    this.odd = odd;
    return true;
  }

  /** readCodes reads as read(…, true) does, from `codes`, a window of the text that starts at `base` and holds codes[from, end); positions kept are the text's. */
  readCodes(codes: Uint16Array, base: number, from: number, end: number): boolean {
    let count = 0;
    let percent = false;
    let odd = false;
    let p = from;
    let c = 0;
    for (;;) {
      while (p < end && ((c = codes[p]) === 32 || c === 9)) p += 1;
      if (p >= end) return false;
      if (c === 0x5d) break;
      const start = p;
      // The token's value when it is a plain decimal (see values), read as it is scanned.
      let mantissa = 0;
      let dot = -1;
      let plain = true;
      for (; p < end; p++) {
        c = codes[p];
        if (c >= 48 && c <= 57) {
          mantissa = mantissa * 10 + (c - 48);
          continue;
        }
        if (c === 46 && dot < 0) {
          dot = p;
          continue;
        }
        if (c === 32 || c === 9 || c === 0x5d) break;
        plain = false;
        if (c < 32 ? c >= 10 && c <= 13 : c >= 0xa0 && isSpace(c)) return false;
        if (c === 37) percent = true;
        else if (c === 58 || c === 27) odd = true;
      }
      if (count < MAX_TOKENS) {
        this.starts[count] = start + base;
        this.ends[count] = p + base;
        const digits = p - start - (dot < 0 ? 0 : 1);
        this.values[count] = !plain || digits === 0 || digits > 15 ? NaN : dot < 0 || dot === p - 1 ? mantissa : mantissa / POWERS_OF_TEN[p - dot - 1];
      }
      count += 1;
    }
    this.count = count;
    this.percent = percent;
    this.odd = odd;
    return true;
  }

  /** is says whether token i is `word`. */
  is(text: string, i: number, word: string): boolean {
    return sameText(text, this.starts[i], this.ends[i], word);
  }
}

/** UnitCache turns the unit printed in an estimate into benchbot's unit and factor, keeping the last one. */
class UnitCache {
  unit = '';
  factor = 1;
  private printed: string | undefined;
  private readonly table: Record<string, [string, number]>;

  constructor(table: Record<string, [string, number]>) {
    this.table = table;
  }

  /** read takes the unit printed at text[start, end). */
  read(text: string, start: number, end: number): boolean {
    if (this.printed !== undefined && sameText(text, start, end, this.printed)) return true;
    const printed = text.slice(start, end);
    const known = Object.hasOwn(this.table, printed) ? this.table[printed] : undefined;
    // As estimate(): a unit the table does not know is kept as printed.
    [this.unit, this.factor] = known ?? [printed, 1];
    this.printed = printed;
    return true;
  }
}

/**
 * timeEstimate finds criterion's `NAME time: [...]` on a line: the first
 * `time:` at a word start followed by white space, `[`, and a `]` later on.
 * It returns the text before it and the bracket's inside. A scan with
 * indexOf, not `^(.*?)\s*\btime:\s+\[([^\]]*)\]`, which is quadratic on a
 * long line (every lazy step rescans the white space after it).
 */
function timeEstimate(text: string): { name: string; inner: string } | undefined {
  for (let at = text.indexOf('time:'); at >= 0; at = text.indexOf('time:', at + 5)) {
    if (at > 0 && isWordChar(text.charCodeAt(at - 1))) continue;
    let open = at + 5;
    if (!isSpace(text.charCodeAt(open))) continue;
    while (isSpace(text.charCodeAt(open))) open += 1;
    if (text.charCodeAt(open) !== 0x5b) continue;
    const close = text.indexOf(']', open + 1);
    // No `]` after this `time:` means none after any later one either.
    if (close < 0) return undefined;
    return { name: text.slice(0, at), inner: text.slice(open + 1, close) };
  }
  return undefined;
}

/**
 * truncatedEstimate says whether a `time: [` or `thrpt: [` on the line has
 * no `]` after it. Only keywords after the last `]` can qualify, so only
 * those are looked at: `/\b(time|thrpt):\s+\[[^\]]*$/` rescanned to the
 * end of the line from every `time: [` before it (quadratic).
 */
function truncatedEstimate(text: string): boolean {
  const after = text.lastIndexOf(']') + 1;
  for (const keyword of ['time:', 'thrpt:']) {
    for (let at = text.indexOf(keyword, after); at >= 0; at = text.indexOf(keyword, at + keyword.length)) {
      if (at > 0 && isWordChar(text.charCodeAt(at - 1))) continue;
      let open = at + keyword.length;
      if (!isSpace(text.charCodeAt(open))) continue;
      while (isSpace(text.charCodeAt(open))) open += 1;
      if (text.charCodeAt(open) === 0x5b) return true;
    }
  }
  return false;
}

function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** estimate reads criterion's `[low unit mid unit high unit]` and returns the middle value in the base unit. */
function estimate(path: string, line: number, inner: string, units: Record<string, [string, number]>): [number, string] {
  const tokens = inner.trim().split(/\s+/);
  if (tokens.length !== 6) throw new FormatError(path, line, `expected [low unit estimate unit high unit], got [${inner.trim()}]`);
  const value = parseFiniteNumber(tokens[2]);
  if (value === undefined || value < 0) throw new FormatError(path, line, `not a number: "${tokens[2]}"`);
  for (const i of [0, 4]) {
    if (parseFiniteNumber(tokens[i]) === undefined) throw new FormatError(path, line, `not a number: "${tokens[i]}"`);
  }
  // Own keys only: a unit spelled like an Object.prototype property (`toString`) is no known unit.
  const known = Object.hasOwn(units, tokens[3]) ? units[tokens[3]] : undefined;
  // A custom criterion Measurement prints its own unit: keep it as printed.
  const [unit, factor] = known ?? [tokens[3], 1];
  return [value * factor, unit];
}

/** LibtestLine is a `test NAME ... bench: V UNIT (+/- D)` line's fields, or its `ignored` / `FAILED` outcome. */
type LibtestLine =
  | { outcome: 'bench'; name: string; value: string; unit: string; megabytes?: string }
  | { outcome: 'ignored' | 'FAILED'; name: string };

/**
 * libtestLine reads a libtest result line by its fixed tail, found with
 * lastIndexOf and split on white space once: the name before ` ... ` may hold
 * spaces and parentheses, and `^test\s+(.+?)\s+\.\.\.` would be quadratic on
 * a long line of spaces. Undefined for any other line.
 */
function libtestLine(text: string): LibtestLine | undefined {
  if (!text.startsWith('test') || !isSpace(text.charCodeAt(4))) return undefined;
  const at = text.lastIndexOf(' ... ');
  if (at < 4) return undefined;
  const name = text.slice(5, at).trim();
  if (name === '') return undefined;
  const after = text.slice(at + 5);
  if (after.startsWith('bench:')) {
    const tokens = after.slice(6).trim().split(/\s+/);
    if (tokens.length !== 4 && tokens.length !== 7) return undefined;
    if (tokens[2] !== '(+/-' || !tokens[3].endsWith(')')) return undefined;
    if (tokens.length === 7 && (tokens[4] !== '=' || tokens[6] !== 'MB/s')) return undefined;
    return { outcome: 'bench', name, value: tokens[0], unit: tokens[1], megabytes: tokens.length === 7 ? tokens[5] : undefined };
  }
  for (const outcome of ['ignored', 'FAILED'] as const) {
    if (after.startsWith(outcome) && !isWordChar(after.charCodeAt(outcome.length))) return { outcome, name };
  }
  return undefined;
}

const LIBTEST_TIME_UNITS = new Set(['ps', 'ns', 'us', 'µs', 'μs', 'ms', 's']);

/**
 * libtestMetric names the metric of a `bench:` unit and the unit reported:
 * a time per iteration is `time` as printed, a rate is `throughput` in that
 * rate (without `/iter`), anything else (a custom measurement) is named after
 * its unit (`cycles/iter` is metric `cycles`).
 */
function libtestMetric(printed: string): [string, string] {
  const base = printed.endsWith('/iter') ? printed.slice(0, -5) : printed;
  if (LIBTEST_TIME_UNITS.has(base)) return ['time', printed];
  if (base.endsWith('/s')) return ['throughput', base];
  return [base === '' ? printed : base, printed];
}

function libtestNumber(path: string, line: number, text: string): number {
  const value = parseFiniteNumber(text);
  if (value === undefined || value < 0) throw new FormatError(path, line, `not a number: "${text}"`);
  return value;
}
