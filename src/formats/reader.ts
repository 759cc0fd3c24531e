import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';

/** SourceFile is one input as text, with the path used in error messages. */
export interface SourceFile {
  path: string;
  text: string;
}

/** ReadResult is what a reader found in its input. */
export interface ReadResult {
  measurements: Measurement[];
  warnings: ReadWarning[];
  hints: FingerprintHints;
  /** harness is the harness that produced the values when the file names one (benchbot JSON's `harness`); else the reader's format is. */
  harness?: string;
}

/**
 * Reader turns one harness's output into measurements. `sniff` looks at the
 * content only (cheaply: it sees at most the first few KiB) and must not
 * throw; `read` throws FormatError and nothing else.
 */
export interface Reader {
  format: string;
  description: string;
  sniff(head: string): boolean;
  read(file: SourceFile): ReadResult;
}
