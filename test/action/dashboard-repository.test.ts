// The nightly workflow's `dashboard-repository` (github-action-benchmark's
// gh-repository): the `push-dashboard` job's own script, read from
// .github/workflows/nightly.yml and run by bash as the runner would, pushes
// a site `benchbot dashboard` wrote to another repository's branch. The
// other repository is a bare git repository reached by a file:// server URL
// (the script builds the remote from GITHUB_SERVER_URL, as on GitHub), so
// git itself does the fetch and the push.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { bundleDashboard } from '../../scripts/dashboard-bundle.ts';
import { main } from '../../src/cli/main.ts';
import { openStore } from '../../src/store/open-store.ts';
import { seedFixture } from '../dashboard/fixture-store.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'github_pat_11AAAAAAA0dashboardtoken';

interface Step {
  id?: string;
  uses?: string;
  run?: string;
  env?: Record<string, string>;
  with?: Record<string, unknown>;
}
interface Job {
  if?: string;
  needs?: string;
  permissions?: unknown;
  steps?: Step[];
  outputs?: Record<string, string>;
}
const workflow = parse(readFileSync(join(ROOT, '.github/workflows/nightly.yml'), 'utf8')) as {
  on: { workflow_call: { inputs: Record<string, { default?: unknown }>; secrets: Record<string, unknown>; outputs: Record<string, { value: string }> } };
  jobs: Record<string, Job>;
};
const job = workflow.jobs['push-dashboard'];
const pushStep = (job.steps ?? []).find((s) => s.id === 'push') as Step;

