// The docs against the CLI: every `benchbot` command in a shell code block of
// the README and docs/*.md names a command that exists and only flags its
// --help lists; the ones that can run here offline (parse and compare of
// files in this repository) are run and must not fail with a usage or input
// error (exit 2).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

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
  }
  return found;
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
      if (flag && !new RegExp(`${flag}(?![\\w-])`).test(text)) problems.push(`${d.where}: benchbot ${command} ${flag} is not in its --help (${d.line})`);
    }
  }
  assert.deepEqual(problems, []);
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
