// Helpers of the differential tests (test/formats/fast-*.test.ts): a fast
// reader and the verbatim copy of its previous version beside this file must
// give the same result, to the bit, or the same error message.
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { FormatError } from '../../../src/formats/format-error.ts';
import type { Reader, SourceFile } from '../../../src/formats/reader.ts';
import { FIXTURES, loadFixture } from '../../support/fixtures.ts';
import { seededRandom } from '../../support/random.ts';

export const SEED = Number(process.env.BENCHBOT_FUZZ_SEED ?? 20261125);
export const CASES = Number(process.env.BENCHBOT_FAST_READER_CASES ?? 3000);

type Outcome = { result: unknown } | { error: string };

function outcome(reader: Reader, file: SourceFile): Outcome {
  try {
    return { result: reader.read(file) };
  } catch (error) {
    // A reader's own errors are FormatErrors; anything else (a TypeError) must be the same too.
    if (!(error instanceof Error)) throw error;
    return { error: error instanceof FormatError ? error.message : `${error.name}: ${error.message}` };
  }
}

/** sameOutcome compares two readings to the bit: values with Object.is (so -0 is not 0), and error messages exactly. */
export function assertSameOutcome(reader: Reader, reference: Reader, file: SourceFile): 'read' | 'refused' {
  const got = outcome(reader, file);
  const want = outcome(reference, file);
  const show = JSON.stringify(file.text.length > 400 ? `${file.text.slice(0, 400)}…` : file.text);
  if ('error' in want) {
    assert.deepEqual(got, want, `input ${show}`);
    return 'refused';
  }
  assert.ok('result' in got, `input ${show}: the reference read it, the reader failed with ${'error' in got ? got.error : ''}`);
  assert.deepEqual(got.result, want.result, `input ${show}`);
  // deepEqual treats -0 and 0 alike; the values must be the very same numbers.
  const bits = (r: unknown) => (r as { measurements: { values: number[] }[] }).measurements.flatMap((m) => m.values.map((v) => (Object.is(v, -0) ? '-0' : String(v))));
  assert.deepEqual(bits(got.result), bits(want.result), `input ${show}: values`);
  return 'read';
}

/** assertSameOnRandom compares the readers on `CASES` generated documents, and checks that the documents are read and refused often enough to test both. */
export function assertSameOnRandom(reader: Reader, reference: Reader, document: (random: () => number) => string): void {
  const random = seededRandom(SEED);
  const counts = { read: 0, refused: 0 };
  for (let i = 0; i < CASES; i++) counts[assertSameOutcome(reader, reference, { path: 'bench.txt', text: document(random) })] += 1;
  assert.ok(counts.read >= CASES / 5 && counts.refused >= CASES / 10, `generated documents: ${counts.read} read, ${counts.refused} refused`);
}

/** fixturesOf loads the fixtures of a directory (not their expected results), those whose name `keep` accepts. */
export function fixturesOf(directory: string, keep: (name: string) => boolean = () => true): SourceFile[] {
  return readdirSync(join(FIXTURES, directory))
    .filter((name) => !name.endsWith('.expected.json') && keep(name))
    .map((name) => loadFixture(`${directory}/${name}`));
}

export const pick = <T>(random: () => number, items: readonly T[]): T => items[Math.floor(random() * items.length)];

/** LargeDocument is how assertSameOnLargeDocuments makes one document: its first lines, line `index` after them, and last lines to cut it with. */
export interface LargeDocument {
  head?: string[];
  line: (index: number) => string;
  tails: string[];
}

/**
 * assertSameOnLargeDocuments compares the readers on 12 documents of 150-250 K characters, larger than
 * the 64 Ki window the fast paths read lines from, so lines cross its edges: `document` makes each one's
 * lines, joined by \n or \r\n, the document then kept whole, cut inside its last line, or ended by \r,
 * \n or one of its tails.
 */
export function assertSameOnLargeDocuments(reader: Reader, reference: Reader, document: (random: () => number) => LargeDocument): void {
  const random = seededRandom(SEED);
  for (let k = 0; k < 12; k++) {
    const { head = [], line, tails } = document(random);
    const lines = [...head];
    for (let size = 0; size < 150_000 + random() * 100_000; ) {
      const next = line(lines.length);
      lines.push(next);
      size += next.length + 1;
    }
    const text = lines.join(pick(random, ['\n', '\r\n']));
    const cut = pick(random, [text, text.slice(0, text.length - 1 - Math.floor(random() * 30)), `${text}\r`, `${text}\n`, ...tails.map((tail) => `${text}\n${tail}`)]);
    assertSameOutcome(reader, reference, { path: 'bench.txt', text: cut });
  }
}

