import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import { ReadBudget } from './input-limits.ts';
import { checkText, lineAt } from './json-document.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';
import { isSpace, LineCursor, NameCodes, NameOrder, parseFiniteNumber, POWERS_OF_TEN, readDecimal, TextWindow, trailingFields, type NamedEntry } from './text-lines.ts';

/** Nanoseconds per unit of Catch2's auto-scaled `Duration` (it prints minutes as `m`). */
const NS_PER_UNIT: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, m: 60e9 };

/** The last column says whether the analysis ran: `estimated` (v2 to 2.11), `est run time` (later v2 and v3), else `mean` (`--benchmark-no-analysis`). */
const HEADER = /^benchmark name(\s+)samples\s+iterations\s+(estimated|est run time|mean)\s*$/;
const COUNT = /^\d+$/;
const DURATION_UNIT = /^(?:ns|us|ms|s|m)$/;
/** Characters a regular expression's `.` does not match; a table line holding one is not a table line. */
const LINE_BREAK = /[\n\r\u2028\u2029]/;
const RULE = /^(={10,}|-{10,}|~{10,})\s*$/;
const VERSION = /is a Catch2? v(\d+\.\d+\.\d+\S*) host application/;

/**
 * catch2Reader reads Catch2 benchmark results (v2 and v3) from the console
 * reporter's table (with or without `--benchmark-no-analysis`) and from the
 * XML reporter (`-r xml`). Catch2 reports a summary per benchmark, never the
 * samples, so each benchmark yields its mean as one value of metric `time` in
 * `ns`, with one `summary-only` warning per file; a name that occurs again
 * (outputs of several runs concatenated) adds a value. Failed benchmarks are
 * skipped with an `error` warning.
 */
export const catch2Reader: Reader = {
  format: 'catch2',
  description: 'Catch2 BENCHMARK results: console table or XML reporter (-r xml), v2 and v3',
  sniff(head: string): boolean {
    try {
      if (/<Catch2TestRun[\s>]|<Catch\s+name=/.test(head)) return true;
      return VERSION.test(head) || /^benchmark name\s+samples\s+iterations\s+(estimated|est run time|mean)\s*$/m.test(head);
    } catch {
      return false;
    }
  },
  read(file: SourceFile): ReadResult {
    checkText(file);
    if (file.text.trim() === '') throw new FormatError(file.path, undefined, 'file is empty');
    const collected = file.text.trimStart().startsWith('<') ? (readXmlFast(file) ?? readXml(file)) : readConsole(file);
    return finish(file, collected);
  },
};

interface Collected {
  order: string[];
  values: Map<string, number[]>;
  warnings: ReadWarning[];
  hints: FingerprintHints;
  budget: ReadBudget;
}

function newCollected(file: SourceFile): Collected {
  return { order: [], values: new Map(), warnings: [], hints: {}, budget: new ReadBudget(file.path) };
}

function add(c: Collected, name: string, ns: number, line: number | undefined): void {
  c.budget.value(line);
  let list = c.values.get(name);
  if (!list) {
    c.budget.series(line);
    list = [];
    c.values.set(name, list);
    c.order.push(name);
  }
  list.push(ns);
}

function failed(c: Collected, name: string, message: string, line: number | undefined): void {
  c.budget.series(line);
  c.warnings.push({ benchmark: name, kind: 'error', message: `benchmark "${name}" failed: ${message}` });
}

function finish(file: SourceFile, c: Collected): ReadResult {
  if (c.order.length === 0 && c.warnings.length === 0) {
    throw new FormatError(file.path, undefined, 'no Catch2 benchmark results found (is CATCH_CONFIG_ENABLE_BENCHMARKING defined?)');
  }
  const measurements: Measurement[] = c.order.map((name) => ({
    benchmark: name,
    metric: 'time',
    unit: 'ns',
    better: 'lower',
    values: c.values.get(name) ?? [],
  }));
  const warnings: ReadWarning[] = [];
  if (measurements.length > 0) {
    warnings.push({
      kind: 'summary-only',
      message:
        'Catch2 reports a summary per benchmark, not its samples: each run contributes its mean as one value; ' +
        'run the benchmark binary several times and concatenate the outputs to give benchbot repetitions',
    });
  }
  return { measurements, warnings: [...warnings, ...c.warnings], hints: c.hints };
}

function toNs(file: SourceFile, line: number, number: string, unit: string): number {
  const value = parseFiniteNumber(number);
  const factor = NS_PER_UNIT[unit];
  if (value === undefined || factor === undefined) throw new FormatError(file.path, line, `not a duration: "${number} ${unit}"`);
  if (value < 0) throw new FormatError(file.path, line, `negative duration "${number} ${unit}"; a time cannot be below zero`);
  const ns = value * factor;
  if (!Number.isFinite(ns)) throw new FormatError(file.path, line, `duration out of range: "${number} ${unit}"`);
  return ns;
}

