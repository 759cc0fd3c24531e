import { lstatSync, opendirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { readerFor, readSource, type ReadOutcome } from '../formats/detect.ts';
import { readCriterionDirectory } from '../formats/criterion.ts';
import { FormatError } from '../formats/format-error.ts';
import { checkMeasurementText } from '../formats/check-measurement-text.ts';
import { formatCount, MAX_DIRECTORY_BYTES, MAX_DIRECTORY_ENTRIES, MAX_DIRECTORY_FILES, MAX_INPUT_BYTES, tooLarge } from '../formats/input-limits.ts';
import { readBoundedFile } from '../runner/read-bounded-text.ts';
import type { SourceFile } from '../formats/reader.ts';
import { readRegularFile, symbolicLink } from './read-regular-file.ts';
import { collectSide } from '../compare/replay-looks.ts';
import type { CompareSide } from '../compare/compare-runs.ts';
import type { NameFilter } from '../compare/name-filter.ts';
import { readGoogleBenchmarkRows } from '../formats/google-benchmark.ts';
import { comparePyRows, type ComparePySide } from '../report/compare-py-report.ts';

/**
 * read-sides: what benchbot reads a comparison's two sides from, for the
 * CLI's files and the report job's results artifact alike. Every path is
 * hostile input: sizes are bounded before reading and links refused.
 */

/**
 * readSide reads and pools every input of one side. The filter is a
 * NameFilter (RE2, linear in the name), never a RegExp: names come from the
 * code under test and `(a+)+$` on a 41-character name backtracks for minutes.
 */
export function readSide(paths: string[], format: string | undefined, filter: NameFilter | undefined): CompareSide {
  return collectSide(paths.map((path) => readInput(path, format)), filter);
}

/**
 * readArtifactSide reads one side from the files of results artifacts
 * (base.json or head.json, benchbot JSON). The measuring job that wrote them
 * ran the code under test, which may have left a link to any file the
 * runner can read: each is opened without following links and read only
 * if it is a regular file, as report.json and history.json are.
 */
export function readArtifactSide(paths: string[], filter: NameFilter | undefined): CompareSide {
  return collectSide(paths.map((path) => readSource({ path, text: readRegularFile(path, path) }, 'benchbot')), filter);
}

/**
 * readComparePySide reads one side for the compare.py report. Google
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

/**
 * readInput reads one path given on the command line: a file in any format
 * (detected unless `format` is given), or a criterion directory
 * (`target/criterion` or any folder below it), whose `new/` results are read.
 */
export function readInput(path: string, format?: string): ReadOutcome {
  if (format !== undefined) readerFor(format);
  const stat = statOrFail(path);
  if (stat.isDirectory()) {
    if (format !== undefined && format !== 'criterion') {
      throw new FormatError(path, undefined, `is a directory; only --format criterion reads directories`);
    }
    const files = criterionFiles(path);
    if (files.length === 0) {
      throw new FormatError(path, undefined, 'is a directory without criterion results (no */new/sample.json below it)');
    }
    const result = readCriterionDirectory(files);
    checkMeasurementText(path, result);
    return { format: 'criterion', ...result };
  }
  // Measured before it becomes a string (readBoundedFile checks again on the open file and stops reading a pipe at the limit).
  if (stat.isFile() && stat.size > MAX_INPUT_BYTES) throw tooLarge(path, stat.size);
  return readSource({ path, text: readBoundedFile(path) }, format);
}

function statOrFail(path: string) {
  try {
    return statSync(path);
  } catch {
    throw new FormatError(path, undefined, 'no such file or directory');
  }
}

/**
 * criterionFiles collects the JSON files in every `new/` folder below root.
 * The code under test wrote the tree, so the walk is bounded: entries seen
 * (read one at a time, not listed whole), files and their total bytes, all
 * measured before any file is read.
 */
function criterionFiles(root: string): SourceFile[] {
  const found: { full: string; display: string }[] = [];
  let entries = 0;
  let bytes = 0;
  const walk = (dir: string, depth: number) => {
    if (depth > 12) return;
    const listing = opendirSync(dir);
    try {
      for (let entry = listing.readSync(); entry !== null; entry = listing.readSync()) {
        entries += 1;
        if (entries > MAX_DIRECTORY_ENTRIES) {
          throw new FormatError(root, undefined, `holds more than ${formatCount(MAX_DIRECTORY_ENTRIES)} files and directories; pass the criterion directory itself (target/criterion), not a folder above it`);
        }
        const full = join(dir, entry.name);
        const display = relative(process.cwd(), full) || full;
        // Links are refused, not followed: the code under test wrote this directory (docs/security.md).
        if (entry.isSymbolicLink()) throw symbolicLink(display);
        if (entry.isDirectory()) walk(full, depth + 1);
        else if (entry.name.endsWith('.json') && dir.split(sep).at(-1) === 'new') {
          if (found.length >= MAX_DIRECTORY_FILES) {
            throw new FormatError(root, undefined, `holds more than ${formatCount(MAX_DIRECTORY_FILES)} result files (new/*.json); benchbot reads at most that many from one directory: pass a folder with fewer benchmarks`);
          }
          const size = lstatSync(full).size;
          if (size > MAX_INPUT_BYTES) throw tooLarge(display, size);
          bytes += size;
          if (bytes > MAX_DIRECTORY_BYTES) {
            throw new FormatError(root, undefined, `result files (new/*.json) hold more than ${formatCount(MAX_DIRECTORY_BYTES)} bytes together; benchbot reads at most that much from one directory: pass a folder with fewer benchmarks`);
          }
          found.push({ full, display });
        }
      }
    } finally {
      listing.closeSync();
    }
  };
  walk(root, 0);
  // Files may have grown since they were measured: readRegularFile bounds each, this the sum.
  let read = 0;
  const files = found.map(({ full, display }) => {
    const text = readRegularFile(full, display);
    read += text.length;
    if (read > MAX_DIRECTORY_BYTES) throw new FormatError(root, undefined, `result files (new/*.json) grew past ${formatCount(MAX_DIRECTORY_BYTES)} bytes together while being read`);
    return { path: display, text };
  });
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
