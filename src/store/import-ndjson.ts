import { FormatError } from '../formats/format-error.ts';
import { NDJSON_HEADER } from './export-ndjson.ts';
import type { IngestRun, Store } from './store.ts';
import { validateRun } from './validate-run.ts';

/** MAX_LINE_BYTES caps one line of a history export: one run of a 10,000-benchmark suite is a few MB. */
export const MAX_LINE_BYTES = 256 * 1024 * 1024;

/**
 * parseNdjsonHistory reads a history export (see exportNdjson) from its
 * lines. It is pure and treats the input as hostile: the first non-empty line
 * must be the header, every other line a run; anything else is a FormatError
 * naming the file, the 1-based line and the JSON path of the problem.
 */
export function parseNdjsonHistory(lines: Iterable<string>, file: string): IngestRun[] {
  const reader = new HistoryReader(file);
  const runs: IngestRun[] = [];
  for (const line of lines) {
    const run = reader.line(line);
    if (run) runs.push(run);
  }
  reader.end();
  return runs;
}

/** ndjsonRuns is parseNdjsonHistory one run at a time, for histories larger than memory. */
export async function* ndjsonRuns(lines: AsyncIterable<string> | Iterable<string>, file: string): AsyncGenerator<IngestRun> {
  const reader = new HistoryReader(file);
  for await (const line of lines) {
    const run = reader.line(line);
    if (run) yield run;
  }
  reader.end();
}

/**
 * splitLines turns a byte or text stream (a file's read stream, stdin) into
 * lines without holding more than one line; a line over `maxBytes` is a
 * FormatError naming it, since only a damaged or hostile file has one.
 */
export async function* splitLines(chunks: AsyncIterable<Uint8Array | string>, file: string, maxBytes = MAX_LINE_BYTES): AsyncGenerator<string> {
  const decoder = new TextDecoder('utf-8', { fatal: false });
  let pending: string[] = [];
  let pendingBytes = 0;
  let lineNo = 0;
  for await (const chunk of chunks) {
    const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
    let from = 0;
    for (let nl = text.indexOf('\n'); nl !== -1; nl = text.indexOf('\n', from)) {
      pending.push(text.slice(from, nl));
      lineNo++;
      yield pending.join('');
      pending = [];
      pendingBytes = 0;
      from = nl + 1;
    }
    if (from < text.length) {
      pending.push(text.slice(from));
      pendingBytes += text.length - from;
      if (pendingBytes > maxBytes) throw new FormatError(file, lineNo + 1, `line is longer than ${maxBytes} bytes; a history export holds one run per line`);
    }
  }
  const rest = decoder.decode();
  if (rest !== '') pending.push(rest);
  if (pending.length > 0) yield pending.join('');
}

/** HistoryReader checks an export line by line: the header first, then runs. */
class HistoryReader {
  private header = false;
  private lineNo = 0;
  private readonly file: string;
  constructor(file: string) {
    this.file = file;
  }

  line(raw: string): IngestRun | undefined {
    const file = this.file;
    const lineNo = ++this.lineNo;
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim() === '') return undefined;
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new FormatError(file, lineNo, `invalid JSON: ${message.replace(/[\u0000-\u001f\u007f-\u009f]/g, '?').slice(0, 200)}`);
    }
    const record = value !== null && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : undefined;
    if (!this.header) {
      if (record?.format !== NDJSON_HEADER.format) {
        throw new FormatError(file, lineNo, `not a benchbot history export: the first line must be ${JSON.stringify(NDJSON_HEADER)}`);
      }
      if (record.version !== NDJSON_HEADER.version) {
        throw new FormatError(file, lineNo, `history export version ${JSON.stringify(record.version)} is not supported (this benchbot reads version ${NDJSON_HEADER.version}); upgrade benchbot`);
      }
      this.header = true;
      return undefined;
    }
    if (record === undefined) throw new FormatError(file, lineNo, 'expected a JSON object');
    if (record.type !== 'run') throw new FormatError(file, lineNo, `type: expected "run", got ${JSON.stringify(record.type)?.slice(0, 40)}`);
    if (typeof record.id !== 'string' || record.id === '') throw new FormatError(file, lineNo, 'id: expected the run id as a non-empty string');
    const { type: _type, id, ...run } = record;
    return validateRun({ ...run, key: id }, (path, message) => {
      throw new FormatError(file, lineNo, `${path === 'key' ? 'id' : path}: ${message}`);
    });
  }

  end(): void {
    if (!this.header) throw new FormatError(this.file, undefined, 'file is empty: a history export has at least its header line');
  }
}

/**
 * importNdjson stores a history export in ONE transaction, so a bad line or
 * a crash stores nothing. Runs keep their ids, so importing the same export
 * twice adds nothing. `input` is the whole text, its lines, or a stream of
 * chunks (a file's read stream: see splitLines); runs are read and stored one
 * at a time, so the export never sits in memory whole.
 */
export async function importNdjson(
  store: Store,
  input: string | Iterable<string> | AsyncIterable<string>,
  options: { file?: string } = {},
): Promise<{ runs: number; created: number }> {
  const file = options.file ?? '<stdin>';
  const lines = typeof input === 'string' ? input.split('\n') : input;
  const result = await store.ingestStream(ndjsonRuns(lines, file));
  return { runs: result.ids.length, created: result.created };
}
