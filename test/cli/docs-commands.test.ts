// The docs against the CLI: every `benchbot` command in a shell code block of
// the README and docs/*.md, or in an inline code span of their prose, names a
// command that exists and only flags its --help lists; the ones that can run
// here offline (parse and compare of files in this repository) are run and
// must not fail with a usage or input error (exit 2). The flags the verdict's
// description names are flags of both commands that reach verdicts, and the
// default test the JSON reference names is the one the JSON reports. The README's migration table from github-action-benchmark
// names only inputs, outputs and flags that exist.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/benchbot.js');
const FILES = ['README.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

interface Documented {
  where: string;
  line: string;
  args: string[];
}

/** words splits a shell line into words (quotes kept together, comments dropped): enough for the docs' examples. */
function words(line: string): string[] {
  const out: string[] = [];
  const re = /'([^']*)'|"([^"]*)"|(#.*$)|(\S+)/g;
  for (const m of line.matchAll(re)) {
    if (m[3] !== undefined) break;
    out.push(m[1] ?? m[2] ?? m[4]);
  }
  return out;
}

function documentedCommands(): Documented[] {
  const found: Documented[] = [];
  for (const file of FILES) {
    const text = readFileSync(join(ROOT, file), 'utf8');
    for (const block of text.matchAll(/^```(sh|bash|shell|console)\n([\s\S]*?)^```/gm)) {
      const start = text.slice(0, block.index).split('\n').length + 1;
      const lines = block[2].replace(/\\\n\s*/g, ' ').split('\n');
      lines.forEach((raw, i) => {
        const line = raw.replace(/^\$\s+/, '').trim();
        const w = words(line);
        const at = w.findIndex((x, k) => x === 'benchbot' && (k === 0 || w[k - 1] === 'npx' || w[k - 1] === 'sudo'));
        const js = w.findIndex((x) => /(^|\/)(bin|dist)\/benchbot\.js$/.test(x));
        // The bisect adapters pass their arguments to benchbot bisect-oracle.
        const oracle = w.findIndex((x) => /bisect\/(git-bisect-run|cargo-bisect-rustc-script)$/.test(x));
        if (oracle !== -1) {
          const after = w.slice(oracle + 1);
          found.push({ where: `${file}:${start + i}`, line, args: ['bisect-oracle', ...(after[0] === '--' ? after.slice(1) : after)] });
          return;
        }
        const from = at !== -1 ? at + 1 : js !== -1 ? js + 1 : -1;
        if (from === -1 || w[from] === undefined) return;
        found.push({ where: `${file}:${start + i}`, line, args: w.slice(from).map((a) => a.replace(/^\[/, '')) });
      });
    }
    // Inline code in prose: `benchbot compare --test yuen` claims as much as a code block does.
    const prose = text.replace(/^```[\s\S]*?^```/gm, (block) => block.replace(/[^\n]/g, ' '));
    for (const span of prose.matchAll(/`(?:npx )?benchbot ([a-z][a-z-]*(?: [^`\n]*)?)`/g)) {
      const line = text.slice(0, span.index).split('\n').length;
      found.push({ where: `${file}:${line}`, line: span[0], args: words(span[1]) });
    }
  }
  return found;
}

/** flagsIn lists the `--flag`s of the inline code spans of a piece of markdown. */
function flagsIn(markdown: string): string[] {
  return [...new Set([...markdown.matchAll(/`[^`\n]*`/g)].flatMap((span) => [...span[0].matchAll(/(?<![\w-])(--[a-z][\w-]*)/g)].map((m) => m[1])))];
}

/** section is the markdown from the line matching start up to the next line matching end (or the end of the file). */
function section(file: string, start: RegExp, end: RegExp): string {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const from = text.search(start);
  assert.ok(from >= 0, `${file} has the section ${start}`);
  const rest = text.slice(from + 1);
  const to = rest.search(end);
  return to === -1 ? rest : rest.slice(0, to);
}

function benchbot(args: string[]) {
  return spawnSync(process.execPath, [BIN, ...args], { cwd: ROOT, encoding: 'utf8', env: { ...process.env, BENCHBOT_DATABASE_URL: '' } });
}

const helps = new Map<string, string>();
function help(command: string): string {
  if (!helps.has(command)) helps.set(command, benchbot([command, '--help']).stdout);
  return helps.get(command) as string;
}

test('every documented benchbot command exists and every flag it uses is in that command\'s --help', () => {
  const documented = documentedCommands();
  assert.ok(documented.length >= 20, `found ${documented.length} commands in the docs`);
  const problems: string[] = [];
  for (const d of documented) {
    const [command, ...rest] = d.args;
    const text = help(command);
    if (!/^usage: benchbot /.test(text)) {
      problems.push(`${d.where}: benchbot ${command} is not a command (${d.line})`);
      continue;
    }
    for (const arg of rest) {
      const flag = /^(--[a-z][\w-]*)/.exec(arg)?.[1];
      if (flag && flag !== '--help' && !new RegExp(`${flag}(?![\\w-])`).test(text)) problems.push(`${d.where}: benchbot ${command} ${flag} is not in its --help (${d.line})`);
    }
  }
  assert.deepEqual(problems, []);
});

