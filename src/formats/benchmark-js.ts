import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import { ReadBudget } from './input-limits.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { parseFiniteNumber, splitLines, trailingFields } from './text-lines.ts';

/**
 * The shape `String(benchmark)` gives, found anywhere in the sniffed head. No
 * quantifier here can trade characters with its neighbour, so a long run of
 * digits costs one pass.
 */
const SNIFF = / x [0-9][0-9,]*(?:\.[0-9]+)? ops\/sec \u00b1[0-9]/;
const RUNS = /^\(\d+$/;
const RME = /^\u00b1\d+(?:\.\d+)?%$/;

/**
 * benchmarkJsReader reads the lines benchmark.js prints for each finished
 * benchmark, `String(event.target)` in a suite's `cycle` handler:
 *
 *     RegExp#test x 14,823,402 ops/sec ±6.45% (56 runs sampled)
 *
 * Each such line is one value of metric `throughput` in `ops/s`,
 * higher-is-better: the benchmark's mean rate (`hz`). The name is everything
 * before the last ` x <rate> ops/sec`, so names holding ` x ` themselves are
 * kept whole. A name that occurs again (a log of several runs of the suite)
 * adds a value. Other lines (`Fastest is ...`, program output, a failed
 * benchmark's `name: error`, which cannot be told from program output) are
 * ignored. benchmark.js prints no samples, so one `summary-only` warning per
 * file says each line contributes one value.
 */
export const benchmarkJsReader: Reader = {
  format: 'benchmark-js',
  description: 'benchmark.js console lines (name x 1,234 ops/sec ±1.23% (90 runs sampled))',

  sniff(head: string): boolean {
    return SNIFF.test(head);
  },

  read(file: SourceFile): ReadResult {
    const budget = new ReadBudget(file.path);
    const series = new Map<string, Measurement>();
    for (const { number, text } of splitLines(file)) {
      // The cheap test first: most lines of a CI log are not results.
      if (!text.includes(' ops/sec ')) continue;
      const cut = trailingFields(text, 7);
      if (cut === undefined) continue;
      const [x, rate, opsSec, rme, runs, runsWord, sampled] = cut.fields;
      if (x !== 'x' || opsSec !== 'ops/sec' || !RUNS.test(runs) || (runsWord !== 'runs' && runsWord !== 'run') || sampled !== 'sampled)') continue;
      const name = cut.rest.trim();
      if (name === '') throw new FormatError(file.path, number, 'a result line without a benchmark name before " x "');
      const hz = parseFiniteNumber(rate);
      if (hz === undefined || !/^[0-9]/.test(rate)) throw new FormatError(file.path, number, `${name}: rate "${rate}" is not a number of operations per second`);
      if (!RME.test(rme)) throw new FormatError(file.path, number, `${name}: "${rme}" is not a relative margin of error such as ±1.23%`);
      budget.value(number);
      let m = series.get(name);
      if (!m) {
        budget.series(number);
        m = { benchmark: name, metric: 'throughput', unit: 'ops/s', better: 'higher', values: [] };
        series.set(name, m);
      }
      m.values.push(hz);
    }
    if (series.size === 0) {
      throw new FormatError(file.path, undefined, 'no benchmark.js result lines (name x 1,234 ops/sec ±1.23% (90 runs sampled)) found; print String(event.target) in the suite\'s cycle handler');
    }
    const warnings: ReadWarning[] = [{
      kind: 'summary-only',
      message: `${file.path}: benchmark.js prints each benchmark's mean rate, not its samples: each line contributes one value; run the suite several times for more`,
    }];
    return { measurements: [...series.values()], warnings, hints: {} };
  },
};