/**
 * joinName undoes the console's wrapping of long names at `width` columns (a
 * mid-word break ends in `-`). Joined once at the end: cutting the hyphen off
 * a growing string per fragment copies it every time, quadratic in a long
 * wrapped name.
 */
function joinName(fragments: string[], width: number): string {
  const parts: string[] = [];
  for (let i = 0; i < fragments.length; i++) {
    const fragment = fragments[i];
    const broken = i + 1 < fragments.length && fragment.endsWith('-') && fragment.length === width;
    parts.push(broken ? fragment.slice(0, -1) : fragment);
    if (i + 1 < fragments.length && !broken) parts.push(' ');
  }
  return parts.join('');
}

// The table's lines have a fixed shape at their end and a free name at the
// start; they are cut from the end (trailingFields) rather than matched with
// `^(\S.*?)\s{2,}...`, which backtracks quadratically on a long line.

/** tableRow reads `name  samples  iterations  value unit`; the name is separated by two or more spaces. */
function tableRow(text: string): { name: string; value: string; unit: string } | undefined {
  if (text === '' || isSpace(text.charCodeAt(0))) return undefined;
  const cut = trailingFields(text, 4);
  if (!cut || cut.rest === '' || cut.gaps[0].length < 2 || cut.gaps[3] !== ' ' || LINE_BREAK.test(cut.rest)) return undefined;
  const [samples, iterations, value, unit] = cut.fields;
  if (!COUNT.test(samples) || !COUNT.test(iterations) || !DURATION_UNIT.test(unit) || parseFiniteNumber(value) === undefined || value.includes(',')) return undefined;
  return { name: cut.rest, value, unit };
}

/** meanLine reads the indented `value unit  low unit  high unit` line under a row; returns the first duration. */
function meanLine(text: string): { value: string; unit: string } | undefined {
  if (text === '' || !isSpace(text.charCodeAt(0))) return undefined;
  const cut = trailingFields(text, 6);
  if (!cut || cut.rest !== '' || LINE_BREAK.test(cut.gaps[0])) return undefined;
  for (let k = 0; k < 6; k += 2) {
    const value = cut.fields[k];
    if (parseFiniteNumber(value) === undefined || value.includes(',') || cut.gaps[k + 1] !== ' ' || !DURATION_UNIT.test(cut.fields[k + 1])) return undefined;
  }
  return { value: cut.fields[0], unit: cut.fields[1] };
}

const FAILED_MARK = 'Benchmark failed (';

/** failedRow reads `name  Benchmark failed (message)`. */
function failedRow(text: string): { name: string; message: string } | undefined {
  if (text === '' || isSpace(text.charCodeAt(0)) || LINE_BREAK.test(text)) return undefined;
  let end = text.length;
  while (end > 0 && isSpace(text.charCodeAt(end - 1))) end -= 1;
  if (text.charCodeAt(end - 1) !== 0x29) return undefined;
  for (let at = text.indexOf(FAILED_MARK); at >= 0 && at + FAILED_MARK.length < end; at = text.indexOf(FAILED_MARK, at + 1)) {
    if (at >= 3 && isSpace(text.charCodeAt(at - 1)) && isSpace(text.charCodeAt(at - 2))) {
      return { name: text.slice(0, at).trim(), message: text.slice(at + FAILED_MARK.length, end - 1) };
    }
  }
  return undefined;
}

/** FastRow is what fastMean and fastRow read: where a row's name ends, and the duration as a value and its factor to ns. */
interface FastRow {
  nameEnd: number;
  value: number;
  factor: number;
}

/**
 * fastDuration reads `value unit` at p as meanLine and tableRow accept it (a
 * decimal without sign or commas, one space, ns/us/ms/s/m ending at a space,
 * a tab or `end`) into `row`; returns where it ends, or -1 for the general path.
 */
function fastDuration(text: string, p: number, end: number, row: FastRow): number {
  const from = p;
  let c = text.charCodeAt(p);
  while (p < end && ((c >= 48 && c <= 57) || c === 46)) c = text.charCodeAt(++p);
  if (p === from || c !== 32 || p + 1 >= end) return -1;
  const value = readDecimal(text, from, p);
  if (value !== value) return -1;
  c = text.charCodeAt(++p);
  const d = text.charCodeAt(p + 1);
  let factor = 0;
  let length = 2;
  if (d === 115 && c === 110) factor = NS_PER_UNIT.ns;
  else if (d === 115 && c === 117) factor = NS_PER_UNIT.us;
  else if (d === 115 && c === 109) factor = NS_PER_UNIT.ms;
  else if (c === 115) (factor = NS_PER_UNIT.s), (length = 1);
  else if (c === 109) (factor = NS_PER_UNIT.m), (length = 1);
  else return -1;
  p += length;
  if (p > end || (p < end && (c = text.charCodeAt(p)) !== 32 && c !== 9)) return -1;
  row.value = value;
  row.factor = factor;
  return p;
}

