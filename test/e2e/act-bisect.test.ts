/**
 * End to end: the reusable bisect workflow (.github/workflows/bisect.yml)
 * called as the starter calls it (workflows/benchbot-bisect.yml), run by
 * `act` on this host as test/e2e/act.test.ts runs the PR and nightly
 * workflows (same substitutions: benchbot/benchbot@v1 is this checkout's
 * action.yml, dist/ and workflows; upload/download-artifact are stand-ins
 * that copy to a folder the test reads; checkout copies the working tree).
 * A repository of 8 pull-request merges, #106 making `parse` 8% slower:
 * the bisect job (contents: read, no token) names #106 in bisect.json, the
 * report job (no permissions, no repository code) reads the artifact and
 * writes the outcome to the job summary. The bench command records what it
 * can read of its environment and its parent's: no token.
 */
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { copyFileSync, cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeMergeRepo, type MergeRepo } from '../bisect-edges/merge-repo.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TOKEN = 'e2e-bisect-token';

function findAct(): string | undefined {
  const candidates = [process.env.ACT, ...(process.env.PATH ?? '').split(delimiter).map((d) => join(d, 'act'))];
  const gopath = spawnSync('go', ['env', 'GOPATH'], { encoding: 'utf8' });
  if (gopath.status === 0) candidates.push(join(gopath.stdout.trim(), 'bin', 'act'));
  candidates.push(join(homedir(), 'go', 'bin', 'act'));
  return candidates.find((c): c is string => c !== undefined && c !== '' && existsSync(c));
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
description: Copies the files to BENCHBOT_E2E_ARTIFACTS/NAME.
inputs:
  name: { description: artifact name, required: true }
  path: { description: file or directory, required: true }
  if-no-files-found: { description: error, warn or ignore, default: warn }
  overwrite: { description: replace, default: 'false' }
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
description: Copies artifact NAME from BENCHBOT_E2E_ARTIFACTS into path.
inputs:
  name: { description: one artifact, default: '' }
  pattern: { description: glob over artifact names, default: '*' }
  path: { description: destination, required: true }
runs:
  using: composite
  steps:
    - shell: bash
      env: { NAME: "\${{ inputs.name }}", TO: "\${{ inputs.path }}" }
      run: |
        [ -d "$BENCHBOT_E2E_ARTIFACTS/$NAME" ] || { echo "::error::download-artifact stand-in: no artifact $NAME"; exit 1; }
        mkdir -p "$TO"
        cp -R "$BENCHBOT_E2E_ARTIFACTS/$NAME/." "$TO/"
`,
};

let act: string | undefined;
let work: string;
let release: string;
let repo: MergeRepo;
const actionRefs: string[] = [];

before(() => {
  act = findAct();
  if (!act) return;
  for (const file of ['dist/action.js', 'dist/benchbot.js']) assert.ok(existsSync(join(ROOT, file)), `${file} is missing: run \`npm run build\``);
  work = mkdtempSync(join(tmpdir(), 'benchbot-act-bisect-'));
  release = join(work, 'benchbot-release');
  mkdirSync(join(release, 'dist'), { recursive: true });
  copyFileSync(join(ROOT, 'action.yml'), join(release, 'action.yml'));
  for (const file of ['action.js', 'benchbot.js']) copyFileSync(join(ROOT, 'dist', file), join(release, 'dist', file));
  cpSync(join(ROOT, '.github/workflows'), join(release, '.github/workflows'), { recursive: true });
  const refs = new Map<string, string>();
  // What this run uses: the action and the bisect workflow (act clones the actions of every step it meets).
  for (const file of [join(ROOT, 'action.yml'), join(ROOT, '.github/workflows/bisect.yml')]) {
    for (const m of readFileSync(file, 'utf8').matchAll(/uses:\s*(actions\/[\w.-]+)@([\w.-]+)/g)) refs.set(`${m[1]}@${m[2]}`, m[1]);
  }
  for (const [ref, name] of refs) {
    if (name === 'actions/checkout') continue;
    const text = STAND_INS[name];
    assert.ok(text, `the action or a reusable workflow uses ${ref}, which this test has no stand-in for`);
    const dir = join(work, 'stand-ins', ref.replace(/[^\w.-]/g, '_'));
    mkdirSync(dir, { recursive: true });
    writeFileSync(join(dir, 'action.yml'), text);
    actionRefs.push(`${ref}=${dir}`);
  }
  repo = makeMergeRepo({ merges: 8, culprit: 6 });
  execFileSync('git', ['-C', repo.dir, 'remote', 'add', 'origin', 'https://github.com/octo/fixture.git']);
  // The starter, as a user copies it, with this test's runner labels, build and bench (which records its environments).
  const starter = readFileSync(join(ROOT, 'workflows/benchbot-bisect.yml'), 'utf8')
    .replace(/build: .*/, 'build: ./build.sh')
    .replace(/bench: .*/, `bench: ./bench.sh; { printenv; tr "\\\\000" "\\\\n" < /proc/$PPID/environ; } >> ${join(work, 'bench-env.txt')}\n      format: plain\n      store: none\n      max-load: '1000'`);
  assert.match(starter, /uses: benchbot\/benchbot\/\.github\/workflows\/bisect\.yml@v1/);
  writeFileSync(join(work, 'caller-bisect.yml'), starter);
});

