import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { parseFiniteNumber, splitLines } from './text-lines.ts';
import { directionOf } from './units.ts';

/** A Go benchmark name: `Benchmark` then nothing or a character that is not a lower-case letter (Go's own rule). */
const BENCHMARK_NAME = /^Benchmark($|[^a-z])/;
const PROCS_SUFFIX = /-(\d+)$/;
const CONFIG_LINE = /^([a-z][^\s:]*):(?:\s+(.*))?$/;
/** Config keys that describe the machine; other `key: value` lines are often stray program output. */
const HINT_KEYS = new Set(['goos', 'goarch', 'cpu']);

interface Row {
  pkg: string;
  base: string;
  procs: number;
  metrics: [unit: string, value: number][];
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
    const rows: Row[] = [];
    const warnings: ReadWarning[] = [];
    const hints: FingerprintHints = {};
    const pendingWarnings: { pkg: string; base: string | undefined; message: string; kind: 'error' | 'skipped' }[] = [];
    const packages: string[] = [];
    let pkg = '';

    for (const { number, text } of lines) {
      const config = CONFIG_LINE.exec(text);
      if (config) {
        const [, key, rawValue] = config;
        const value = (rawValue ?? '').trim();
        if (key === 'pkg') pkg = value;
        else if (HINT_KEYS.has(key) && value !== '' && hints[key] === undefined) hints[key] = value;
        continue;
      }
      const status = /^--- (FAIL|SKIP): (\S+)/.exec(text);
      if (status) {
        const failed = status[1] === 'FAIL';
        pendingWarnings.push({
          pkg,
          base: stripProcs(status[2]).base,
          message: failed ? `${status[2]} failed` : `${status[2]} was skipped`,
          kind: failed ? 'error' : 'skipped',
        });
        continue;
      }
      const pkgFail = /^FAIL\s+(\S+)/.exec(text);
      if (pkgFail) {
        pendingWarnings.push({ pkg: pkgFail[1], base: undefined, message: `package ${pkgFail[1]} failed: ${text.trim().replace(/\s+/g, ' ')}`, kind: 'error' });
        continue;
      }
      if (!BENCHMARK_NAME.test(text)) continue;
      const fields = text.trim().split(/\s+/);
      // A bare name (printed under -v before sub-benchmarks) or a name followed by
      // the benchmark's own stdout is not a result; a result has an iteration count.
      if (fields.length < 2 || !/^\d+$/.test(fields[1])) continue;
      if (fields.length < 4 || fields.length % 2 !== 0) {
        throw new FormatError(file.path, number, `benchmark result "${fields[0]}" needs value/unit pairs after the iteration count`);
      }
      const metrics: [string, number][] = [];
      for (let i = 2; i < fields.length; i += 2) {
        const value = parseFiniteNumber(fields[i]);
        if (value === undefined) throw new FormatError(file.path, number, `${fields[0]}: "${fields[i]}" is not a finite number`);
        const unit = fields[i + 1];
        if (metrics.some(([u]) => u === unit)) throw new FormatError(file.path, number, `${fields[0]}: unit ${unit} appears twice`);
        metrics.push([unit, value]);
      }
      const { base, procs } = stripProcs(fields[0]);
      rows.push({ pkg, base, procs, metrics });
      if (!packages.includes(pkg)) packages.push(pkg);
    }

    if (rows.length === 0 && pendingWarnings.length === 0) {
      throw new FormatError(file.path, undefined, 'no Go benchmark result lines (BenchmarkX  N  value unit ...) found');
    }

    const qualifyPackage = packages.length > 1;
    const qualified = (p: string, base: string) => (qualifyPackage && p !== '' ? `${p}.${base}` : base);

    // Group rows by package, then benchmark, with nested maps: on 100 MB
    // inputs, hashing a concatenated composite key per row dominated the
    // reading time.
    const byPackage = new Map<string, Map<string, Row[]>>();
    for (const row of rows) {
      let byBase = byPackage.get(row.pkg);
      if (!byBase) byPackage.set(row.pkg, (byBase = new Map()));
      const group = byBase.get(row.base);
      if (group) group.push(row);
      else byBase.set(row.base, [row]);
    }
    const groups = [...byPackage.values()].flatMap((byBase) => [...byBase.values()]);

    const measurements: Measurement[] = [];
    for (const group of groups) {
      const name = qualified(group[0].pkg, group[0].base);
      const severalProcs = group.some((row) => row.procs !== group[0].procs);
      const byKey = new Map<string, Measurement>();
      for (const row of group) {
        const prefix = severalProcs ? `${row.procs}\u0000` : '';
        for (const [unit, value] of row.metrics) {
          const metric = unit === 'ns/op' ? 'time' : unit;
          const key = prefix + metric;
          let m = byKey.get(key);
          if (!m) {
            m = { benchmark: severalProcs ? `${name}/procs=${row.procs}` : name, metric, unit, better: directionOf(metric, unit), values: [] };
            byKey.set(key, m);
          }
          m.values.push(value);
        }
      }
      measurements.push(...byKey.values());
    }

    for (const w of pendingWarnings) {
      warnings.push(w.base === undefined ? { message: w.message, kind: w.kind } : { message: w.message, benchmark: qualified(w.pkg, w.base), kind: w.kind });
    }

    const allProcs = [...new Set(rows.map((r) => r.procs))];
    if (allProcs.length === 1) hints.gomaxprocs = allProcs[0];
    else if (allProcs.length > 1) hints.gomaxprocs = allProcs.join(',');
    const pkgs = packages.filter((p) => p !== '');
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
