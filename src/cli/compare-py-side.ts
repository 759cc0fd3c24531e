import type { NameFilter } from '../compare/name-filter.ts';
import { readGoogleBenchmarkRows } from '../formats/google-benchmark.ts';
import { comparePyRows, type ComparePySide } from '../report/compare-py-report.ts';
import { readBoundedFile } from '../runner/read-bounded-text.ts';
import { readInput } from './read-inputs.ts';

/**
 * readComparePySide reads one side for `--output compare.py`. Google
 * Benchmark files are read row by row, aggregates included, because
 * compare.py pairs rows, not benchbot's series; any other input contributes
 * its real_time/cpu_time measurements as iteration rows. The label is the
 * side as given on the command line, as compare.py prints its arguments.
 */
export function readComparePySide(label: string, paths: string[], format: string | undefined, filter: NameFilter | undefined): ComparePySide {
  const rows: ComparePySide['rows'][number][] = [];
  for (const path of paths) {
    // readInput validates the file (size, detection, measurement text) before its rows are taken.
    const outcome = readInput(path, format);
    const found = outcome.format === 'google-benchmark' ? readGoogleBenchmarkRows({ path, text: readBoundedFile(path) }) : comparePyRows(outcome.measurements);
    for (const row of found) if (filter === undefined || filter.test(row.runName)) rows.push(row);
  }
  return { label, rows };
}