const scratch = mkdtempSync(join(tmpdir(), 'benchbot-dashboard-repository-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const git = (cwd: string, ...args: string[]) => {
  const r = spawnSync('git', args, { cwd, encoding: 'utf8' });
  assert.equal(r.status, 0, `git ${args.join(' ')}: ${r.stderr}`);
  return r.stdout.trim();
};

/** The uploaded site, as actions/upload-pages-artifact packs it: artifact.tar of the directory benchbot dashboard wrote. */
const pages = join(scratch, 'runner-temp', 'benchbot-pages');
before(async () => {
  await bundleDashboard();
  const store = join(scratch, 'history.db');
  const s = await openStore(store, { cwd: scratch, env: {} });
  try {
    await seedFixture(s);
  } finally {
    await s.close();
  }
  const site = join(scratch, 'site');
  assert.equal(await main(['dashboard', '--store', store, '--out', site, '--repository', 'example/suite', '--max-items-in-chart', '30'], () => true, (t) => process.stderr.write(`${t}\n`) || true), 0);
  mkdirSync(pages, { recursive: true });
  const tar = spawnSync('tar', ['--dereference', '--hard-dereference', '-cf', join(pages, 'artifact.tar'), '-C', site, '.'], { encoding: 'utf8' });
  assert.equal(tar.status, 0, tar.stderr);
});

/** push runs the job's push step with bash, as the runner does, against a server of bare repositories under `server`. */
function push(server: string, env: Record<string, string>): { status: number | null; out: string; outputs: string } {
  const outputs = join(scratch, `outputs-${Math.random().toString(36).slice(2)}`);
  writeFileSync(outputs, '');
  const r = spawnSync('bash', ['-e', '-c', pushStep.run as string], {
    encoding: 'utf8',
    env: {
      PATH: process.env.PATH ?? '', HOME: scratch, RUNNER_TEMP: join(scratch, 'runner-temp'), GITHUB_OUTPUT: outputs,
      GITHUB_SERVER_URL: `file://${server}`, GITHUB_REPOSITORY: 'example/suite', GITHUB_SHA: 'a'.repeat(40), GIT_CONFIG_NOSYSTEM: '1',
      DASHBOARD_REPOSITORY: 'octo/benchmarks', DASHBOARD_BRANCH: 'gh-pages', DASHBOARD_TOKEN: TOKEN, ...env,
    },
  });
  return { status: r.status, out: r.stdout + r.stderr, outputs: readFileSync(outputs, 'utf8') };
}

function bareServer(name: string): { server: string; remote: string } {
  const server = join(scratch, name);
  const remote = join(server, 'octo', 'benchmarks.git');
  mkdirSync(remote, { recursive: true });
  git(remote, 'init', '-q', '--bare');
  return { server, remote };
}

test('the push job runs no code but git, holds no GITHUB_TOKEN scope, and alone sees dashboard-token; the Pages deploy stands down', () => {
  assert.deepEqual(job.permissions, {});
  assert.equal(job.needs, 'dashboard');
  assert.match(job.if ?? '', /inputs\.dashboard && inputs\.dashboard-repository != ''/);
  assert.match(workflow.jobs.pages.if ?? '', /inputs\.dashboard-repository == ''/, 'one publisher per run');
  assert.deepEqual((job.steps ?? []).map((s) => s.uses?.split('@')[0] ?? 'run'), ['actions/download-artifact', 'run']);
  assert.equal((job.steps ?? [])[0].with?.name, 'github-pages', 'the artifact the dashboard job uploaded');
  for (const [id, other] of Object.entries(workflow.jobs)) {
    const text = JSON.stringify(other);
    if (id === 'push-dashboard') assert.equal(text.split('secrets.dashboard-token').length - 1, 1, 'in the push step\'s env, once');
    else assert.doesNotMatch(text, /dashboard-token/, `${id} never sees the token`);
  }
  assert.equal(pushStep.env?.DASHBOARD_TOKEN, '${{ secrets.dashboard-token }}');
  assert.ok('dashboard-token' in workflow.on.workflow_call.secrets);
  assert.equal(workflow.on.workflow_call.inputs['dashboard-branch'].default, 'gh-pages');
  assert.match(workflow.on.workflow_call.outputs['dashboard-url'].value, /jobs\.push-dashboard\.outputs\.url/);
});

test('dashboard-repository: the site is pushed as one commit to the other repository\'s gh-pages, replacing it and keeping its CNAME', () => {
  const { server, remote } = bareServer('server-a');
  const first = push(server, {});
  assert.equal(first.status, 0, first.out);
  assert.ok(!first.out.includes(TOKEN), 'the token is never printed');
  assert.match(first.out, /^::add-mask::\S+$/m, 'the encoded token is masked before use');
  assert.match(first.outputs, /^url=$/m, 'no github.io address for a server that is not github.com');
  const files = git(remote, 'ls-tree', '-r', '--name-only', 'gh-pages').split('\n');
  for (const f of ['index.html', 'dashboard.js', 'dashboard.css', '.nojekyll', 'data/overview.json', 'data/runs.json']) assert.ok(files.includes(f), f);
  assert.equal(files.filter((f) => f.startsWith('data/series/')).length, 304);
  assert.equal(git(remote, 'log', '--format=%an|%s', 'gh-pages'), `github-actions[bot]|benchbot dashboard of example/suite at ${'a'.repeat(40)}`);

  // The other repository's Pages got a custom domain (a CNAME commit) and someone left a file there: the next publish keeps only the CNAME.
  const work = join(scratch, 'clone-a');
  git(scratch, 'clone', '-q', '-b', 'gh-pages', remote, work);
  writeFileSync(join(work, 'CNAME'), 'bench.example.com\n');
  writeFileSync(join(work, 'stale.html'), 'old');
  git(work, 'add', 'CNAME', 'stale.html');
  git(work, '-c', 'user.name=x', '-c', 'user.email=x@example.com', 'commit', '-q', '-m', 'Create CNAME');
  git(work, 'push', '-q', 'origin', 'gh-pages');
  const second = push(server, {});
  assert.equal(second.status, 0, second.out);
  assert.equal(git(remote, 'rev-list', '--count', 'gh-pages'), '1', 'one commit: the branch is replaced, not grown');
  assert.equal(git(remote, 'show', 'gh-pages:CNAME'), 'bench.example.com');
  assert.ok(!git(remote, 'ls-tree', '-r', '--name-only', 'gh-pages').split('\n').includes('stale.html'));
  const overview = JSON.parse(git(remote, 'show', 'gh-pages:data/overview.json')) as { rows: unknown[][] };
  assert.equal(overview.rows.length, 304);
});

test('dashboard-branch names the branch; a missing token or a malformed name stops before anything is pushed, saying what to give', () => {
  const { server, remote } = bareServer('server-b');
  // On github.com itself (git redirected to the bare repositories by url.insteadOf): the address it will be served at.
  const other = push(server, { DASHBOARD_BRANCH: 'site', GITHUB_SERVER_URL: 'https://github.com', GIT_CONFIG_COUNT: '1', GIT_CONFIG_KEY_0: `url.file://${server}/.insteadOf`, GIT_CONFIG_VALUE_0: 'https://github.com/' });
  assert.equal(other.status, 0, other.out);
  assert.equal(git(remote, 'branch', '--list', '--format=%(refname:short)'), 'site');
  assert.match(other.outputs, /^url=https:\/\/octo\.github\.io\/benchmarks\/$/m);
  for (const [env, message] of [
    [{ DASHBOARD_TOKEN: '' }, /::error::dashboard-repository is octo\/benchmarks but the dashboard-token secret is empty: pass a token that can push to it/],
    [{ DASHBOARD_REPOSITORY: 'octo' }, /::error::dashboard-repository 'octo': give OWNER\/NAME/],
    [{ DASHBOARD_REPOSITORY: 'octo/bench marks' }, /::error::dashboard-repository 'octo\/bench marks': give OWNER\/NAME/],
    [{ DASHBOARD_BRANCH: 'a..b' }, /::error::dashboard-branch 'a\.\.b' is not a branch name/],
  ] as const) {
    const r = push(server, env);
    assert.equal(r.status, 1, JSON.stringify(env));
    assert.match(r.out, message);
  }
  assert.equal(git(remote, 'branch', '--list', '--format=%(refname:short)'), 'site', 'nothing else was pushed');
});
