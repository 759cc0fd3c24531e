// Pins benchbot's own `uses:` to commit SHAs for a release, and checks a release is pinned.
//
//   node scripts/pin-internal-uses.ts prepare v1.2.3   # a maintainer, on a clean checkout of the commit to release
//   node scripts/pin-internal-uses.ts check [--tag v1.2.3]   # the release workflow, at the tag
//
// On main the reusable workflows call the action as benchbot/benchbot@v1 and
// the starters call the reusable workflows @v1, so that the end-to-end tests
// run this checkout. Pinning a reusable workflow at a SHA would still run
// whatever v1 points to, so a release rewrites every internal reference to
// a commit, in two commits on top of the released commit C (a commit cannot
// name itself):
//   R1: .github/workflows/*.yml call the action at C;
//   R2: workflows/*.yml (the starters) call the reusable workflows at R1;
// and tags R2. R1 and R2 change workflow files only, so the action at C is
// the action of the tag, and the reusable workflows at R1 are the tag's:
// `pr.yml@R2` runs the action at C, `benchbot-pr.yml` from R2 calls
// `pr.yml@R1`, which runs the action at C. Every link is a SHA.
//
// The release workflow cannot make these commits itself: GitHub refuses a
// push that changes .github/workflows from the workflow's GITHUB_TOKEN
// (there is no `workflows` permission to grant it), and a token that can is
// a secret worth not having. So `prepare` runs where the maintainer's
// credentials are, and the workflow only runs `check`, which refuses to
// publish a tag with a reference that is not pinned this way.
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

/** REPOSITORY is the GitHub repository whose references are internal. */
export const REPOSITORY = 'benchbot/benchbot';
/** REUSABLE_DIR holds the reusable workflows (and this repository's CI); STARTER_DIR the starters users copy. */
export const REUSABLE_DIR = '.github/workflows';
export const STARTER_DIR = 'workflows';
const FULL_SHA = /^[0-9a-f]{40}$/;

/** InternalUse is one `uses:` of this repository: the action (path '') or a reusable workflow (its path). */
export interface InternalUse {
  path: string;
  ref: string;
}

/** internalUses lists the `uses:` values of a workflow that name this repository, from the parsed YAML. */
export function internalUses(text: string, repository = REPOSITORY): InternalUse[] {
  const found: InternalUse[] = [];
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        if (key === 'uses' && typeof value === 'string' && (value.startsWith(`${repository}@`) || value.startsWith(`${repository}/`))) {
          const at = value.lastIndexOf('@');
          found.push({ path: value.slice(repository.length, at).replace(/^\//, ''), ref: value.slice(at + 1) });
        } else visit(value);
      }
    }
  };
  visit(parse(text));
  return found;
}

/**
 * pinUses rewrites the `uses:` lines of `text` that call this repository's
 * action (kind 'action') or its reusable workflows (kind 'workflow') to
 * `sha`, with the release's version as the comment zizmor and Dependabot read.
 */
export function pinUses(text: string, kind: 'action' | 'workflow', sha: string, version: string, repository = REPOSITORY): string {
  if (!FULL_SHA.test(sha)) throw new Error(`${sha} is not a full commit SHA`);
  const name = repository.replace('/', '\\/');
  const target = kind === 'action' ? `${name}` : `${name}\\/[^@\\s#]+`;
  const line = new RegExp(`^(\\s*(?:-\\s+)?uses:\\s*)(${target})@[^\\s#]+.*$`, 'gm');
  return text.replace(line, (_all, prefix: string, what: string) => `${prefix}${what}@${sha} # ${version}`);
}

function workflowFiles(root: string, dir: string): string[] {
  return readdirSync(join(root, dir)).filter((f) => /\.ya?ml$/.test(f)).sort().map((f) => `${dir}/${f}`);
}

function git(root: string, ...args: string[]): string {
  return execFileSync('git', ['-C', root, ...args], { encoding: 'utf8' }).trim();
}

