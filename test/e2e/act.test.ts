/**
 * End to end: the real reusable workflows (.github/workflows/pr.yml and
 * nightly.yml) call the real composite action (action.yml -> the committed
 * dist/action.js), run by `act` on this host (`-P self-hosted=-self-hosted`
 * and `-P ubuntu-latest=-self-hosted`, no Docker) in a fixture repository
 * whose head makes one benchmark 10% slower: a PR run that fails on the
 * regression, a second push that fixes it (same comment, updated), a PR
 * split into two shards and merged, and two nightlies. Every run goes
 * through the two jobs of each workflow: the measuring job (no token; it
 * uploads the raw results) and the report job (needs it; downloads the
 * results, recomputes and publishes). The workflows' GitHub API calls go to
 * the local stand-in, which validates each against GitHub's OpenAPI
 * description.
 *
 * act ends a run at the first failed job, so where the benchmark job fails
 * on purpose the caller's job that prints the workflow outputs cannot run;
 * those runs check the action's step outputs in act's log instead.
 *
 * What is substituted, and why: GitHub itself is unreachable here, so act
 * cannot clone remote actions; `--local-repository` points each one at a
 * local folder instead.
 * - `benchbot/benchbot@v1` (what the reusable workflow uses, and the
 *   reusable workflow itself) -> a copy of this checkout's action.yml,
 *   dist/ and .github/workflows/: the code under test, not a stand-in.
 * - `actions/checkout` is not cloned: act recognizes a checkout of the
 *   repository it runs in and copies the working tree (with .git) instead.
 * - `actions/setup-node` -> a stand-in that fails if it ever runs: act clones
 *   the actions of skipped steps too, and this one must be skipped because
 *   Node.js 24 is on PATH (the action's "use it when present" path).
 * - `actions/upload-artifact` and `actions/download-artifact` -> stand-ins
 *   that copy files to and from a folder the test reads. act's own artifact
 *   server (`--artifact-server-path`) would need the real upload-artifact
 *   code, which cannot be fetched; the stand-ins check the inputs the action
 *   passes (name, path) and let the test read what would be uploaded.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeFixtureRepo, type FixtureRepo } from '../support/fixture-repo.ts';
import { openStore } from '../../src/store/open-store.ts';
import { assertAllValid, startGitHubApiStandIn, type GitHubApiStandIn } from '../support/github-api-stand-in.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const OWNER = 'octo';
const REPO = 'fixture';
const PR_NUMBER = 7;
const TOKEN = 'e2e-token';

/** findAct returns the act binary: $ACT, then PATH, then where `go install` puts it. */
function findAct(): string | undefined {
  const candidates = [process.env.ACT, ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'act'))];
  const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' });
  if (gopath.status === 0) candidates.push(join(gopath.stdout.trim(), 'bin', 'act'));
  candidates.push(join(homedir(), 'go', 'bin', 'act'));
  return candidates.find((c): c is string => c !== undefined && c !== '' && existsSync(c));
}

/** remoteActions lists every `owner/name@ref` of a remote action the action and the reusable workflows use. */
function remoteActions(): Map<string, string> {
  const files = [join(ROOT, 'action.yml'), ...readdirSync(join(ROOT, '.github/workflows')).map((f) => join(ROOT, '.github/workflows', f))];
  const refs = new Map<string, string>();
  for (const file of files) {
    for (const match of readFileSync(file, 'utf8').matchAll(/uses:\s*(actions\/[\w.-]+)@([\w.-]+)/g)) refs.set(`${match[1]}@${match[2]}`, match[1]);
  }
  return refs;
}

