// findCommandLine against GitHub's renderer: generated comment bodies
// (footnotes, HTML blocks, code, quotes, lists, tables, headings, references)
// are read by benchbot and rendered by cmark-gfm (the `cmarkgfm` package,
// GitHub's C library; scripts/gfm-visible-commands.py). benchbot must find a
// command exactly when cmark-gfm shows `/bench` as the first line of a
// top-level paragraph, and the same line (issue 22, item 7).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { findCommandLine } from '../../src/app/bench-command.ts';
import { seededRandom } from '../support/random.ts';

const ORACLE = fileURLToPath(new URL('../../scripts/gfm-visible-commands.py', import.meta.url));

/**
 * LINES are the pieces bodies are made of: each construct that can hide or
 * end a paragraph, in the forms whose reading differs between parsers
 * (footnote labels, indentation, HTML block kinds and their ends, lazy lines).
 */
const LINES = [
  '/bench', '/bench runs=5', '  /bench', '   /bench help', '    /bench', '\t/bench', '/benchmark', '/bench-x',
  'text', 'more text', 'a[^1] b', 'see [^note]', '',
  '[^1]: x', '[^1]:', '[^note]: a note', '[^a b]: not a footnote', '[^]: empty label', '   [^1]: indented 3', '    [^1]: indented 4', '[^1]:x', '[^1]:  /bench', '[^x]: [^y]: nested',
  '    continued', '  two spaces', '\tone tab',
  '> quote', '> /bench', '>', '- item', '- /bench', '1. item', '2) /bench', '* [ ] task', '+',
  '```', '~~~', '````', '```js', '    code',
  '<div>', '</div>', '<div>/bench</div>', '<details>', '</details>', '<summary>s</summary>', '<pre>', '</pre>', '<script>', '</script>', '<style>', '</style>', '<textarea>', '</textarea>',
  '<!--', '-->', '<!-- one line -->', '<?php', '?>', '<!DOCTYPE html>', '<![CDATA[', ']]>', '<span>', '</span>', '<b>x</b>', '<custom-tag>', '</custom-tag>', '<a href="x">', '<img src=x>',
  '| a | b |', '|---|---|', '| /bench | x |', 'a | b', '--- | ---',
  '# heading', '## /bench', '---', '***', '===', 'Setext',
  '[ref]: https://example.com', '[ref]:', '[^ref]: https://example.com "t"',
];


/** generateBodies makes `count` bodies of 1 to 7 lines from LINES, each holding `/bench` somewhere. */
function generateBodies(count: number, seed: number): string[] {
  const random = seededRandom(seed);
  const pick = () => LINES[Math.floor(random() * LINES.length)];
  const bodies: string[] = [];
  while (bodies.length < count) {
    const lines = Array.from({ length: 1 + Math.floor(random() * 7) }, pick);
    const body = lines.join(random() < 0.1 ? '\r\n' : '\n');
    if (/\/bench/i.test(body)) bodies.push(body);
  }
  return bodies;
}

/** gfmCommands asks cmark-gfm (scripts/gfm-visible-commands.py) which line, if any, it shows as a command. */
function gfmCommands(bodies: string[]): (string | null)[] {
  const run = spawnSync('python3', [ORACLE], { input: JSON.stringify(bodies), encoding: 'utf8', maxBuffer: 64 << 20 });
  if (run.status !== 0) {
    assert.fail(`${ORACLE} failed (${run.status}): ${run.stderr.trim()}\nIt needs cmark-gfm's Python binding: python3 -m pip install cmarkgfm (scripts/prepare-tests.sh installs it).`);
  }
  return JSON.parse(run.stdout) as (string | null)[];
}

test('benchbot finds /bench exactly where cmark-gfm shows it as the first line of a top-level paragraph', (t) => {
  // BENCHBOT_GFM_SEED and BENCHBOT_GFM_BODIES explore other bodies; the defaults are what CI checks.
  const bodies = generateBodies(Number(process.env.BENCHBOT_GFM_BODIES ?? 6000), Number(process.env.BENCHBOT_GFM_SEED ?? 20261127));
  const started = performance.now();
  const reference = gfmCommands(bodies);
  t.diagnostic(`cmark-gfm read ${bodies.length} bodies in ${Math.round(performance.now() - started)} ms; ${reference.filter((r) => r !== null).length} show a command`);
  const differ: string[] = [];
  for (const [i, body] of bodies.entries()) {
    const ours = findCommandLine(body);
    const theirs = reference[i];
    if (ours !== theirs) differ.push(`${JSON.stringify(body)}: benchbot ${JSON.stringify(ours)}, cmark-gfm ${JSON.stringify(theirs)}`);
  }
  t.diagnostic(`${differ.length} of ${bodies.length} bodies read differently`);
  assert.deepEqual(differ.slice(0, 20), [], `${differ.length} of ${bodies.length} bodies are read differently (first 20 shown)`);
});
