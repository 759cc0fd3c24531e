import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { READERS } from '../../src/formats/detect.ts';
import { readCriterionDirectory } from '../../src/formats/criterion.ts';
import { FormatError } from '../../src/formats/format-error.ts';
import type { ReadResult, SourceFile } from '../../src/formats/reader.ts';
import { FIXTURES } from '../support/fixtures.ts';
import { seededRandom } from '../support/random.ts';

// Property: whatever bytes a reader is given, it returns a well-formed result
// or throws FormatError; nothing else may escape. The mutations mimic what
// goes wrong in CI logs: truncation, spliced lines, wrong types, NaN, junk.
const CASES = Number(process.env.BENCHBOT_FUZZ_CASES ?? 10_000);
const SEED = Number(process.env.BENCHBOT_FUZZ_SEED ?? 20261122);

function fixtureFiles(): SourceFile[] {
  const files: SourceFile[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (entry.name !== 'capture') walk(full);
      } else if (!entry.name.endsWith('.expected.json') && !entry.name.endsWith('.md')) {
        files.push({ path: relative(FIXTURES, full), text: readFileSync(full, 'utf8') });
      }
    }
  };
  walk(FIXTURES);
  return files;
}

const REPLACEMENTS = ['NaN', 'Infinity', '-1', '1e999', '"x"', 'null', '[]', '{}', 'true', '-0', '0', '1e-320', '"', '\u0000', '\uFFFD', '9'.repeat(400)];

function mutate(text: string, random: () => number): string {
  const at = () => Math.floor(random() * (text.length + 1));
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)];
  switch (Math.floor(random() * 9)) {
    case 0:
      return text.slice(0, at());
    case 1: {
      const i = at();
      return text.slice(0, i) + String.fromCharCode(Math.floor(random() * 0x250)) + text.slice(i + 1);
    }
    case 2: {
      const i = at();
      return text.slice(0, i) + text.slice(i + 1 + Math.floor(random() * 64));
    }
    case 3: {
      const i = at();
      const j = Math.min(text.length, i + Math.floor(random() * 200));
      const k = at();
      return text.slice(0, k) + text.slice(i, j) + text.slice(k);
    }
    case 4: {
      // Replace one number with something hostile.
      const numbers = [...text.matchAll(/-?\d+(\.\d+)?([eE][+-]?\d+)?/g)];
      if (numbers.length === 0) return text + pick(REPLACEMENTS);
      const m = pick(numbers);
      return text.slice(0, m.index) + pick(REPLACEMENTS) + text.slice(m.index + m[0].length);
    }
    case 5: {
      // Replace one string value or key with a hostile value.
      const strings = [...text.matchAll(/"[^"\n]{0,80}"/g)];
      if (strings.length === 0) return pick(REPLACEMENTS) + text;
      const m = pick(strings);
      return text.slice(0, m.index) + pick(REPLACEMENTS) + text.slice(m.index + m[0].length);
    }
    case 6: {
      const lines = text.split('\n');
      const i = Math.floor(random() * lines.length);
      lines.splice(i, 0, ...lines.slice(Math.floor(random() * lines.length)).slice(0, 3));
      return lines.join('\n');
    }
    case 7:
      return Array.from({ length: Math.floor(random() * 300) }, () => String.fromCharCode(Math.floor(random() * 256))).join('');
    default:
      return mutate(mutate(text, random), random);
  }
}

function checkResult(result: ReadResult, context: string): void {
  assert.ok(Array.isArray(result.measurements) && Array.isArray(result.warnings), `${context}: result shape`);
  for (const m of result.measurements) {
    assert.ok(typeof m.benchmark === 'string' && m.benchmark.length > 0, `${context}: empty benchmark name`);
    assert.ok(m.better === 'lower' || m.better === 'higher', `${context}: direction ${m.better}`);
    assert.ok(m.values.length > 0, `${context}: ${m.benchmark}/${m.metric} has no values`);
    for (const v of m.values) assert.ok(Number.isFinite(v), `${context}: ${m.benchmark}/${m.metric} value ${v}`);
  }
}

function attempt(run: () => ReadResult, context: string): void {
  let result: ReadResult;
  try {
    result = run();
  } catch (error) {
    if (error instanceof FormatError) return;
    assert.fail(`${context}: threw ${(error as Error)?.stack ?? String(error)}`);
  }
  checkResult(result, context);
}

test(`every reader survives ${CASES} mutated fixtures with nothing but FormatError (seed ${SEED})`, () => {
  const files = fixtureFiles();
  assert.ok(files.length >= 10, 'fixtures found');
  const random = seededRandom(SEED);
  for (let i = 0; i < CASES; i++) {
    const source = files[Math.floor(random() * files.length)];
    const mutated: SourceFile = { path: source.path, text: mutate(source.text, random) };
    for (const reader of READERS) {
      attempt(() => reader.read(mutated), `case ${i} (${source.path}) reader ${reader.format}`);
      const head = mutated.text.slice(0, 4096);
      assert.equal(typeof reader.sniff(head), 'boolean');
    }
    if (source.path.includes('/new/')) {
      attempt(() => readCriterionDirectory([mutated]), `case ${i} (${source.path}) criterion directory`);
    }
  }
});