const STAND_INS: Record<string, string> = {
  'actions/setup-node': `name: setup-node stand-in
description: Fails when it runs; the action must skip it because Node.js 24 is on PATH.
runs:
  using: composite
  steps:
    - shell: bash
      run: |
        echo "::error::the setup-node stand-in ran, but Node.js 24 was on PATH"
        exit 1
`,
  'actions/upload-artifact': `name: upload-artifact stand-in
description: Copies the files to BENCHBOT_E2E_ARTIFACTS/NAME, where the test reads them.
inputs:
  name: { description: artifact name, required: true }
  path: { description: file or directory, required: true }
  if-no-files-found: { description: error, warn or ignore, default: warn }
  overwrite: { description: replace an artifact of the same name, default: 'false' }
runs:
  using: composite
  steps:
    - shell: bash
      env: { NAME: "\${{ inputs.name }}", FROM: "\${{ inputs.path }}" }
      run: |
        [ -e "$FROM" ] || { echo "::error::upload-artifact stand-in: $FROM does not exist"; exit 1; }
        mkdir -p "$BENCHBOT_E2E_ARTIFACTS/$NAME"
        if [ -d "$FROM" ]; then cp -R "$FROM/." "$BENCHBOT_E2E_ARTIFACTS/$NAME/"; else cp "$FROM" "$BENCHBOT_E2E_ARTIFACTS/$NAME/"; fi
`,
  'actions/download-artifact': `name: download-artifact stand-in
description: Copies artifact NAME from BENCHBOT_E2E_ARTIFACTS into path, or every artifact matching pattern into path/NAME (as v4 does).
inputs:
  name: { description: one artifact, default: '' }
  pattern: { description: glob over artifact names, default: '*' }
  path: { description: destination, required: true }
runs:
  using: composite
  steps:
    - shell: bash
      env: { NAME: "\${{ inputs.name }}", PATTERN: "\${{ inputs.pattern }}", TO: "\${{ inputs.path }}" }
      run: |
        mkdir -p "$TO"
        if [ -n "$NAME" ]; then
          [ -d "$BENCHBOT_E2E_ARTIFACTS/$NAME" ] || { echo "::error::download-artifact stand-in: no artifact $NAME"; exit 1; }
          cp -R "$BENCHBOT_E2E_ARTIFACTS/$NAME/." "$TO/"
          exit 0
        fi
        for dir in "$BENCHBOT_E2E_ARTIFACTS"/*/; do
          name=$(basename "$dir")
          # shellcheck disable=SC2053
          [[ "$name" == $PATTERN ]] && cp -R "$dir" "$TO/$name"
        done
        true
`,
  'actions/upload-pages-artifact': `name: upload-pages-artifact stand-in
description: Copies the site to BENCHBOT_E2E_ARTIFACTS/github-pages, as the real one uploads it as the github-pages artifact.
inputs:
  path: { description: the site's directory, required: true }
runs:
  using: composite
  steps:
    - shell: bash
      env: { FROM: "\${{ inputs.path }}" }
      run: |
        [ -f "$FROM/index.html" ] || { echo "::error::upload-pages-artifact stand-in: no index.html in $FROM"; exit 1; }
        mkdir -p "$BENCHBOT_E2E_ARTIFACTS/github-pages"
        cp -R "$FROM/." "$BENCHBOT_E2E_ARTIFACTS/github-pages/"
`,
  'actions/deploy-pages': `name: deploy-pages stand-in
description: Deploys nothing; answers with the Pages URL the real one would.
outputs:
  page_url: { description: the site's URL, value: "\${{ steps.deploy.outputs.page_url }}" }
runs:
  using: composite
  steps:
    - id: deploy
      shell: bash
      run: |
        [ -f "$BENCHBOT_E2E_ARTIFACTS/github-pages/index.html" ] || { echo "::error::deploy-pages stand-in: nothing was uploaded"; exit 1; }
        echo "page_url=https://octo.github.io/fixture/" >> "$GITHUB_OUTPUT"
`,
};

interface ActRun {
  code: number | null;
  log: string;
  /** logFile keeps the whole log; assertion messages point there instead of printing it. */
  logFile: string;
  ms: number;
}

let act: string | undefined;
let work: string;
let standIn: GitHubApiStandIn;
let repo: FixtureRepo;
let release: string;
let artifacts: string;
const actionRefs: string[] = [];