test('every flag the verdict\'s description names is a flag of both commands that reach verdicts, compare and run', () => {
  const described = [
    section('README.md', /^How a verdict is reached/m, /^#/m),
    section('docs/statistics.md', /^## The rule$/m, /^## /m),
  ].flatMap(flagsIn);
  assert.ok(described.includes('--alpha'), `found the verdict flags: ${described.join(' ')}`);
  const problems: string[] = [];
  for (const command of ['compare', 'run']) {
    for (const flag of described) if (!new RegExp(`${flag}(?![\\w-])`).test(help(command))) problems.push(`benchbot ${command} has no ${flag}, which the verdict's description names`);
  }
  assert.deepEqual(problems, []);
});

test('the default test the JSON reference names is the one compare\'s JSON report says it used', () => {
  const report = benchbot(['compare', 'fixtures/comparisons/go-benchmem-base.txt', 'fixtures/comparisons/go-benchmem-head.txt', '--output', 'json']);
  const used = JSON.parse(report.stdout).test as string;
  const NAMES: Record<string, RegExp> = { 'mann-whitney': /Mann-Whitney/, yuen: /Yuen/ };
  assert.ok(NAMES[used], `compare reports test ${used}`);
  const claims = readFileSync(join(ROOT, 'docs/report-json.md'), 'utf8').split('\n').flatMap((line) => [...line.matchAll(/([^;(|]*?) by default/g)].map((m) => m[1]));
  assert.ok(claims.length > 0, 'docs/report-json.md says which test is the default');
  for (const claim of claims) {
    for (const [test, name] of Object.entries(NAMES)) {
      if (test !== used) assert.doesNotMatch(claim, name, `docs/report-json.md: "${claim} by default", but the report's test is ${used}`);
    }
  }
  assert.ok(claims.some((claim) => NAMES[used].test(claim)), `docs/report-json.md names ${used} as the default`);
});

test('the documented parse and compare commands run here on the repository\'s own files', () => {
  let ran = 0;
  for (const d of documentedCommands()) {
    const [command, ...rest] = d.args;
    if (command !== 'parse' && command !== 'compare') continue;
    const files = rest.filter((a) => !a.startsWith('-') && !/^(markdown|text|json|compare\.py|plain|go)$/.test(a)).flatMap((a) => a.split(','));
    if (files.length === 0 || !files.every((f) => existsSync(join(ROOT, f)))) continue;
    const run = benchbot(d.args);
    assert.notEqual(run.status, 2, `${d.where}: ${d.line}\n${run.stderr}`);
    ran += 1;
  }
  assert.ok(ran >= 2, `ran ${ran} documented commands`);
});

// github-action-benchmark's inputs, from its action.yml at commit a5f07e97
// (benchmark-action/github-action-benchmark): the migration table has a row
// for each, and no other.
const GAB_INPUTS = [
  'name', 'tool', 'output-file-path', 'gh-pages-branch', 'gh-repository', 'benchmark-data-dir-path', 'github-token', 'ref',
  'auto-push', 'skip-fetch-gh-pages', 'comment-always', 'summary-always', 'save-data-file', 'comment-on-alert', 'alert-threshold',
  'fail-on-alert', 'fail-threshold', 'alert-comment-cc-users', 'external-data-json-path', 'max-items-in-chart',
];

test('the README\'s migration table maps every github-action-benchmark input to benchbot inputs, outputs and flags that exist', async () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = /^## Coming from github-action-benchmark\n([\s\S]*?)^## /m.exec(readme)?.[1] ?? '';
  const rows = [...section.matchAll(/^\| `([\w-]+)` \| ([^|]+) \| ([^|]+) \|$/gm)].map((m) => ({ gab: m[1], benchbot: m[2], notes: m[3] }));
  assert.deepEqual(rows.map((r) => r.gab).sort(), [...GAB_INPUTS].sort());
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { inputs: Record<string, unknown>; outputs: Record<string, unknown> };
  const { formatNames } = await import('../../src/formats/detect.ts');
  // The reusable workflows' own inputs (nightly.yml's dashboard-repository) count as benchbot inputs too.
  const workflowInputs = new Set(readdirSync(join(ROOT, '.github/workflows')).filter((f) => f.endsWith('.yml')).flatMap((f) => {
    const on = (parse(readFileSync(join(ROOT, '.github/workflows', f), 'utf8')) as { on?: { workflow_call?: { inputs?: Record<string, unknown> } } }).on;
    return Object.keys(on?.workflow_call?.inputs ?? {});
  }));
  const problems: string[] = [];
  for (const row of rows) {
    const named = [...row.benchbot.matchAll(/`([^`]+)`/g)].map((m) => m[1]);
    if (named.length === 0) problems.push(`${row.gab}: the benchbot column names nothing`);
    for (const name of named) {
      const command = /^benchbot ([\w-]+)((?: --[\w-]+)*)$/.exec(name);
      if (command) {
        const text = help(command[1]);
        if (!/^usage: benchbot /.test(text)) problems.push(`${row.gab}: benchbot ${command[1]} is not a command`);
        for (const flag of command[2].trim().split(/\s+/).filter((f) => f !== '')) if (!new RegExp(`${flag}(?![\\w-])`).test(text)) problems.push(`${row.gab}: benchbot ${command[1]} has no ${flag}`);
        continue;
      }
      const input = /^([\w-]+)(?:: (.+))?$/.exec(name);
      if (input && input[1] in action.inputs) {
        if (input[1] === 'format' && input[2] !== undefined && !formatNames().includes(input[2])) problems.push(`${row.gab}: format: ${input[2]} is not a format`);
        continue;
      }
      if (input && input[2] === undefined && input[1] in action.outputs) continue;
      if (input && input[2] === undefined && workflowInputs.has(input[1])) continue;
      problems.push(`${row.gab}: \`${name}\` is neither an input or output of action.yml or a reusable workflow nor a benchbot command with its flags`);
    }
  }
  assert.deepEqual(problems, []);
});