/** blanksAfter is the position after the spaces and tabs at p (up to end). */
function blanksAfter(text: string, p: number, end: number): number {
  let c = 0;
  while (p < end && ((c = text.charCodeAt(p)) === 32 || c === 9)) p += 1;
  return p;
}

/** blanksBefore is the position before the spaces and tabs that end at p (down to start). */
function blanksBefore(text: string, p: number, start: number): number {
  let c = 0;
  while (p > start && ((c = text.charCodeAt(p - 1)) === 32 || c === 9)) p -= 1;
  return p;
}

/** fastMean reads the mean line under a row as meanLine does, when its white space is spaces and tabs; false for the general path. */
function fastMean(text: string, start: number, end: number, row: FastRow): boolean {
  let p = blanksAfter(text, start, end);
  if (p === start) return false;
  let value = 0;
  let factor = 0;
  for (let k = 0; k < 3; k++) {
    if (k > 0) {
      const gap = p;
      p = blanksAfter(text, p, end);
      if (p === gap) return false;
    }
    p = fastDuration(text, p, end, row);
    if (p < 0) return false;
    if (k === 0) {
      value = row.value;
      factor = row.factor;
    }
  }
  if (blanksAfter(text, p, end) !== end) return false;
  row.value = value;
  row.factor = factor;
  return true;
}

/**
 * fastRow reads a table row as tableRow does, from its end, when it is the
 * usual one: `name  samples  iterations  value unit` with spaces and tabs
 * between the fields, and no line break in the name. The line starts with
 * a character that is not white space. False for the general path.
 */
function fastRow(text: string, start: number, end: number, row: FastRow): boolean {
  const e = blanksBefore(text, end, start);
  let c = 0;
  // The duration: back over the unit and its one space, then the value.
  let p = e;
  while (p > start && (c = text.charCodeAt(p - 1)) >= 97 && c <= 122) p -= 1;
  if (p === e || text.charCodeAt(p - 1) !== 32) return false;
  p -= 1;
  while (p > start && (((c = text.charCodeAt(p - 1)) >= 48 && c <= 57) || c === 46)) p -= 1;
  if (fastDuration(text, p, end, row) !== e) return false;
  // Iterations and samples, each after spaces or tabs, then at least two of them before the name.
  for (let k = 0; k < 2; k++) {
    const gap = p;
    p = blanksBefore(text, p, start);
    if (p === gap) return false;
    const count = p;
    while (p > start && (c = text.charCodeAt(p - 1)) >= 48 && c <= 57) p -= 1;
    if (p === count) return false;
  }
  const gap = p;
  p = blanksBefore(text, p, start);
  if (gap - p < 2 || p === start || isSpace(text.charCodeAt(p - 1))) return false;
  for (let i = start; i < p; i++) {
    c = text.charCodeAt(i);
    if (c === 13 || c === 0x2028 || c === 0x2029) return false;
  }
  row.nameEnd = p;
  return true;
}