before(async () => {
  act = findAct();
  if (!act) return;
  assert.ok(existsSync(join(ROOT, 'dist/action.js')), 'dist/action.js is missing: run `npm run build`');
  work = mkdtempSync(join(tmpdir(), 'benchbot-act-'));
  // The release act uses for benchbot/benchbot@v1: what a tag of this repository holds.
  release = join(work, 'benchbot-release');
  mkdirSync(join(release, 'dist'), { recursive: true });
  copyFileSync(join(ROOT, 'action.yml'), join(release, 'action.yml'));
  copyFileSync(join(ROOT, 'dist/action.js'), join(release, 'dist/action.js'));
  // mode: dashboard runs the bundled CLI, which ships the pages' bundle beside it.
  for (const file of ['benchbot.js', 'dashboard.js', 'dashboard.css']) copyFileSync(join(ROOT, 'dist', file), join(release, 'dist', file));
  cpSync(join(ROOT, '.github/workflows'), join(release, '.github/workflows'), { recursive: true });
  for (const [ref, name] of remoteActions()) {
    if (name === 'actions/checkout') continue;
    const text = STAND_INS[name];
    assert.ok(text, `the action or a reusable workflow uses ${ref}, which this test has no stand-in for`);
    const dir = join(work, 'stand-ins', ref.replace(/[^\w.-]/g, '_'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'action.yml'), text);
    actionRefs.push(`${ref}=${dir}`);
  }
  artifacts = join(work, 'artifacts');
  repo = makeFixtureRepo({ headFactor: 1.1 });
  // act names the repository after the origin remote (github.repository), which the fork guard compares.
  execFileSync('git', ['-C', repo.dir, 'remote', 'add', 'origin', `https://github.com/${OWNER}/${REPO}.git`]);
  standIn = await startGitHubApiStandIn({ state: { token: TOKEN } });
  // The caller lives outside the fixture repository (act -W), so the benchmarked commits stay as the fixture made them.
  // The PR's bench command also records everything it can read about its environment and its parent's, as an attacker's would.
  writeFileSync(join(work, 'caller.yml'), caller({ bench: `./bench.sh; { printenv; tr "\\000" "\\n" < /proc/$PPID/environ; } >> ${join(work, 'bench-env.txt')}` }));
  writeFileSync(join(work, 'caller-nightly.yml'), nightlyCaller());
  // Two shards: each prints one of the two benchmarks, as a suite split by BENCHBOT_SHARD would.
  writeFileSync(join(work, 'caller-sharded.yml'), caller({ bench: './bench.sh | sed -n "$BENCHBOT_SHARD"p', shards: 2 }));
});

/** nightlyCaller is a scheduled workflow calling the reusable nightly workflow. */
function nightlyCaller(): string {
  return `name: e2e nightly
on: schedule
permissions: {}
jobs:
  nightly:
    permissions:
      contents: read
      checks: write
      issues: write
      pages: write
      id-token: write
    uses: benchbot/benchbot/.github/workflows/nightly.yml@v1
    with:
      runs-on: '["self-hosted", "bench"]'
      build: ./build.sh
      bench: ./bench.sh
      format: plain
      min-runs: 10
      max-runs: 20
      store: ${join(work, 'nightly-history.db')}
      max-load: '1000'
      dashboard: true
  show:
    needs: nightly
    runs-on: [self-hosted]
    steps:
      - env:
          VERDICT: \${{ needs.nightly.outputs.verdict }}
          REGRESSIONS: \${{ needs.nightly.outputs.regressions }}
          DASHBOARD: \${{ needs.nightly.outputs.dashboard-url }}
        run: echo "e2e-outputs verdict=$VERDICT regressions=$REGRESSIONS dashboard=$DASHBOARD"
`;
}

/** caller is the workflow of the repository under test: it calls the reusable PR workflow and prints its outputs. */
function caller(options: { bench: string; shards?: number }): string {
  return `name: e2e
on: pull_request
permissions: {}
jobs:
  benchbot:
    permissions:
      contents: read
      pull-requests: write
      checks: write
    uses: benchbot/benchbot/.github/workflows/pr.yml@v1
    with:
      runs-on: '["self-hosted", "bench"]'
      build: ./build.sh
      bench: '${options.bench}'
      format: plain
      min-runs: 10
      max-runs: 20
      shards: ${options.shards ?? 1}
      store: ${join(work, 'history.db')}
      max-load: '1000'
  show:
    needs: benchbot
    if: always()
    runs-on: [self-hosted]
    steps:
      - env:
          VERDICT: \${{ needs.benchbot.outputs.verdict }}
          REGRESSIONS: \${{ needs.benchbot.outputs.regressions }}
          IMPROVEMENTS: \${{ needs.benchbot.outputs.improvements }}
        run: echo "e2e-outputs verdict=$VERDICT regressions=$REGRESSIONS improvements=$IMPROVEMENTS"
`;
}

