import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { readerFor, readSource, type ReadOutcome } from '../formats/detect.ts';
import { readCriterionDirectory } from '../formats/criterion.ts';
import { FormatError } from '../formats/format-error.ts';
import { checkMeasurementText } from '../formats/check-measurement-text.ts';
import { MAX_INPUT_BYTES } from '../formats/json-document.ts';
import type { SourceFile } from '../formats/reader.ts';
import { readRegularFile, symbolicLink } from './read-regular-file.ts';

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
  if (stat.size > MAX_INPUT_BYTES) {
    throw new FormatError(path, undefined, `is ${stat.size} bytes, above the ${MAX_INPUT_BYTES}-byte limit`);
  }
  return readSource({ path, text: readFileSync(path, 'utf8') }, format);
}

function statOrFail(path: string) {
  try {
    return statSync(path);
  } catch {
    throw new FormatError(path, undefined, 'no such file or directory');
  }
}

/** criterionFiles collects the JSON files in every `new/` folder below root. */
function criterionFiles(root: string): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string, depth: number) => {
    if (depth > 12) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      const display = relative(process.cwd(), full) || full;
      // Links are refused, not followed: the code under test wrote this directory (docs/security.md).
      if (entry.isSymbolicLink()) throw symbolicLink(display);
      if (entry.isDirectory()) walk(full, depth + 1);
      else if (entry.name.endsWith('.json') && dir.split(sep).at(-1) === 'new') {
        files.push({ path: display, text: readRegularFile(full, display) });
      }
    }
  };
  walk(root, 0);
  return files.sort((a, b) => a.path.localeCompare(b.path));
}
