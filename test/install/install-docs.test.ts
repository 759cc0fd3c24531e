// The install commands the README and getting-started give are the ones the
// release makes true: every download names a file the release workflow
// attaches, and the guide's first step works in a user's own repository
// (npx benchbot there asks the npm registry for a package named benchbot,
// which is not benchbot's: the guide installs the release instead).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ROOT } from './user-session.ts';

const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const GUIDE = readFileSync(join(ROOT, 'docs/getting-started.md'), 'utf8');
const RELEASE = parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as { jobs: Record<string, { steps: { run?: string }[] }> };
const DOWNLOAD = /https:\/\/github\.com\/benchbot\/benchbot\/releases\/latest\/download\/([\w.-]+)/g;

/** attached lists the files the release workflow's publish job uploads. */
function attached(): string[] {
  const upload = RELEASE.jobs.publish.steps.map((s) => s.run ?? '').join('\n').match(/gh release upload "\$TAG" ([^\n]*) --clobber/);
  assert.ok(upload, 'the publish job uploads with gh release upload');
  return upload[1].split(/\s+/);
}

test('the README gives the install commands right after its opening, each download a file every release attaches', () => {
  const install = README.indexOf('\n## Install\n');
  assert.ok(install !== -1 && install < README.indexOf('\n## What works today\n'), 'an Install section before What works today');
  const section = README.slice(install, README.indexOf('\n## ', install + 1));
  const downloads = [...section.matchAll(DOWNLOAD)].map((m) => m[1]);
  assert.deepEqual(new Set(downloads), new Set(['benchbot-linux-x64', 'benchbot.tgz']));
  for (const file of [...downloads, 'benchbot-linux-arm64', 'SHA256SUMS']) {
    assert.ok(attached().includes(file), `the release attaches ${file}`);
    assert.ok(section.includes(file), `the Install section names ${file}`);
  }
  assert.match(section, /npm install -g https:\/\/github\.com\/benchbot\/benchbot\/releases\/latest\/download\/benchbot\.tgz/);
  assert.match(section, /npm ci && npx benchbot --help/, 'and the checkout');
});

test('getting-started installs benchbot before its first command and never runs npx benchbot outside a checkout', () => {
  const step1 = GUIDE.slice(GUIDE.indexOf('## 1.'), GUIDE.indexOf('## 2.'));
  assert.ok(step1.indexOf('npm install -g https://github.com/benchbot/benchbot/releases/latest/download/benchbot.tgz') < step1.indexOf('benchbot parse out.json'));
  assert.doesNotMatch(GUIDE, /npx benchbot/);
  for (const m of GUIDE.matchAll(DOWNLOAD)) assert.ok(attached().includes(m[1]), `the release attaches ${m[1]}`);
});
