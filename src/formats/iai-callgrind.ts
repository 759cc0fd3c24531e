import type { Measurement } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import { ReadBudget } from './input-limits.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { checkText } from './json-document.ts';
import { isSpace } from './text-lines.ts';

/** The longest metric label read (`Total read+write`, `At t-gmax blocks`); longer indented `Label:` lines are not metrics. */
const MAX_LABEL = 48;
const LABEL = /^[A-Za-z][A-Za-z0-9 +.-]*$/;
/** What follows `Label:`: the new value, the old one after `|` (or N/A), then `(change)` and `[factor]` in any number. */
const VALUES = /[ \t]+(\d+(?:\.\d+)?|N\/A)(?:\|(?:\d+(?:\.\d+)?|N\/A))?(?:[ \t]+(?:\([^()]*\)|\[[^[\]]*\]))*[ \t]*$/y;
const ANSI = /\u001b\[[0-9;]*m/g;
const DEFAULT_TOOL = 'CALLGRIND';

/**
 * iaiCallgrindReader reads the summary iai-callgrind (and gungraun, its
 * later name) prints under `cargo bench`: a benchmark's name at the start of
 * a line (`lib::group::bench_fib short:10`, an id spanning lines joined by
 * spaces), then one indented `Label: NEW|OLD (change) [factor]` line per
 * metric, `NEW` alone or `NEW (No change)` in older versions.
 *
 * Each label is a metric of its own, named as printed (`Instructions`,
 * `L1 Hits`, `Estimated Cycles`), with the NEW value: Valgrind counts events,
 * so the value is exact and deterministic, one per run, and the same code
 * gives the same count (repeated runs, as `benchbot run` makes them, are
 * identical, and any difference is a real one). Counts are unit `count`,
 * lower-is-better; `... Rate` labels are `%`, a hit rate higher-is-better.
 * Metrics under a tool heading other than Callgrind's (`======= DHAT ===`)
 * are prefixed with the tool (`DHAT Total bytes`) and listed after
 * Callgrind's, so `Instructions` stays each benchmark's first (primary)
 * metric. The old values, changes and the `Regressions:` summary are
 * iai-callgrind's own comparison and are not read; a name seen twice adds a
 * second value to each of its series.
 */
export const iaiCallgrindReader: Reader = {
  format: 'iai-callgrind',
  description: 'iai-callgrind / gungraun summary printed by cargo bench (Valgrind event counts)',

  sniff(head: string): boolean {
    return /^[ \t]{2,}(?:Instructions|Ir):[ \t]+(?:\d+|N\/A)(?:\||[ \t]|\r?$)/m.test(head) || /^[ \t]{2,}=+ CALLGRIND =+/m.test(head);
  },

  read(file: SourceFile): ReadResult {
    const budget = new ReadBudget(file.path);
    const order: string[] = [];
    // Per benchmark, its series by metric, each marked when it is Callgrind's own.
    const benchmarks = new Map<string, Map<string, { m: Measurement; callgrind: boolean }>>();
    let pending: string[] = [];
    let current: Map<string, { m: Measurement; callgrind: boolean }> | undefined;
    let currentName = '';
    let tool = DEFAULT_TOOL;
    let metrics = 0;

    checkText(file);
    if (!/\S/.test(file.text)) throw new FormatError(file.path, undefined, 'file is empty');
    const text = file.text;
    const ansi = text.indexOf('\u001b') >= 0;
    // Labels repeat in every benchmark: check each once.
    const labels = new Map<string, boolean>();
    let number = 0;
    // One pass with indexOf over the lines, no line objects: 50 MB of summaries hold 2 M lines.
    for (let start = 0; start <= text.length; ) {
      let newline = text.indexOf('\n', start);
      if (newline < 0) newline = text.length;
      let end = newline;
      if (end > start && text.charCodeAt(end - 1) === 13) end -= 1;
      let line = text.slice(start, end);
      start = newline + 1;
      number += 1;
      if (ansi && line.indexOf('\u001b') >= 0) line = line.replace(ANSI, '');
      let first = 0;
      while (first < line.length && isSpace(line.charCodeAt(first))) first += 1;
      if (first === line.length) {
        pending = [];
        current = undefined;
        continue;
      }
      if (first === 0) {
        current = undefined;
        tool = DEFAULT_TOOL;
        if (line.length > 4096) throw new FormatError(file.path, number, `a line of ${line.length} characters where a benchmark name belongs; is this iai-callgrind output?`);
        // A benchmark path (`module::group::function`) starts a name; anything else continues one (an id printed over several lines).
        if (line.includes('::') || pending.length === 0) pending = [line.trim()];
        else if (pending.length < 16) pending.push(line.trim());
        continue;
      }
      if (line.charCodeAt(first) === 0x3d) {
        const name = line.trim().replace(/^=+/, '').replace(/=+$/, '').trim();
        if (/^[A-Za-z][A-Za-z0-9 ]{0,31}$/.test(name)) tool = name.toUpperCase();
        continue;
      }
      const colon = line.indexOf(':', first);
      if (colon <= first || colon - first > MAX_LABEL) continue;
      const label = line.slice(first, colon);
      let isLabel = labels.get(label);
      if (isLabel === undefined) {
        isLabel = LABEL.test(label);
        if (labels.size < 1000) labels.set(label, isLabel);
      }
      if (!isLabel) continue;
      VALUES.lastIndex = colon + 1;
      const values = VALUES.exec(line);
      if (!values) continue;
      if (current === undefined) {
        if (pending.length === 0) continue; // a count outside any benchmark (a summary block): not a result
        currentName = pending.join(' ');
        pending = [];
        current = benchmarks.get(currentName);
        if (current === undefined) {
          current = new Map();
          benchmarks.set(currentName, current);
          order.push(currentName);
        }
      }
      if (values[1] === 'N/A') continue;
      const value = Number(values[1]);
      if (!Number.isFinite(value)) throw new FormatError(file.path, number, `${label}: ${values[1]} is not a finite number`);
      const metric = tool === DEFAULT_TOOL ? label : `${tool} ${label}`;
      let series = current.get(metric);
      if (series === undefined) {
        budget.series(number);
        const rate = /Rate$/.test(label);
        const m: Measurement = { benchmark: currentName, metric, unit: rate ? '%' : 'count', better: rate && /Hit Rate$/i.test(label) ? 'higher' : 'lower', values: [] };
        series = { m, callgrind: tool === DEFAULT_TOOL };
        current.set(metric, series);
      }
      budget.value(number);
      series.m.values.push(value);
      metrics += 1;
    }

    if (metrics === 0) {
      throw new FormatError(file.path, undefined, 'no iai-callgrind results: expected a benchmark name followed by indented lines such as `  Instructions:  1734|N/A  (*********)`; pass the output of `cargo bench` for an iai-callgrind benchmark');
    }
    const measurements: Measurement[] = [];
    for (const name of order) {
      const series = [...(benchmarks.get(name) ?? new Map()).values()];
      // Callgrind's own metrics first, so Instructions is the primary metric whatever tools ran before it.
      for (const s of series) if (s.callgrind) measurements.push(s.m);
      for (const s of series) if (!s.callgrind) measurements.push(s.m);
    }
    return { measurements, warnings: [], hints: {} };
  },
};