function readConsole(file: SourceFile): Collected {
  const c = newCollected(file);
  const version = VERSION.exec(file.text);
  if (version) c.hints.catch2_version = version[1];
  type Mode = 'outside' | 'header' | 'table';
  let mode: Mode = 'outside';
  let analysis = true;
  let wrapWidth = 35;
  let pending: string[] = [];
  let expectMean: { name: string; line: number; entry?: XmlEntry; at?: number } | undefined;
  // Each name's values, in the order names came before, so a known name costs no string and no lookup.
  const expected = new NameOrder<XmlEntry>();
  const entries = new Map<string, XmlEntry>();
  const addValue = (name: string, entry: XmlEntry | undefined, ns: number, line: number, at: number): void => {
    if (entry !== undefined) {
      c.budget.value(line);
      entry.values.push(ns);
    } else {
      add(c, name, ns, line);
      entry = entries.get(name);
      if (entry === undefined) entries.set(name, (entry = { name, at, next: undefined, values: c.values.get(name) as number[] }));
    }
    expected.record(entry);
  };
  // The usual lines are read in place: outside a table every line but a
  // header is skipped on its first character, a row's mean line and a table
  // row are read in one pass (fastMean, fastRow), an indented line outside
  // them is blank or not. Any other line, and every error, takes the
  // general path below.
  const input = file.text;
  const cursor = new LineCursor(file);
  const fast: FastRow = { nameEnd: 0, value: 0, factor: 0 };
  while (cursor.next()) {
    const { number, start, end } = cursor;
    const first = start < end ? input.charCodeAt(start) : -1;
    if (first !== 98 || !input.startsWith('benchmark name', start)) {
      if (mode === 'outside') continue;
      if (mode === 'table') {
        if (expectMean) {
          if (fastMean(input, start, end, fast)) {
            const ns = fast.value * fast.factor;
            if (Number.isFinite(ns)) {
              addValue(expectMean.name, expectMean.entry, ns, number, expectMean.at ?? -1);
              expectMean = undefined;
              continue;
            }
          }
        } else if (first >= 0 && isSpace(first)) {
          // Neither a rule nor a row nor a name: a blank one ends a wrapped name, if there is one.
          if (pending.length > 0) {
            let p = start + 1;
            while (p < end && isSpace(input.charCodeAt(p))) p += 1;
            if (p === end) pending = [];
          }
          continue;
        } else if (first !== 61 && first !== 45 && first !== 126 && first >= 0 && fastRow(input, start, end, fast)) {
          const ns = fast.value * fast.factor;
          if (analysis || Number.isFinite(ns)) {
            const entry = pending.length === 0 ? expected.find(input, start, fast.nameEnd) : undefined;
            let name: string;
            // Where the name stands in the text, unless it was wrapped.
            const at = pending.length === 0 ? start : -1;
            if (entry !== undefined) name = entry.name;
            else {
              pending.push(input.slice(start, fast.nameEnd));
              name = joinName(pending, wrapWidth);
              pending = [];
            }
            if (analysis) expectMean = { name, line: number, entry, at };
            else addValue(name, entry, ns, number, at);
            continue;
          }
        }
      }
    }
    const text = cursor.line();
    const header = HEADER.exec(text);
    if (header) {
      if (expectMean) throw new FormatError(file.path, number, `benchmark "${expectMean.name}" has no mean line`);
      analysis = header[2] !== 'mean';
      wrapWidth = 'benchmark name'.length + header[1].length - 2;
      mode = 'header';
      pending = [];
      continue;
    }
    if (mode === 'outside') continue;
    if (mode === 'header') {
      if (/^-{10,}\s*$/.test(text)) mode = 'table';
      continue;
    }
    if (expectMean) {
      const mean = meanLine(text);
      if (!mean) throw new FormatError(file.path, number, `expected the mean line of benchmark "${expectMean.name}"`);
      add(c, expectMean.name, toNs(file, number, mean.value, mean.unit), number);
      expectMean = undefined;
      continue;
    }
    if (RULE.test(text)) {
      mode = 'outside';
      pending = [];
      continue;
    }
    if (text.trim() === '') {
      pending = [];
      continue;
    }
    const fail = failedRow(text);
    if (fail) {
      pending.push(fail.name);
      failed(c, joinName(pending, wrapWidth), fail.message, number);
      pending = [];
      continue;
    }
    const row = tableRow(text);
    if (row) {
      pending.push(row.name.trim());
      const name = joinName(pending, wrapWidth);
      pending = [];
      if (analysis) expectMean = { name, line: number };
      else add(c, name, toNs(file, number, row.value, row.unit), number);
      continue;
    }
    // A line that starts in the name column and has nothing else is part of a wrapped name.
    if (/^\S/.test(text)) pending.push(text.trim());
  }
  if (expectMean) throw new FormatError(file.path, expectMean.line, `benchmark "${expectMean.name}" has no mean line; is the output truncated?`);
  return c;
}

/** XML_NAME matches an element or attribute name where it is placed (sticky): one character class, no backtracking. */
const XML_NAME = /[A-Za-z_][\w:.-]*/y;
/** MAX_XML_DEPTH bounds the open-element stack; Catch2 nests sections a handful deep. */
const MAX_XML_DEPTH = 10_000;

function decodeEntities(text: string): string {
  return text.replace(/&(lt|gt|amp|quot|apos|#\d+|#x[0-9a-fA-F]+);/g, (whole, entity: string) => {
    switch (entity) {
      case 'lt':
        return '<';
      case 'gt':
        return '>';
      case 'amp':
        return '&';
      case 'quot':
        return '"';
      case 'apos':
        return "'";
    }
    const code = entity.startsWith('#x') ? parseInt(entity.slice(2), 16) : parseInt(entity.slice(1), 10);
    return Number.isSafeInteger(code) && code >= 0 && code <= 0x10ffff ? String.fromCodePoint(code) : whole;
  });
}