after(async () => {
  await standIn?.close();
});

function prEvent(baseSha: string, headSha: string, number = PR_NUMBER): string {
  const repository = { full_name: `${OWNER}/${REPO}`, name: REPO, owner: { login: OWNER } };
  const event = {
    action: 'synchronize',
    number,
    pull_request: {
      number,
      base: { sha: baseSha, ref: 'main', repo: repository },
      head: { sha: headSha, ref: 'slower-parse', repo: repository },
    },
    repository,
  };
  const path = join(work, `event-${number}-${headSha.slice(0, 8)}.json`);
  writeFileSync(path, JSON.stringify(event));
  return path;
}

interface ActOptions {
  event?: string;
  workflow?: string;
  artifactDir?: string;
  cwd?: string;
}

function runAct(eventPath: string, label: string, options: ActOptions = {}): Promise<ActRun> {
  const args = [
    options.event ?? 'pull_request', '-W', join(work, options.workflow ?? 'caller.yml'), '-e', eventPath,
    // The report jobs run on ubuntu-latest by default; here that is this host too.
    '-P', 'self-hosted=-self-hosted', '-P', 'bench=-self-hosted', '-P', 'ubuntu-latest=-self-hosted',
    '--action-cache-path', join(work, 'act-cache'),
    '--local-repository', `benchbot/benchbot@v1=${release}`,
    ...actionRefs.flatMap((r) => ['--local-repository', r]),
    '-s', `GITHUB_TOKEN=${TOKEN}`,
    '--env', `GITHUB_API_URL=${standIn.url}`,
    '--env', `BENCHBOT_E2E_ARTIFACTS=${options.artifactDir ?? artifacts}`,
  ];
  // Host mode inherits this environment: Node.js 24 first on PATH, and a private machine lock.
  const env = {
    ...process.env,
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    BENCHBOT_LOCK: join(work, 'machine.lock'),
    NO_COLOR: '1',
  };
  const started = Date.now();
  return new Promise((resolve, reject) => {
    const child = spawn(act as string, args, { cwd: options.cwd ?? repo.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let log = '';
    child.stdout.on('data', (d) => (log += d));
    child.stderr.on('data', (d) => (log += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 150_000);
    child.on('error', reject);
    child.on('close', (code) => {
      clearTimeout(timer);
      const logFile = join(work, `act-${label}.log`);
      writeFileSync(logFile, log);
      resolve({ code, log, logFile, ms: Date.now() - started });
    });
  });
}

/** expectLog asserts that act's log matches, pointing at the saved log instead of printing it. */
function expectLog(run: ActRun, pattern: RegExp, present = true): void {
  assert.equal(pattern.test(run.log), present, `act's log ${present ? 'lacks' : 'has'} ${pattern}; see ${run.logFile}`);
}

function commentRequests() {
  return standIn.requests.filter((r) => /\/issues\/(\d+\/comments|comments\/\d+)$/.test(r.path) && r.method !== 'GET');
}

test('the PR workflow under act: regression fails the step, the comment is created once and then updated, check runs follow the head', { timeout: 180_000 }, async (t) => {
  assert.ok(act, 'act is not installed: run `go install github.com/nektos/act@v0.2.89` (scripts/prepare-tests.sh does) or set ACT to its path');

  const first = await runAct(prEvent(repo.baseSha, repo.headSha), 'first');
  t.diagnostic(`first act run: ${first.ms} ms`);
  assert.notEqual(first.code, 0, `act should fail on the regression; see ${first.logFile}`);
  // Two jobs: the measuring one on the bench runner, then the report one.
  expectLog(first, /Success - Main Benchmark base against head/);
  expectLog(first, /Success - Main Download the results/);
  expectLog(first, /Success - Main Recompute and report/);
  expectLog(first, /Failure - Main Fail on regression/);
  expectLog(first, /setup-node stand-in ran/, false);
  // act ends the whole run at a failed job, so the caller's `show` job cannot
  // print the workflow outputs here; the step outputs behind them are in the log.
  for (const output of ['verdict=regressed', 'regressions=1', 'improvements=0', 'fail=true']) expectLog(first, new RegExp(`::set-output:: ${output}\n`));
  expectLog(first, /::set-output:: report-json=\S+\/benchbot-report\/report\.json\n/);
  // The job summary: act echoes what the step appended to $GITHUB_STEP_SUMMARY.
  expectLog(first, /Summary - <!-- benchbot:report -->\n### benchbot: 1 regression: <code>parse<\/code> \+\d+\.\d+%\. Look at it before merging\.\n+2 benchmarks: 1 regression, 1 unchanged\./);

  assert.equal(standIn.state.comments.length, 1);
  const comment = standIn.state.comments[0];
  assert.equal(comment.issueNumber, PR_NUMBER);
  assert.equal(comment.owner, OWNER);
  assert.match(comment.body, /^<!-- benchbot:report -->\n### benchbot: 1 regression/);
  assert.match(comment.body, /(`|<code>)parse(`|<\/code>)[^\n]*regressed/);
  assert.ok(comment.body.includes(`head ${repo.headSha.slice(0, 12)}`));
  assert.equal(standIn.state.checkRuns.length, 1);
  assert.equal(standIn.state.checkRuns[0].headSha, repo.headSha);
  assert.equal(standIn.state.checkRuns[0].name, 'benchbot');
  assert.equal(standIn.state.checkRuns[0].conclusion, 'failure');
  assert.match(standIn.state.checkRuns[0].output.title ?? '', /^1 regression/);

  // The measuring job's results artifact, and the report job's own.
  for (const side of ['base.json', 'head.json', 'report.json']) assert.ok(existsSync(join(artifacts, 'benchbot-results', side)), `benchbot-results/${side}`);
  const report = JSON.parse(readFileSync(join(artifacts, 'benchbot-report', 'report.json'), 'utf8'));
  assert.equal(report.summary.regressed, 1);
  assert.equal(report.head_sha, repo.headSha);
  for (const side of ['base.json', 'head.json']) assert.ok(existsSync(join(artifacts, 'benchbot-report', side)), side);
  // What the PR's bench command could read (its environment and its parent's) held no token.
  const benchEnv = readFileSync(join(work, 'bench-env.txt'), 'utf8');
  assert.match(benchEnv, /BENCHBOT_INPUT_BENCH=/, 'the bench command dumped its environments');
  assert.ok(!benchEnv.includes(TOKEN) && !/GITHUB_TOKEN/.test(benchEnv), `the bench command could read a token; see ${join(work, 'bench-env.txt')}`);

  // The author pushes a fix: a new head, the same pull request.
  writeFileSync(join(repo.dir, 'slow.txt'), '1\n');
  execFileSync('git', ['-C', repo.dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', 'commit', '-qam', 'fix: parse is fast again']);
  const fixedSha = execFileSync('git', ['-C', repo.dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const second = await runAct(prEvent(repo.baseSha, fixedSha), 'second', { artifactDir: join(work, 'artifacts-second') });
  t.diagnostic(`second act run: ${second.ms} ms`);
  assert.equal(second.code, 0, `act failed; see ${second.logFile}`);
  // The reusable workflow's outputs, as the calling workflow sees them.
  expectLog(second, /e2e-outputs verdict=unchanged regressions=0 improvements=0/);
  expectLog(second, /Summary - <!-- benchbot:report -->\n### benchbot: No change beyond ±\d+%: nothing to do\.\n+2 benchmarks: 2 unchanged\./);

  assert.equal(standIn.state.comments.length, 1, 'the second run must update the comment, not add one');
  assert.equal(standIn.state.comments[0].id, comment.id);
  assert.match(standIn.state.comments[0].body, /### benchbot: No change beyond ±\d+%: nothing to do\.\n\n2 benchmarks: 2 unchanged\./);
  assert.ok(standIn.state.comments[0].body.includes(`head ${fixedSha.slice(0, 12)}`));
  assert.deepEqual(commentRequests().map((r) => r.method), ['POST', 'PATCH']);
  assert.equal(standIn.state.checkRuns.length, 2);
  assert.equal(standIn.state.checkRuns[1].headSha, fixedSha);
  assert.equal(standIn.state.checkRuns[1].conclusion, 'success');
  for (const r of standIn.requests.filter((q) => !q.path.startsWith('/__'))) assert.equal(r.headers.authorization, `Bearer ${TOKEN}`);
  assertAllValid(standIn);
});

test('the PR workflow under act with shards: 2: each shard measures its part, the report job merges and reports once', { timeout: 180_000 }, async (t) => {
  assert.ok(act, 'act is not installed: run `go install github.com/nektos/act@v0.2.89` (scripts/prepare-tests.sh does) or set ACT to its path');
  const pr = PR_NUMBER + 1;
  const shardArtifacts = join(work, 'artifacts-sharded');
  const before = { comments: standIn.state.comments.length, checkRuns: standIn.state.checkRuns.length };
  const run = await runAct(prEvent(repo.baseSha, repo.headSha, pr), 'sharded', { workflow: 'caller-sharded.yml', artifactDir: shardArtifacts });
  t.diagnostic(`sharded act run: ${run.ms} ms`);
  assert.notEqual(run.code, 0, `the merged report has a regression, so act should fail; see ${run.logFile}`);
  // Each shard ran only its part, and neither commented nor failed.
  const shard = (i: number) => JSON.parse(readFileSync(join(shardArtifacts, `benchbot-results-shard-${i}-of-2`, 'report.json'), 'utf8'));
  assert.deepEqual(shard(1).comparisons.map((c: { benchmark: string }) => c.benchmark), ['parse']);
  assert.deepEqual(shard(2).comparisons.map((c: { benchmark: string }) => c.benchmark), ['hash']);
  assert.deepEqual(shard(1).shard, { index: 1, count: 2 });
  expectLog(run, /Failure - Main Fail on regression/);
  expectLog(run, /::set-output:: verdict=regressed\n/);
  expectLog(run, /Summary - <!-- benchbot:report -->\n### benchbot: 1 regression: <code>parse<\/code> \+\d+\.\d+%\. Look at it before merging\.\n+2 benchmarks: 1 regression, 1 unchanged\./);

  const comments = standIn.state.comments.filter((c) => c.issueNumber === pr);
  assert.equal(comments.length, 1, 'one comment for the whole suite, from the report job');
  assert.match(comments[0].body, /Merged from 2 shards; base [0-9a-f]{12}, head [0-9a-f]{12}/);
  assert.equal(standIn.state.comments.length, before.comments + 1);
  const checks = standIn.state.checkRuns.slice(before.checkRuns);
  assert.equal(checks.length, 1, 'one check run, from the report job');
  assert.equal(checks[0].headSha, repo.headSha);
  assert.equal(checks[0].conclusion, 'failure');
  assertAllValid(standIn);
});

test('the nightly workflow under act: compares with the last nightly and records the head in the branch history', { timeout: 180_000 }, async (t) => {
  assert.ok(act, 'act is not installed: run `go install github.com/nektos/act@v0.2.89` (scripts/prepare-tests.sh does) or set ACT to its path');
  // A repository of its own: the default branch's head is the slower commit, then a fix lands.
  const nightlyRepo = makeFixtureRepo({ headFactor: 1.1 });
  execFileSync('git', ['-C', nightlyRepo.dir, 'remote', 'add', 'origin', `https://github.com/${OWNER}/${REPO}.git`]);
  // act names the ref after a tag at HEAD when there is one; the nightly must see the branch, as on GitHub.
  execFileSync('git', ['-C', nightlyRepo.dir, 'tag', '-d', 'base', 'head']);
  const event = join(work, 'event-schedule.json');
  writeFileSync(event, JSON.stringify({ schedule: '17 3 * * *', repository: { full_name: `${OWNER}/${REPO}`, name: REPO, owner: { login: OWNER } } }));
  const checksBefore = standIn.state.checkRuns.length;

  const first = await runAct(event, 'nightly-1', { event: 'schedule', workflow: 'caller-nightly.yml', cwd: nightlyRepo.dir, artifactDir: join(work, 'artifacts-nightly-1') });
  t.diagnostic(`first nightly act run: ${first.ms} ms`);
  assert.equal(first.code, 0, `a nightly reports and does not fail; see ${first.logFile}`);
  // No nightly yet: the head is compared with its parent, the base commit.
  expectLog(first, /e2e-outputs verdict=regressed regressions=1 dashboard=https:\/\/octo\.github\.io\/fixture\/\n/);

  writeFileSync(join(nightlyRepo.dir, 'slow.txt'), '0.8\n');
  execFileSync('git', ['-C', nightlyRepo.dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', 'commit', '-qam', 'faster parse']);
  writeFileSync(join(nightlyRepo.dir, 'build.sh'), '#!/bin/sh\necho building again; touch built.flag\n');
  execFileSync('git', ['-C', nightlyRepo.dir, '-c', 'user.name=benchbot test', '-c', 'user.email=test@benchbot.invalid', 'commit', '-qam', 'build: say so']);
  const tip = execFileSync('git', ['-C', nightlyRepo.dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  const second = await runAct(event, 'nightly-2', { event: 'schedule', workflow: 'caller-nightly.yml', cwd: nightlyRepo.dir, artifactDir: join(work, 'artifacts-nightly-2') });
  t.diagnostic(`second nightly act run: ${second.ms} ms`);
  assert.equal(second.code, 0, `see ${second.logFile}`);
  // Compared with the last nightly (two merges back), not with the parent: parse got faster.
  expectLog(second, /e2e-outputs verdict=improved regressions=0 dashboard=https:\/\/octo\.github\.io\/fixture\/\n/);
  // The dashboard job wrote the site from the store (two series, two nights each) and the deploy job published it.
  const pages = join(work, 'artifacts-nightly-2', 'github-pages');
  const overview = JSON.parse(readFileSync(join(pages, 'data', 'overview.json'), 'utf8'));
  assert.equal(overview.rows.length, 2);
  assert.deepEqual(overview.rows.map((r: unknown[]) => r[12]), [2, 2]);
  assert.ok(existsSync(join(pages, 'index.html')) && existsSync(join(pages, 'dashboard.js')));
  const report = JSON.parse(readFileSync(join(work, 'artifacts-nightly-2', 'benchbot-nightly', 'report.json'), 'utf8'));
  assert.equal(report.base_sha, nightlyRepo.headSha);
  assert.equal(report.head_sha, tip);
  // The nightly scans the branch's stored history and ships the scan for the app (two nights: too short to call a change).
  const scan = JSON.parse(readFileSync(join(work, 'artifacts-nightly-2', 'benchbot-nightly', 'scan.json'), 'utf8'));
  assert.equal(scan.branch, 'main');
  assert.equal(scan.series, 2, 'one series per benchmark of this machine');
  assert.ok(Array.isArray(scan.findings), 'scan.json lists findings');
  // The scan above is the report job's, recomputed from the history the measuring job shipped.
  const history = JSON.parse(readFileSync(join(work, 'artifacts-nightly-2', 'benchbot-nightly-results', 'history.json'), 'utf8'));
  assert.equal(history.series.length, 2);
  assert.deepEqual(history.series[0].nights.map((n: { sha: string }) => n.sha), [nightlyRepo.headSha, tip]);
  assert.equal(existsSync(join(work, 'artifacts-nightly-2', 'benchbot-nightly-results', 'scan.json')), false, 'the measuring job ships evidence, not a scan');
  // The report job looked for regression issues to close (with the token; the measuring job has none).
  assert.ok(standIn.requests.some((r) => r.method === 'GET' && /^\/repos\/octo\/fixture\/issues/.test(r.path)), 'the report job lists the regression issues');

  const store = await openStore(join(work, 'nightly-history.db'), { cwd: work });
  try {
    const nightlies = await store.listRuns({ repo: `${OWNER}/${REPO}`, branch: 'main', role: 'nightly' });
    assert.deepEqual(nightlies.map((r) => r.sha).sort(), [nightlyRepo.headSha, tip].sort());
  } finally {
    await store.close();
  }
  const checks = standIn.state.checkRuns.slice(checksBefore);
  assert.deepEqual(checks.map((c) => [c.name, c.headSha, c.conclusion]), [['benchbot nightly', nightlyRepo.headSha, 'neutral'], ['benchbot nightly', tip, 'success']]);
  assert.equal(standIn.state.comments.filter((c) => c.body.includes(tip.slice(0, 12))).length, 0, 'a nightly writes no PR comment');
  assertAllValid(standIn);
});
