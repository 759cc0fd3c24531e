// A release pins every internal `uses:` to a commit (scripts/pin-internal-uses.ts):
// made on a copy of this repository's own workflows, then read back as
// GitHub would resolve it, and by zizmor with every ignore comment ignored.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { check, internalUses, prepare, REPOSITORY, REUSABLE_DIR, STARTER_DIR } from '../../scripts/pin-internal-uses.ts';
import { ROOT } from './user-session.ts';

const SCRIPT = join(ROOT, 'scripts/pin-internal-uses.ts');
const VERSION = `v${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}`;

function git(dir: string, ...args: string[]): string {
  return execFileSync('git', ['-C', dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', '-c', 'commit.gpgsign=false', '-c', 'tag.gpgsign=false', ...args], { encoding: 'utf8' }).trim();
}

/** copyOfThisRepository is a git repository with this checkout's workflows, action and package.json, committed. */
function copyOfThisRepository(): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-release-'));
  git(dir, 'init', '-q', '-b', 'main');
  for (const path of [REUSABLE_DIR, STARTER_DIR, 'action.yml', 'package.json', 'README.md']) cpSync(join(ROOT, path), join(dir, path), { recursive: true });
  git(dir, 'config', 'user.name', 'benchbot test');
  git(dir, 'config', 'user.email', 'test@benchbot.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'config', 'tag.gpgsign', 'false');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'the commit to release');
  return dir;
}

function usesIn(dir: string, sub: string): { file: string; path: string; ref: string }[] {
  return readdirSync(join(dir, sub)).filter((f) => f.endsWith('.yml')).flatMap((f) => internalUses(readFileSync(join(dir, sub, f), 'utf8')).map((u) => ({ file: `${sub}/${f}`, ...u })));
}

test('main calls its own action and reusable workflows at a tag, which check refuses to release', () => {
  const repo = copyOfThisRepository();
  const uses = [...usesIn(repo, REUSABLE_DIR), ...usesIn(repo, STARTER_DIR)];
  assert.ok(uses.length >= 11, `the reusable workflows and starters call ${REPOSITORY} (found ${uses.length})`);
  const problems = check(repo);
  assert.equal(problems.length, uses.length, problems.join('\n'));
  assert.match(problems[0], /is not pinned to a full commit SHA/);
});

test('prepare pins every internal uses: to a commit whose code is the tag\'s, and check accepts it', () => {
  const repo = copyOfThisRepository();
  const released = git(repo, 'rev-parse', 'HEAD');
  const made = prepare(repo, VERSION);
  assert.equal(made.released, released);
  assert.equal(git(repo, 'rev-parse', `${VERSION}^{commit}`), made.tag);
  assert.equal(git(repo, 'rev-parse', `${made.tag}^`), made.workflows, 'R2 is a child of R1');
  assert.equal(git(repo, 'rev-parse', `${made.workflows}^`), released, 'R1 is a child of the released commit');

  // No internal reference is a tag or branch: the action at the released commit, the reusable workflows at R1.
  const reusable = usesIn(repo, REUSABLE_DIR);
  const starters = usesIn(repo, STARTER_DIR);
  assert.ok(reusable.length >= 7 && starters.length >= 4);
  for (const use of [...reusable, ...starters]) assert.match(use.ref, /^[0-9a-f]{40}$/, `${use.file}: ${use.path || 'the action'}@${use.ref}`);
  assert.deepEqual(new Set(reusable.map((u) => u.ref)), new Set([released]));
  assert.deepEqual(new Set(starters.map((u) => u.ref)), new Set([made.workflows]));
  // What GitHub runs for a starter of the tag: the reusable workflow at R1, which calls the action at the released commit.
  const r1 = readdirSync(join(repo, REUSABLE_DIR)).flatMap((f) => internalUses(git(repo, 'show', `${made.workflows}:${REUSABLE_DIR}/${f}`)));
  assert.deepEqual(new Set(r1.map((u) => u.ref)), new Set([released]));
  // The release commits change workflow files only.
  assert.deepEqual(git(repo, 'diff', '--name-only', released, made.tag).split('\n').filter((f) => !f.startsWith(`${REUSABLE_DIR}/`) && !f.startsWith(`${STARTER_DIR}/`)), []);
  assert.deepEqual(check(repo, VERSION), []);
  const cli = spawnSync(process.execPath, [SCRIPT, 'check', '--tag', VERSION], { cwd: repo, encoding: 'utf8' });
  assert.equal(cli.status, 0, cli.stderr);

  // Tampering is seen: the tag's action differs from the pinned one.
  writeFileSync(join(repo, 'action.yml'), `${readFileSync(join(repo, 'action.yml'), 'utf8')}\n# changed after the pin\n`);
  git(repo, 'commit', '-q', '-am', 'change the action after pinning');
  assert.match(check(repo).join('\n'), /the action is called at [0-9a-f]{40}, whose files \(outside the workflows\) differ/);
  const refused = spawnSync(process.execPath, [SCRIPT, 'check', '--tag', VERSION], { cwd: repo, encoding: 'utf8' });
  assert.equal(refused.status, 1);
  assert.match(refused.stderr, /tag v[\d.]+ is not this commit/);
});

test('zizmor --no-ignores finds no unpinned internal uses: in the pinned release, and finds them on main', (t) => {
  const version = spawnSync('zizmor', ['--version'], { encoding: 'utf8' });
  if (version.error) {
    t.skip('zizmor is not installed (scripts/prepare-tests.sh installs it)');
    return;
  }
  const unpinned = (dir: string) => {
    const files = [...readdirSync(join(dir, REUSABLE_DIR)).map((f) => join(dir, REUSABLE_DIR, f)), ...readdirSync(join(dir, STARTER_DIR)).map((f) => join(dir, STARTER_DIR, f))];
    const run = spawnSync('zizmor', ['--no-ignores', '--offline', '--no-progress', '--format', 'json', ...files], { encoding: 'utf8' });
    assert.ok(run.stdout.trim().startsWith('['), `zizmor: ${run.stderr}`);
    const findings = JSON.parse(run.stdout) as { ident: string; locations: { concrete: { feature: string } }[] }[];
    return findings.filter((f) => f.ident === 'unpinned-uses' && f.locations.some((l) => l.concrete.feature.includes(REPOSITORY)));
  };
  const repo = copyOfThisRepository();
  assert.ok(unpinned(repo).length >= 11, 'zizmor sees the tags on main');
  prepare(repo, VERSION);
  assert.deepEqual(unpinned(repo).map((f) => f.locations[0].concrete.feature.split('\n')[0]), []);
  t.diagnostic(`${version.stdout.trim()}: no unpinned internal uses: after the release rewrite`);
});

test('docs/security.md says what a pin pins, as the workflows are: main at @v1, a release by SHA, no checkout of benchbot in the starters', () => {
  const doc = readFileSync(join(ROOT, 'docs/security.md'), 'utf8').replace(/\s+/g, ' ');
  const section = doc.slice(doc.indexOf('### Pinned code'), doc.indexOf('These properties are tested'));
  assert.ok(section.includes('node scripts/pin-internal-uses.ts prepare vX.Y.Z'), 'names the script that makes a release');
  for (const phrase of ['pins the workflow and the action it runs', 'pins the workflow file only', 'pins nothing']) assert.ok(section.includes(phrase), `says "${phrase}"`);
  // "On main the reusable workflows call the action as benchbot/benchbot@v1 and the starters call the reusable workflows @v1".
  const main = [...usesIn(ROOT, REUSABLE_DIR), ...usesIn(ROOT, STARTER_DIR)];
  assert.match(section, /On main the reusable workflows .* call the action as `benchbot\/benchbot@v1` and the starters .* call the reusable workflows `@v1`/);
  assert.deepEqual(new Set(main.map((u) => u.ref)), new Set(['v1']));
  // The claim this replaced ("the bisect starter checks benchbot out at a full commit SHA") was false: no starter checks benchbot out.
  const starterCheckouts = readdirSync(join(ROOT, STARTER_DIR)).filter((f) => /repository:\s*benchbot\/benchbot/.test(readFileSync(join(ROOT, STARTER_DIR, f), 'utf8')));
  assert.deepEqual(starterCheckouts, []);
  assert.doesNotMatch(doc, /starter checks benchbot out/);
  assert.ok(section.includes('The bisect starter checks nothing out from benchbot'));
});