interface OpenBenchmark {
  name: string;
  offset: number;
  mean?: number;
  failure?: string;
  /** entry is the name's values when readXmlFast knew the name; at is where the name stands in the text (-1: it does not). */
  entry?: XmlEntry;
  at?: number;
}

/** XmlTag is one start or end tag; comments, declarations, CDATA and text are skipped. */
interface XmlTag {
  offset: number;
  name: string;
  end: boolean;
  selfClosing: boolean;
  attributes: Map<string, string>;
}

/**
 * xmlTags walks the tags of the small XML subset Catch2 writes, by hand:
 * every construct is found with indexOf or a sticky one-class pattern, so
 * the walk is linear and keeps no backtracking state (a single tokenizing
 * regular expression rescanned the rest of the file at each unterminated
 * `<!--`, and overflowed its stack on a tag with millions of attributes).
 */
function* xmlTags(file: SourceFile): Generator<XmlTag> {
  const text = file.text;
  const fail = (offset: number, message: string): never => {
    throw new FormatError(file.path, lineAt(text, offset), message);
  };
  const skipSpace = (at: number) => {
    while (at < text.length && isSpace(text.charCodeAt(at))) at += 1;
    return at;
  };
  const nameAt = (at: number): string | undefined => {
    XML_NAME.lastIndex = at;
    return XML_NAME.exec(text)?.[0];
  };
  const skipTo = (offset: number, from: number, close: string, what: string): number => {
    const end = text.indexOf(close, from);
    if (end < 0) fail(offset, `${what} is never closed (no "${close}"); is the output truncated?`);
    return end + close.length;
  };
  let at = 0;
  for (;;) {
    const offset = text.indexOf('<', at);
    if (offset < 0) return;
    if (text.startsWith('<!--', offset)) at = skipTo(offset, offset + 4, '-->', 'comment');
    else if (text.startsWith('<?', offset)) at = skipTo(offset, offset + 2, '?>', 'processing instruction');
    else if (text.startsWith('<![CDATA[', offset)) at = skipTo(offset, offset + 9, ']]>', 'CDATA section');
    else if (text.startsWith('<!DOCTYPE', offset)) at = skipTo(offset, offset + 9, '>', 'DOCTYPE');
    else if (text.startsWith('</', offset)) {
      const name = nameAt(offset + 2) ?? fail(offset, 'malformed XML markup');
      const close = skipSpace(offset + 2 + name.length);
      if (text[close] !== '>') fail(offset, 'malformed XML markup');
      at = close + 1;
      yield { offset, name, end: true, selfClosing: false, attributes: new Map() };
    } else {
      const name = nameAt(offset + 1) ?? fail(offset, 'malformed XML markup');
      const attributes = new Map<string, string>();
      let i = offset + 1 + name.length;
      for (;;) {
        const next = skipSpace(i);
        if (text[next] === '>' || (text[next] === '/' && text[next + 1] === '>')) {
          const selfClosing = text[next] === '/';
          at = next + (selfClosing ? 2 : 1);
          yield { offset, name, end: false, selfClosing, attributes };
          break;
        }
        // An attribute needs white space before it, a name, `=` and a quoted value without `<`.
        const attribute = next > i ? nameAt(next) : undefined;
        if (attribute === undefined) fail(offset, 'malformed XML markup');
        const equals = skipSpace(next + (attribute as string).length);
        if (text[equals] !== '=') fail(offset, 'malformed XML markup');
        const open = skipSpace(equals + 1);
        const quote = text[open];
        if (quote !== '"' && quote !== "'") fail(offset, 'malformed XML markup');
        const close = text.indexOf(quote, open + 1);
        if (close < 0) fail(offset, 'malformed XML markup');
        const value = text.slice(open + 1, close);
        if (value.includes('<')) fail(offset, 'malformed XML markup');
        attributes.set(attribute as string, decodeEntities(value));
        i = close + 1;
      }
    }
  }
}

