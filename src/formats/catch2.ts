import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import { FormatError } from './format-error.ts';
import { checkText, lineAt } from './json-document.ts';
import type { Reader, ReadResult, SourceFile } from './reader.ts';
import { parseFiniteNumber, splitLines } from './text-lines.ts';

/** Nanoseconds per unit of Catch2's auto-scaled `Duration` (it prints minutes as `m`). */
const NS_PER_UNIT: Record<string, number> = { ns: 1, us: 1e3, ms: 1e6, s: 1e9, m: 60e9 };

const NUMBER = String.raw`[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?`;
const UNIT = String.raw`(ns|us|ms|s|m)`;
const HEADER = /^benchmark name(\s+)samples\s+iterations\s+(estimated|mean)\s*$/;
const ROW = new RegExp(String.raw`^(\S.*?)\s{2,}(\d+)\s+(\d+)\s+(${NUMBER}) ${UNIT}\s*$`);
const TRIPLE = new RegExp(String.raw`^\s+(${NUMBER}) ${UNIT}\s+(${NUMBER}) ${UNIT}\s+(${NUMBER}) ${UNIT}\s*$`);
const FAILED = /^(\S.*?)\s{2,}Benchmark failed \((.*)\)\s*$/;
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
      return VERSION.test(head) || /^benchmark name\s+samples\s+iterations\s+(estimated|mean)\s*$/m.test(head);
    } catch {
      return false;
    }
  },
  read(file: SourceFile): ReadResult {
    checkText(file);
    if (file.text.trim() === '') throw new FormatError(file.path, undefined, 'file is empty');
    const collected = file.text.trimStart().startsWith('<') ? readXml(file) : readConsole(file);
    return finish(file, collected);
  },
};

interface Collected {
  order: string[];
  values: Map<string, number[]>;
  warnings: ReadWarning[];
  hints: FingerprintHints;
}

function newCollected(): Collected {
  return { order: [], values: new Map(), warnings: [], hints: {} };
}

function add(c: Collected, name: string, ns: number): void {
  let list = c.values.get(name);
  if (!list) {
    list = [];
    c.values.set(name, list);
    c.order.push(name);
  }
  list.push(ns);
}

function failed(c: Collected, name: string, message: string): void {
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
  const ns = value * factor;
  if (!Number.isFinite(ns)) throw new FormatError(file.path, line, `duration out of range: "${number} ${unit}"`);
  return ns;
}

/** joinName undoes the console's wrapping of long names at `width` columns (a mid-word break ends in `-`). */
function joinName(fragments: string[], width: number): string {
  let name = fragments[0] ?? '';
  for (let i = 1; i < fragments.length; i++) {
    const previous = fragments[i - 1];
    name = previous.endsWith('-') && previous.length === width ? name.slice(0, -1) + fragments[i] : `${name} ${fragments[i]}`;
  }
  return name;
}

function readConsole(file: SourceFile): Collected {
  const c = newCollected();
  const version = VERSION.exec(file.text);
  if (version) c.hints.catch2_version = version[1];
  type Mode = 'outside' | 'header' | 'table';
  let mode: Mode = 'outside';
  let analysis = true;
  let wrapWidth = 35;
  let pending: string[] = [];
  let expectMean: { name: string; line: number } | undefined;
  for (const { number, text } of splitLines(file)) {
    const header = HEADER.exec(text);
    if (header) {
      if (expectMean) throw new FormatError(file.path, number, `benchmark "${expectMean.name}" has no mean line`);
      analysis = header[2] === 'estimated';
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
      const triple = TRIPLE.exec(text);
      if (!triple) throw new FormatError(file.path, number, `expected the mean line of benchmark "${expectMean.name}"`);
      add(c, expectMean.name, toNs(file, number, triple[1], triple[2]));
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
    const fail = FAILED.exec(text);
    if (fail) {
      failed(c, joinName([...pending, fail[1].trim()], wrapWidth), fail[2]);
      pending = [];
      continue;
    }
    const row = ROW.exec(text);
    if (row) {
      const name = joinName([...pending, row[1].trim()], wrapWidth);
      pending = [];
      if (analysis) expectMean = { name, line: number };
      else add(c, name, toNs(file, number, row[4], row[5]));
      continue;
    }
    // A line that starts in the name column and has nothing else is part of a wrapped name.
    if (/^\S/.test(text)) pending.push(text.trim());
  }
  if (expectMean) throw new FormatError(file.path, expectMean.line, `benchmark "${expectMean.name}" has no mean line; is the output truncated?`);
  return c;
}

const XML_TOKEN =
  /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!\[CDATA\[[\s\S]*?\]\]>|<!DOCTYPE[^>]*>|<\/([A-Za-z_][\w:.-]*)\s*>|<([A-Za-z_][\w:.-]*)((?:\s+[A-Za-z_][\w:.-]*\s*=\s*(?:"[^"<]*"|'[^'<]*'))*)\s*(\/?)>|[^<]+|</y;
const XML_ATTRIBUTE = /([A-Za-z_][\w:.-]*)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;

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

function attributes(source: string): Map<string, string> {
  const map = new Map<string, string>();
  for (const m of source.matchAll(XML_ATTRIBUTE)) map.set(m[1], decodeEntities(m[2] ?? m[3] ?? ''));
  return map;
}

interface OpenBenchmark {
  name: string;
  offset: number;
  mean?: number;
  failure?: string;
}

function readXml(file: SourceFile): Collected {
  const c = newCollected();
  const text = file.text;
  const stack: { name: string; offset: number }[] = [];
  let bench: OpenBenchmark | undefined;
  XML_TOKEN.lastIndex = 0;
  while (XML_TOKEN.lastIndex < text.length) {
    const offset = XML_TOKEN.lastIndex;
    const m = XML_TOKEN.exec(text);
    if (!m) throw new FormatError(file.path, lineAt(text, offset), 'malformed XML');
    const token = m[0];
    if (token === '<') throw new FormatError(file.path, lineAt(text, offset), 'malformed XML markup');
    if (!token.startsWith('<') || token.startsWith('<!') || token.startsWith('<?')) continue;
    if (m[1] !== undefined) {
      const open = stack.pop();
      if (!open || open.name !== m[1]) {
        throw new FormatError(file.path, lineAt(text, offset), `unexpected </${m[1]}>${open ? ` inside <${open.name}>` : ''}`);
      }
      if (m[1] === 'BenchmarkResults' && bench) {
        closeBenchmark(file, c, bench);
        bench = undefined;
      }
      continue;
    }
    const element = m[2];
    const attrs = attributes(m[3]);
    const selfClosing = m[4] === '/';
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
      bench.mean = value;
    } else if (bench && element === 'failed') {
      bench.failure = attrs.get('message') ?? 'no message';
    }
    if (!selfClosing) stack.push({ name: element, offset });
  }
  const open = stack.pop();
  if (open) throw new FormatError(file.path, lineAt(text, text.length), `<${open.name}> (line ${lineAt(text, open.offset)}) is never closed; is the output truncated?`);
  return c;
}

function closeBenchmark(file: SourceFile, c: Collected, bench: OpenBenchmark): void {
  if (bench.failure !== undefined) failed(c, bench.name, bench.failure);
  else if (bench.mean === undefined) throw new FormatError(file.path, lineAt(file.text, bench.offset), `benchmark "${bench.name}" has neither <mean> nor <failed>`);
  else add(c, bench.name, bench.mean);
}
