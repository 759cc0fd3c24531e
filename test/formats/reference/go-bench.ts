// The Go reader as it was before its fast path (commit 4d577bc), kept verbatim
// as the reference that test/formats/fast-readers.test.ts compares it with.
import type { FingerprintHints, Measurement, ReadWarning } from '../../../src/model/measurement.ts';
import { FormatError } from '../../../src/formats/format-error.ts';
import type { ReadResult, Reader, SourceFile } from '../../../src/formats/reader.ts';
import { ReadBudget } from '../../../src/formats/input-limits.ts';
import { parseFiniteNumber, splitLines } from './text-lines.ts';
import { directionOf, isTimeUnit } from '../../../src/model/units.ts';

/** A Go benchmark name: `Benchmark` then nothing or a character that is not a lower-case letter (Go's own rule). */
const BENCHMARK_NAME = /^Benchmark($|[^a-z])/;
const PROCS_SUFFIX = /-(\d+)$/;
const CONFIG_LINE = /^([a-z][^\s:]*):(?:\s+(.*))?$/;
/** Config keys that describe the machine; other `key: value` lines are often stray program output. */
const HINT_KEYS = new Set(['goos', 'goarch', 'cpu']);

/** Units the testing package computes from unsigned counts: never negative. */
const NON_NEGATIVE_UNITS = new Set(['B/op', 'allocs/op', 'MB/s']);

/** Series is one benchmark's values of one unit at one GOMAXPROCS, as read. */
interface Series {
  procs: number;
  unit: string;
  values: number[];
}

/** Group is one benchmark of one package; its series are named once the whole file is read. */
interface Group {
  pkg: string;
  base: string;
  procs: Set<number>;
  series: Map<string, Series>;
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
    const lines = splitLines(file);
    const budget = new ReadBudget(file.path);
    const warnings: ReadWarning[] = [];
    const hints: FingerprintHints = {};
    const pendingWarnings: { pkg: string; base: string | undefined; message: string; kind: 'error' | 'skipped' }[] = [];
    // Values go straight into their series (no object per result line): a
    // 256 MiB output holds over ten million lines.
    const groups = new Map<string, Map<string, Group>>();
    const packages = new Set<string>();
    const allProcs = new Set<number>();
    let results = 0;
    let pkg = '';

    for (const { number, text } of lines) {
      // Each pattern runs only on lines that start the way it needs, so junk lines cost a character test.
      const first = text.charCodeAt(0);
      const config = first >= 97 && first <= 122 ? CONFIG_LINE.exec(text) : null;
      if (config) {
        const [, key, rawValue] = config;
        const value = (rawValue ?? '').trim();
        if (key === 'pkg') pkg = value;
        else if (HINT_KEYS.has(key) && value !== '' && hints[key] === undefined) hints[key] = value;
        continue;
      }
      const status = first === 45 ? /^--- (FAIL|SKIP): (\S+)/.exec(text) : null;
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
      const pkgFail = first === 70 ? /^FAIL\s+(\S+)/.exec(text) : null;
      if (pkgFail) {
        budget.series(number);
        pendingWarnings.push({ pkg: pkgFail[1], base: undefined, message: `package ${pkgFail[1]} failed: ${text.trim().replace(/\s+/g, ' ')}`, kind: 'error' });
        continue;
      }
      if (first !== 66 || !BENCHMARK_NAME.test(text)) continue;
      const fields = text.trim().split(/\s+/);
      // A bare name (printed under -v before sub-benchmarks) or a name followed by
      // the benchmark's own stdout is not a result; a result has an iteration count.
      if (fields.length < 2 || !/^\d+$/.test(fields[1])) continue;
      if (fields.length < 4 || fields.length % 2 !== 0) {
        throw new FormatError(file.path, number, `benchmark result "${fields[0]}" needs value/unit pairs after the iteration count`);
      }
      const units = new Set<string>();
      for (let i = 2; i < fields.length; i += 2) {
        const value = parseFiniteNumber(fields[i]);
        const unit = fields[i + 1];
        if (value === undefined) throw new FormatError(file.path, number, `${fields[0]}: "${fields[i]}" is not a finite number`);
        if (units.has(unit)) throw new FormatError(file.path, number, `${fields[0]}: unit ${unit} appears twice`);
        if (value < 0 && (isTimeUnit(unit) || NON_NEGATIVE_UNITS.has(unit))) {
          throw new FormatError(file.path, number, `${fields[0]}: negative ${unit} (${fields[i]}); a time or size cannot be below zero`);
        }
        units.add(unit);
      }
      const { base, procs } = stripProcs(fields[0]);
      let byBase = groups.get(pkg);
      if (!byBase) groups.set(pkg, (byBase = new Map()));
      let group = byBase.get(base);
      if (!group) byBase.set(base, (group = { pkg, base, procs: new Set(), series: new Map() }));
      group.procs.add(procs);
      for (let i = 2; i < fields.length; i += 2) {
        const unit = fields[i + 1];
        const key = `${procs}\u0000${unit}`;
        let series = group.series.get(key);
        if (!series) {
          budget.series(number);
          group.series.set(key, (series = { procs, unit, values: [] }));
        }
        budget.value(number);
        series.values.push(parseFiniteNumber(fields[i]) as number);
      }
      packages.add(pkg);
      allProcs.add(procs);
      results += 1;
    }

    if (results === 0 && pendingWarnings.length === 0) {
      throw new FormatError(file.path, undefined, 'no Go benchmark result lines (BenchmarkX  N  value unit ...) found');
    }

    const qualifyPackage = packages.size > 1;
    const qualified = (p: string, base: string) => (qualifyPackage && p !== '' ? `${p}.${base}` : base);

    const measurements: Measurement[] = [];
    for (const byBase of groups.values()) {
      for (const group of byBase.values()) {
        const name = qualified(group.pkg, group.base);
        const severalProcs = group.procs.size > 1;
        // With one GOMAXPROCS the procs part of the key is the same for all, so
        // series keep the order in which their units first appeared.
        for (const { procs, unit, values } of group.series.values()) {
          const metric = unit === 'ns/op' ? 'time' : unit;
          measurements.push({ benchmark: severalProcs ? `${name}/procs=${procs}` : name, metric, unit, better: directionOf(metric, unit), values });
        }
      }
    }

    for (const w of pendingWarnings) {
      warnings.push(w.base === undefined ? { message: w.message, kind: w.kind } : { message: w.message, benchmark: qualified(w.pkg, w.base), kind: w.kind });
    }

    if (allProcs.size === 1) hints.gomaxprocs = [...allProcs][0];
    else if (allProcs.size > 1) hints.gomaxprocs = [...allProcs].join(',');
    const pkgs = [...packages].filter((p) => p !== '');
    if (pkgs.length > 0) hints.pkg = pkgs.join(',');

    return { measurements, warnings, hints };
  },
};

/** stripProcs splits `BenchmarkX/y-8` into `BenchmarkX/y` and 8; Go prints no suffix for GOMAXPROCS=1. */
function stripProcs(name: string): { base: string; procs: number } {
  const m = PROCS_SUFFIX.exec(name);
  if (!m) return { base: name, procs: 1 };
  return { base: name.slice(0, m.index), procs: Number(m[1]) };
}
