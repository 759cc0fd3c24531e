// The layering docs/architecture.md promises, checked on every import in src/:
// adapters do not import each other, nothing below them imports them, and
// the pure core touches no file, process, network, clock-bound service or
// GitHub library.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';

const SRC = resolve(import.meta.dirname, '../../src');
const ADAPTERS = ['cli', 'action', 'app'];
/** `benchbot serve` is how the app's server is started: the CLI may start the app, nothing else may reach into another adapter. */
const ALLOWED = new Set(['cli>app']);
const CORE = ['model', 'formats', 'stats', 'compare', 'report', 'scan', 'bisect'];
const EDGE_MODULES = /^(node:(fs|fs\/promises|child_process|net|http|https|dgram|worker_threads)|pg|pg-copy-streams|probot|@actions\/|@octokit\/)/;

/** imports lists every file under src/ (but the browser pages) with the modules it imports, relative ones as folders of src/. */
function imports(): { file: string; folder: string; specifiers: string[] }[] {
  const out: { file: string; folder: string; specifiers: string[] }[] = [];
  for (const entry of readdirSync(SRC, { recursive: true, withFileTypes: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.ts')) continue;
    const path = join(entry.parentPath, entry.name);
    const file = relative(SRC, path);
    if (file.startsWith('dashboard/web/')) continue;
    const text = readFileSync(path, 'utf8');
    // Type-only imports are erased before anything runs; they do not tie the layers together.
    const specifiers = [...text.matchAll(/^\s*(?:import|export)\s+(?!type\b)[^'"]*?from\s+'([^']+)'/gm)].map((m) => m[1]);
    out.push({ file, folder: file.split('/')[0], specifiers: specifiers.map((s) => (s.startsWith('.') ? relative(SRC, resolve(entry.parentPath, s)) : s)) });
  }
  return out;
}

test('no adapter imports another, and nothing below the adapters imports one', () => {
  const wrong: string[] = [];
  for (const { file, folder, specifiers } of imports()) {
    for (const s of specifiers) {
      const target = s.split('/')[0];
      if (ADAPTERS.includes(target) && target !== folder && !ALLOWED.has(`${folder}>${target}`)) wrong.push(`${file} imports ${s}`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('the pure core imports no edge: no files, processes, network, GitHub, store, runner or jobs', () => {
  const wrong: string[] = [];
  const files = imports();
  assert.ok(files.some((f) => f.folder === 'formats') && files.some((f) => f.folder === 'scan'), 'the scan found the core');
  for (const { file, folder, specifiers } of files) {
    if (!CORE.includes(folder)) continue;
    for (const s of specifiers) {
      const target = s.split('/')[0];
      if (EDGE_MODULES.test(s) || (!s.startsWith('node:') && !s.includes('node_modules') && [...ADAPTERS, 'jobs', 'runner', 'store', 'github', 'dashboard'].includes(target))) wrong.push(`${file} imports ${s}`);
    }
  }
  assert.deepEqual(wrong, []);
});
