import { FormatError } from '../formats/format-error.ts';
import { NDJSON_HEADER } from './export-ndjson.ts';
import type { IngestRun, Store } from './store.ts';
import { validateRun } from './validate-run.ts';

/**
 * parseNdjsonHistory reads a history export (see exportNdjson) from its
 * lines. It is pure and treats the input as hostile: the first non-empty line
 * must be the header, every other line a run; anything else is a FormatError
 * naming the file, the 1-based line and the JSON path of the problem.
 */
export function parseNdjsonHistory(lines: Iterable<string>, file: string): IngestRun[] {
  const runs: IngestRun[] = [];
  let header = false;
  let lineNo = 0;
  for (const raw of lines) {
    lineNo++;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new FormatError(file, lineNo, `invalid JSON: ${message.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200)}`);
    }
    const record = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    if (!header) {
      if (record?.format !== NDJSON_HEADER.format) {
        throw new FormatError(file, lineNo, `not a benchbot history export: the first line must be ${JSON.stringify(NDJSON_HEADER)}`);
      }
      if (record.version !== NDJSON_HEADER.version) {
        throw new FormatError(file, lineNo, `history export version ${JSON.stringify(record.version)} is not supported (this benchbot reads version ${NDJSON_HEADER.version}); upgrade benchbot`);
      }
      header = true;
      continue;
    }
    if (record === undefined) throw new FormatError(file, lineNo, 'expected a JSON object');
    if (record.type !== 'run') throw new FormatError(file, lineNo, `type: expected "run", got ${JSON.stringify(record.type)?.slice(0, 40)}`);
    if (typeof record.id !== 'string' || record.id === '') throw new FormatError(file, lineNo, 'id: expected the run id as a non-empty string');
    const { type: _type, id, ...run } = record;
    runs.push(
      validateRun({ ...run, key: id }, (path, message) => {
        throw new FormatError(file, lineNo, `${path === 'key' ? 'id' : path}: ${message}`);
      }),
    );
  }
  if (!header) throw new FormatError(file, undefined, 'file is empty: a history export has at least its header line');
  return runs;
}

/**
 * importNdjson stores a history export in ONE transaction, so a bad line or
 * a crash stores nothing. Runs keep their ids, so importing the same export
 * twice adds nothing. `input` is the whole text or its lines (a readline
 * interface works).
 */
export async function importNdjson(
  store: Store,
  input: string | Iterable<string> | AsyncIterable<string>,
  options: { file?: string } = {},
): Promise<{ runs: number; created: number }> {
  const file = options.file ?? '<stdin>';
  let lines: Iterable<string>;
  if (typeof input === 'string') lines = input.split('\n');
  else if (Symbol.asyncIterator in input) {
    const collected: string[] = [];
    for await (const line of input) collected.push(line);
    lines = collected;
  } else lines = input;
  const runs = parseNdjsonHistory(lines, file);
  const result = await store.ingestRuns(runs);
  return { runs: runs.length, created: result.created };
}