/** prepare makes R1 and R2 on top of HEAD and tags R2 `version` (see the top of this file). */
export function prepare(root: string, version: string): { released: string; workflows: string; tag: string } {
  if (!/^v\d+\.\d+\.\d+$/.test(version)) throw new Error(`${version}: give the version as vMAJOR.MINOR.PATCH, e.g. v1.2.3`);
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
  if (`v${pkg.version}` !== version) throw new Error(`package.json's version is ${pkg.version}: set it to ${version.slice(1)} on main first (npm version ${version.slice(1)} --no-git-tag-version, commit)`);
  if (git(root, 'status', '--porcelain') !== '') throw new Error('the checkout has changes: commit or stash them first');
  if (git(root, 'tag', '--list', version) !== '') throw new Error(`tag ${version} exists already`);
  const released = git(root, 'rev-parse', 'HEAD');
  const rewrite = (dir: string, kind: 'action' | 'workflow', sha: string) => {
    for (const file of workflowFiles(root, dir)) {
      const path = join(root, file);
      const before = readFileSync(path, 'utf8');
      const after = pinUses(before, kind, sha, version);
      if (after !== before) writeFileSync(path, after);
    }
    git(root, 'add', '--', dir);
  };
  rewrite(REUSABLE_DIR, 'action', released);
  git(root, 'commit', '-q', '-m', `release ${version}: the reusable workflows run the action at ${released}`);
  const workflows = git(root, 'rev-parse', 'HEAD');
  rewrite(STARTER_DIR, 'workflow', workflows);
  rewrite(STARTER_DIR, 'action', released);
  git(root, 'commit', '-q', '-m', `release ${version}: the starter workflows call the reusable workflows at ${workflows}`);
  git(root, 'tag', '-a', version, '-m', `benchbot ${version}`);
  const problems = check(root, version);
  if (problems.length > 0) throw new Error(`the release commits fail their own check:\n${problems.join('\n')}`);
  return { released, workflows, tag: git(root, 'rev-parse', 'HEAD') };
}

/**
 * check returns what is wrong with HEAD as a release (nothing when it is
 * right): a reference that is not a full SHA, references to different
 * commits, or a pinned commit whose code differs from HEAD's.
 */
export function check(root: string, tag?: string): string[] {
  const problems: string[] = [];
  const refs = { action: new Set<string>(), workflow: new Set<string>() };
  for (const file of [...workflowFiles(root, REUSABLE_DIR), ...workflowFiles(root, STARTER_DIR)]) {
    for (const use of internalUses(readFileSync(join(root, file), 'utf8'))) {
      const what = use.path === '' ? `${REPOSITORY}@${use.ref}` : `${REPOSITORY}/${use.path}@${use.ref}`;
      if (!FULL_SHA.test(use.ref)) problems.push(`${file}: ${what} is not pinned to a full commit SHA`);
      else refs[use.path === '' ? 'action' : 'workflow'].add(use.ref);
    }
  }
  for (const [kind, shas] of Object.entries(refs)) if (shas.size > 1) problems.push(`the ${kind} is called at ${shas.size} different commits: ${[...shas].join(', ')}`);
  const head = git(root, 'rev-parse', 'HEAD');
  const same = (sha: string, ...pathspec: string[]) => {
    try {
      execFileSync('git', ['-C', root, 'diff', '--quiet', sha, head, '--', ...pathspec]);
      return true;
    } catch {
      return false;
    }
  };
  for (const sha of refs.action) {
    if (!same(sha, '.', `:(exclude)${REUSABLE_DIR}`, `:(exclude)${STARTER_DIR}`)) problems.push(`the action is called at ${sha}, whose files (outside the workflows) differ from this commit's`);
  }
  for (const sha of refs.workflow) {
    if (sha === head) problems.push(`the reusable workflows are called at this commit itself (${sha})`);
    else if (!same(sha, REUSABLE_DIR)) problems.push(`the reusable workflows are called at ${sha}, whose ${REUSABLE_DIR} differs from this commit's`);
  }
  if (tag) {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string };
    if (`v${pkg.version}` !== tag) problems.push(`package.json's version is ${pkg.version}, the tag is ${tag}`);
    if (git(root, 'rev-parse', `${tag}^{commit}`) !== head) problems.push(`tag ${tag} is not this commit`);
  }
  return problems;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [command, ...rest] = process.argv.slice(2);
  const root = process.cwd();
  try {
    if (command === 'prepare' && rest.length === 1) {
      const made = prepare(root, rest[0]);
      process.stdout.write(`tagged ${rest[0]} at ${made.tag}: the reusable workflows run the action at ${made.released}, the starters call them at ${made.workflows}.\n` +
        `Publish it (the release workflow builds and attaches the executables and the npm package):\n  git push origin ${rest[0]}\n` +
        `and move the major tag the starters name:\n  git tag -f ${rest[0].split('.')[0]} ${rest[0]}^{commit} && git push -f origin ${rest[0].split('.')[0]}\n`);
    } else if (command === 'check' && (rest.length === 0 || (rest.length === 2 && rest[0] === '--tag'))) {
      const problems = check(root, rest[1]);
      if (problems.length > 0) {
        process.stderr.write(`not a pinned release (make one with: node scripts/pin-internal-uses.ts prepare vX.Y.Z):\n${problems.map((p) => `  ${p}`).join('\n')}\n`);
        process.exit(1);
      }
      process.stdout.write('every internal uses: is pinned to a full commit SHA with this commit\'s code\n');
    } else {
      process.stderr.write('usage: node scripts/pin-internal-uses.ts prepare vX.Y.Z | check [--tag vX.Y.Z]\n');
      process.exit(2);
    }
  } catch (error) {
    process.stderr.write(`pin-internal-uses: ${(error as Error).message}\n`);
    process.exit(2);
  }
}