test('the bisect workflow under act: the bisect job (no token) names the culprit merge; the report job writes it to the summary', { timeout: 300_000 }, async (t) => {
  assert.ok(act, 'act is not installed: run `go install github.com/nektos/act@v0.2.89` (scripts/prepare-tests.sh does) or set ACT to its path');
  const event = join(work, 'event-dispatch.json');
  const series = 'main:parse:time:0123456789ab';
  writeFileSync(event, JSON.stringify({ inputs: { good: repo.good, bad: repo.bad, benchmark: 'parse', metric: '', series }, repository: { full_name: 'octo/fixture', name: 'fixture', owner: { login: 'octo' } } }));
  const artifacts = join(work, 'artifacts');
  const args = [
    'workflow_dispatch', '-W', join(work, 'caller-bisect.yml'), '-e', event,
    '-P', 'self-hosted=-self-hosted', '-P', 'bench=-self-hosted', '-P', 'ubuntu-latest=-self-hosted',
    '--action-cache-path', join(work, 'act-cache'),
    '--local-repository', `benchbot/benchbot@v1=${release}`,
    ...actionRefs.flatMap((r) => ['--local-repository', r]),
    '-s', `GITHUB_TOKEN=${TOKEN}`,
    '--env', `BENCHBOT_E2E_ARTIFACTS=${artifacts}`,
  ];
  const env = { ...process.env, PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`, BENCHBOT_LOCK: join(work, 'machine.lock'), NO_COLOR: '1' };
  const started = Date.now();
  const { code, log } = await new Promise<{ code: number | null; log: string }>((resolve, reject) => {
    const child = spawn(act as string, args, { cwd: repo.dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    const timer = setTimeout(() => child.kill('SIGKILL'), 280_000);
    child.on('error', reject);
    child.on('close', (c) => {
      clearTimeout(timer);
      resolve({ code: c, log: text });
    });
  });
  const logFile = join(work, 'act-bisect.log');
  writeFileSync(logFile, log);
  t.diagnostic(`act run: ${Date.now() - started} ms`);
  const expectLog = (pattern: RegExp, present = true) => assert.equal(pattern.test(log), present, `act's log ${present ? 'lacks' : 'has'} ${pattern}; see ${logFile}`);
  assert.equal(code, 0, `act failed; see ${logFile}`);
  // Two jobs: the bisection on the bench runner, then the report from the artifact.
  expectLog(/Success - Main Bisect/);
  expectLog(/Success - Main Download the bisect log/);
  expectLog(/Success - Main Report the bisection/);
  expectLog(/Main Benchmark base against head/, false);
  expectLog(/setup-node stand-in ran/, false);
  // The artifact the benchbot app reads.
  const bisect = JSON.parse(readFileSync(join(artifacts, 'benchbot-bisect', 'bisect.json'), 'utf8'));
  assert.equal(bisect.status, 'found');
  assert.equal(bisect.culprit.pr, 106);
  assert.equal(bisect.culprit.sha, repo.culprit.sha);
  assert.equal(bisect.benchmark, 'parse');
  assert.equal(readFileSync(join(artifacts, 'benchbot-bisect', 'series.txt'), 'utf8'), `${series}\n`);
  // The report job's job summary, from the artifact.
  expectLog(/Summary - ### benchbot bisect: parse \(time\)/);
  expectLog(new RegExp(`\\*\\*Culprit:\\*\\* #106 <code>${repo.culprit.sha.slice(0, 12)}</code>|\\*\\*Culprit:\\*\\* #106 \`${repo.culprit.sha.slice(0, 12)}\``));
  // What the repository's bench command could read held no token.
  const benchEnv = readFileSync(join(work, 'bench-env.txt'), 'utf8');
  assert.match(benchEnv, /BENCHBOT_INPUT_BENCH=/, 'the bench command dumped its environments');
  assert.ok(!benchEnv.includes(TOKEN) && !/GITHUB_TOKEN/.test(benchEnv), `the bench command could read a token; see ${join(work, 'bench-env.txt')}`);
});