function readXml(file: SourceFile): Collected {
  const c = newCollected(file);
  const text = file.text;
  const stack: { name: string; offset: number }[] = [];
  let bench: OpenBenchmark | undefined;
  for (const tag of xmlTags(file)) {
    const { offset } = tag;
    if (tag.end) {
      const open = stack.pop();
      if (!open || open.name !== tag.name) {
        throw new FormatError(file.path, lineAt(text, offset), `unexpected </${tag.name}>${open ? ` inside <${open.name}>` : ''}`);
      }
      if (tag.name === 'BenchmarkResults' && bench) {
        closeBenchmark(file, c, bench);
        bench = undefined;
      }
      continue;
    }
    const element = tag.name;
    const attrs = tag.attributes;
    const selfClosing = tag.selfClosing;
    if (element === 'Catch2TestRun' && attrs.has('catch2-version')) c.hints.catch2_version = attrs.get('catch2-version') ?? '';
    if (element === 'BenchmarkResults') {
      if (bench) throw new FormatError(file.path, lineAt(text, offset), `<BenchmarkResults> nested inside benchmark "${bench.name}"`);
      const name = attrs.get('name')?.trim();
      if (!name) throw new FormatError(file.path, lineAt(text, offset), '<BenchmarkResults> has no name');
      bench = { name, offset };
      if (selfClosing) {
        closeBenchmark(file, c, bench);
        bench = undefined;
      }
    } else if (bench && element === 'mean') {
      const value = parseFiniteNumber(attrs.get('value') ?? '');
      if (value === undefined) {
        throw new FormatError(file.path, lineAt(text, offset), `benchmark "${bench.name}": <mean value> is not a finite number`);
      }
      if (value < 0) throw new FormatError(file.path, lineAt(text, offset), `benchmark "${bench.name}": <mean value> is negative; a time cannot be below zero`);
      bench.mean = value;
    } else if (bench && element === 'failed') {
      bench.failure = attrs.get('message') ?? 'no message';
    }
    if (!selfClosing) {
      if (stack.length >= MAX_XML_DEPTH) throw new FormatError(file.path, lineAt(text, offset), `elements nest more than ${MAX_XML_DEPTH} deep; this is not Catch2 output`);
      stack.push({ name: element, offset });
    }
  }
  const open = stack.pop();
  if (open) throw new FormatError(file.path, lineAt(text, text.length), `<${open.name}> (line ${lineAt(text, open.offset)}) is never closed; is the output truncated?`);
  return c;
}

/** XML_RESULT_ELEMENTS are the elements readXml looks at, with the one attribute it reads of each. */
const XML_RESULT_ELEMENTS: [element: string, attribute: string][] = [
  ['BenchmarkResults', 'name'],
  ['mean', 'value'],
  ['failed', 'message'],
  ['Catch2TestRun', 'catch2-version'],
];
const BENCHMARK_RESULTS = 0;
const MEAN = 1;
const FAILED = 2;
const TEST_RUN = 3;

/** XML_NAME_CHAR[c] is 1 for the characters XML_NAME allows after the first: letters, digits, `_`, `:`, `.`, `-`. */
const XML_NAME_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) if (/[\w:.-]/.test(String.fromCharCode(c))) XML_NAME_CHAR[c] = 1;

/** Bail is thrown inside readXmlFast to hand the file to readXml. */
class Bail extends Error {}

/**
 * readXmlFast reads well-formed Catch2 XML as readXml does, in one pass over
 * the text with no object per tag: element and attribute names are compared
 * in place, and only the attributes readXml reads become strings (decoded
 * when they hold an entity). Returns undefined on anything else (malformed
 * markup, a benchmark readXml refuses, any error): readXml then reads the
 * file from the start, and raises the error.
 */
function readXmlFast(file: SourceFile): Collected | undefined {
  try {
    return readXmlInPlace(file);
  } catch (error) {
    if (error instanceof Bail || error instanceof FormatError) return undefined;
    throw error;
  }
}

