import { FormatError } from './format-error.ts';
import { didYouMean } from '../model/closest-name.ts';
import { checkMeasurementText } from './check-measurement-text.ts';
import { checkText } from './json-document.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';
import { googleBenchmarkReader } from './google-benchmark.ts';
import { hyperfineReader } from './hyperfine.ts';
import { criterionReader, cargoBenchReader } from './criterion.ts';
import { goBenchReader } from './go-bench.ts';
import { pytestBenchmarkReader } from './pytest-benchmark.ts';
import { dartReader } from './dart.ts';
import { jmhReader } from './jmh.ts';
import { catch2Reader } from './catch2.ts';
import { benchmarkDotNetReader } from './benchmark-dotnet.ts';
import { benchbotJsonReader } from './benchbot-json.ts';
import { plainLinesReader } from './plain-lines.ts';
import { benchmarkJsReader } from './benchmark-js.ts';
import { tinybenchReader } from './tinybench.ts';
import { vitestBenchReader } from './vitest-bench.ts';
import { mitataReader } from './mitata.ts';
import { customReader, customSmallerIsBetterReader, customBiggerIsBetterReader } from './gab-custom.ts';
import { bencherMetricFormatReader } from './bencher-metric-format.ts';
import { juliaBenchmarkToolsReader } from './julia-benchmarktools.ts';
import { iaiCallgrindReader } from './iai-callgrind.ts';
import { benchmarkLuauReader } from './benchmark-luau.ts';

/**
 * READERS lists every reader in detection order: specific formats before
 * general ones, so the plain `name: value unit` fallback comes last.
 */
export const READERS: readonly Reader[] = [
  benchbotJsonReader,
  googleBenchmarkReader,
  hyperfineReader,
  pytestBenchmarkReader,
  jmhReader,
  benchmarkDotNetReader,
  juliaBenchmarkToolsReader,
  customReader,
  customSmallerIsBetterReader,
  customBiggerIsBetterReader,
  bencherMetricFormatReader,
  criterionReader,
  catch2Reader,
  goBenchReader,
  iaiCallgrindReader,
  cargoBenchReader,
  dartReader,
  benchmarkLuauReader,
  tinybenchReader,
  vitestBenchReader,
  mitataReader,
  benchmarkJsReader,
  plainLinesReader,
];

/** SNIFF_BYTES is how much of an input detection looks at. */
export const SNIFF_BYTES = 4096;

/** formatNames lists the formats `--format` accepts, for error messages. */
export function formatNames(): string[] {
  return READERS.map((r) => r.format);
}

/** UnknownFormatError is a `--format` value that names no reader. */
export class UnknownFormatError extends Error {
  constructor(format: string) {
    super(`unknown format "${format}"${didYouMean(format, formatNames())}; use --format with one of: ${formatNames().join(', ')}`);
    this.name = 'UnknownFormatError';
  }
}

/** readerFor returns the reader for a `--format` value, or throws naming the valid ones. */
export function readerFor(format: string): Reader {
  const reader = READERS.find((r) => r.format === format);
  if (!reader) throw new UnknownFormatError(format);
  return reader;
}

/** detectReader picks the first reader whose sniff accepts the start of the input. */
export function detectReader(file: SourceFile): Reader {
  const head = file.text.slice(0, SNIFF_BYTES);
  const reader = READERS.find((r) => r.sniff(head));
  if (!reader) {
    throw new FormatError(
      file.path,
      undefined,
      `no known benchmark format recognized; pass --format with one of: ${formatNames().join(', ')}`,
    );
  }
  return reader;
}

/** ReadOutcome is a reader's result together with the format that produced it. */
export interface ReadOutcome extends ReadResult {
  format: string;
}

/** readSource reads one input with the given format, or the detected one when format is undefined. */
export function readSource(file: SourceFile, format?: string): ReadOutcome {
  checkText(file);
  const reader = format === undefined ? detectReader(file) : readerFor(format);
  const result = reader.read(file);
  checkMeasurementText(file.path, result);
  return { format: reader.format, ...result };
}