/** isNameStart says whether a code unit can start an XML name (XML_NAME): a letter or `_`. */
function isNameStart(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** MAX_XML_NAMES is how many element names readXmlInPlace keeps; a file with more goes to readXml. */
const MAX_XML_NAMES = 64;

/**
 * readXmlInPlace is readXmlFast's pass. Tags are read from a window of the
 * text in a typed array (TextWindow; a tag that runs past its end is read
 * again from a window that starts with it, retry), element names compared there with their
 * units in a NameCodes; text between tags, comments and declarations are
 * skipped with indexOf.
 */
function readXmlInPlace(file: SourceFile): Collected {
  const c = newCollected(file);
  const text = file.text;
  const bail = (): never => {
    throw new Bail();
  };
  const skipTo = (from: number, close: string): number => {
    const end = text.indexOf(close, from);
    return end < 0 ? bail() : end + close.length;
  };
  const window = new TextWindow(text);
  // Element names, each a string once, with its units in nameCodes and what readXml makes of it
  // (an index of XML_RESULT_ELEMENTS or -1); the open elements are kept by their index in names.
  const names: string[] = [];
  const nameStarts: number[] = [];
  const nameKinds: number[] = [];
  const nameCodes = new NameCodes();
  const stack: number[] = [];
  /** nameIndex returns the index in names of the name at codes[start, end), adding it when it is new. */
  const nameIndex = (codes: Uint16Array, start: number, end: number, element: number): number => {
    const size = end - start;
    const known = nameCodes.codes;
    for (let k = 0; k < names.length; k++) {
      if (names[k].length !== size) continue;
      const at = nameStarts[k];
      let i = 0;
      while (i < size && codes[start + i] === known[at + i]) i++;
      if (i === size) return k;
    }
    if (names.length === MAX_XML_NAMES) bail();
    const name = text.slice(start + window.base, end + window.base);
    names.push(name);
    nameStarts.push(nameCodes.add(name));
    nameKinds.push(element);
    return names.length - 1;
  };
  let bench: OpenBenchmark | undefined;
  // Each name's values, in the order names came before, so a known name costs no lookup.
  const expected = new NameOrder<XmlEntry>();
  const entries = new Map<string, XmlEntry>();
  /** endBenchmark ends a benchmark as closeBenchmark does. */
  const endBenchmark = (ended: OpenBenchmark): void => {
    if (ended.failure !== undefined || ended.mean === undefined) {
      closeBenchmark(file, c, ended);
      return;
    }
    let entry = ended.entry ?? entries.get(ended.name);
    if (entry !== undefined) {
      c.budget.value(undefined);
      entry.values.push(ended.mean);
    } else {
      add(c, ended.name, ended.mean, undefined);
      entries.set(ended.name, (entry = { name: ended.name, at: ended.at ?? -1, next: undefined, values: c.values.get(ended.name) as number[] }));
    }
    expected.record(entry);
  };
  let offset = text.indexOf('<');
  while (offset >= 0) {
    window.cover(offset);
    // The tag is read in the window, r being where its `<` is there. A scan stops at the window's
    // end (its 0); a tag that runs past it is read again from a window that starts with it.
    const codes = window.codes;
    const base = window.base;
    const r = offset - base;
    const next = codes[r + 1];
    if (next === 33 || next === 63) {
      let at: number;
      if (text.startsWith('<!--', offset)) at = skipTo(offset + 4, '-->');
      else if (next === 63) at = skipTo(offset + 2, '?>');
      else if (text.startsWith('<![CDATA[', offset)) at = skipTo(offset + 9, ']]>');
      else if (text.startsWith('<!DOCTYPE', offset)) at = skipTo(offset + 9, '>');
      else at = bail();
      offset = text.indexOf('<', at);
      continue;
    }
    let p = r + 1;
    let ch = next;
    if (next === 47) ch = codes[++p];
    // The element's name: the ASCII characters of XML_NAME.
    const nameStart = p;
    if (!isNameStart(ch)) {
      if (window.retry(offset)) continue;
      bail();
    }
    while ((ch = codes[++p]) < 128 && XML_NAME_CHAR[ch] === 1);
    const nameStop = p;
    if (next === 47) {
      while (isSpace(ch)) ch = codes[++p];
      if (ch !== 62) {
        if (window.retry(offset)) continue;
        bail();
      }
      const open = stack.pop();
      if (open === undefined) bail();
      const index = open as number;
      const size = nameStop - nameStart;
      if (names[index].length !== size) bail();
      const known = nameCodes.codes;
      const at = nameStarts[index];
      for (let i = 0; i < size; i++) if (codes[nameStart + i] !== known[at + i]) bail();
      if (bench !== undefined && nameKinds[index] === BENCHMARK_RESULTS) {
        endBenchmark(bench);
        bench = undefined;
      }
      offset = text.indexOf('<', p + base + 1);
      continue;
    }
    // A start tag. Told apart by length first: most elements are none of those readXml reads.
    let element = -1;
    const nameLength = nameStop - nameStart;
    for (let k = 0; k < XML_RESULT_ELEMENTS.length; k++) {
      const known = XML_RESULT_ELEMENTS[k][0];
      if (known.length === nameLength && sameCodes(codes, nameStart, known)) element = k;
    }
    const wanted = element < 0 ? '' : XML_RESULT_ELEMENTS[element][1];
    // Where the wanted attribute's value is in the window, and where the tag ends (-1: malformed, or past the window's end).
    let valueStart = -1;
    let valueEnd = -1;
    let tagEnd = -1;
    let selfClosing = false;
    let i = nameStop;
    for (;;) {
      let after = i;
      while (isSpace(ch)) ch = codes[++after];
      if (ch === 62 || (ch === 47 && codes[after + 1] === 62)) {
        selfClosing = ch === 47;
        tagEnd = after + (selfClosing ? 2 : 1);
        break;
      }
      // An attribute needs white space before it, a name, `=` and a quoted value without `<`.
      if (after === i || !isNameStart(ch)) break;
      let q = after;
      while ((ch = codes[++q]) < 128 && XML_NAME_CHAR[ch] === 1);
      const attributeEnd = q;
      while (isSpace(ch)) ch = codes[++q];
      if (ch !== 61) break;
      while (isSpace((ch = codes[++q])));
      const quote = ch;
      if (quote !== 34 && quote !== 39) break;
      let close = q + 1;
      while ((ch = codes[close]) !== quote && ch !== 60 && ch !== 0) close += 1;
      if (ch !== quote) break;
      if (wanted !== '' && attributeEnd - after === wanted.length && sameCodes(codes, after, wanted)) {
        valueStart = q + 1;
        valueEnd = close;
      }
      i = close + 1;
      ch = codes[i];
    }
    if (tagEnd < 0) {
      if (window.retry(offset)) continue;
      bail();
    }
    // Only what readXml reads becomes a string; an entity is decoded as readXml decodes it.
    let entity = false;
    for (let k = valueStart; k < valueEnd; k++) if (codes[k] === 38) entity = true;
    // A mean without an entity is read from its characters.
    // A benchmark name is compared in place with the names expected next.
    const known = element === BENCHMARK_RESULTS && !entity && valueStart >= 0 ? expected.find(text, valueStart + base, valueEnd + base) : undefined;
    const inPlace = (element === MEAN && !entity) || known !== undefined;
    const value = valueStart < 0 || inPlace ? undefined : entity ? decodeEntities(text.slice(valueStart + base, valueEnd + base)) : text.slice(valueStart + base, valueEnd + base);
    if (element === TEST_RUN && value !== undefined) c.hints.catch2_version = value;
    if (element === BENCHMARK_RESULTS) {
      const name = known !== undefined ? known.name : value?.trim();
      if (bench !== undefined || !name) bail();
      // The name stands in the text when no entity or white space was taken out of it.
      bench = { name: name as string, offset, entry: known, at: !entity && valueEnd - valueStart === (name as string).length ? valueStart + base : -1 };
      if (selfClosing) {
        endBenchmark(bench);
        bench = undefined;
      }
    } else if (bench !== undefined && element === MEAN) {
      let read = valueStart >= 0 && inPlace ? windowDecimal(codes, valueStart, valueEnd) : NaN;
      if (read !== read && valueStart >= 0 && inPlace) read = readDecimal(text, valueStart + base, valueEnd + base);
      const mean = read === read ? read : parseFiniteNumber(valueStart >= 0 && inPlace ? text.slice(valueStart + base, valueEnd + base) : (value ?? ''));
      if (mean === undefined || mean < 0) bail();
      bench.mean = mean;
    } else if (bench !== undefined && element === FAILED) {
      bench.failure = value ?? 'no message';
    }
    if (!selfClosing) {
      if (stack.length >= MAX_XML_DEPTH) bail();
      stack.push(nameIndex(codes, nameStart, nameStop, element));
    }
    offset = text.indexOf('<', tagEnd + base);
  }
  if (stack.length > 0) bail();
  return c;
}

/** sameCodes says whether codes[start, start + name.length) is `name`. */
function sameCodes(codes: Uint16Array, start: number, name: string): boolean {
  for (let i = name.length - 1; i >= 0; i--) if (codes[start + i] !== name.charCodeAt(i)) return false;
  return true;
}

/**
 * windowDecimal reads codes[start, end) when it is a plain decimal: digits
 * with at most one dot, at most 15 of them, so that the mantissa is exact and
 * one division by an exact power of ten rounds it as Number() does (as
 * readDecimal reads it). NaN for anything else.
 */
function windowDecimal(codes: Uint16Array, start: number, end: number): number {
  let mantissa = 0;
  let dot = -1;
  for (let p = start; p < end; p++) {
    const c = codes[p];
    if (c >= 48 && c <= 57) mantissa = mantissa * 10 + (c - 48);
    else if (c === 46 && dot < 0) dot = p;
    else return NaN;
  }
  const digits = end - start - (dot < 0 ? 0 : 1);
  if (digits === 0 || digits > 15) return NaN;
  return dot < 0 || dot === end - 1 ? mantissa : mantissa / POWERS_OF_TEN[end - dot - 1];
}

/** XmlEntry is a benchmark name with its values (in the console reading too). */
interface XmlEntry extends NamedEntry {
  values: number[];
}

function closeBenchmark(file: SourceFile, c: Collected, bench: OpenBenchmark): void {
  // No line for the budget: lineAt costs a pass over the text, paid only on errors.
  if (bench.failure !== undefined) failed(c, bench.name, bench.failure, undefined);
  else if (bench.mean === undefined) throw new FormatError(file.path, lineAt(file.text, bench.offset), `benchmark "${bench.name}" has neither <mean> nor <failed>`);
  else add(c, bench.name, bench.mean, undefined);
}
