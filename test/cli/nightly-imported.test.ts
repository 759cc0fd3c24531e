// History imported from github-action-benchmark (one value per push, no
// interleaved A/B) leaves its findings awaiting. Where their commits are in
// the local repository, `benchbot nightly --confirm-only` measures them and
// the scan then confirms or refutes them; where they are not, the scan (text
// and JSON) and the nightly say so instead of leaving them awaiting silently.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { makeNightlyRepo, type NightlyRepo } from './nightly-repo.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const BIN = join(ROOT, 'bin/benchbot.js');
const WORK = 1_500_000;
const PUSHES = 20;
/** STEP is the push (1-based) from which the recorded values are 30% higher. */
const STEP = 12;

function benchbot(cwd: string, home: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, HOME: home, BENCHBOT_LOCK: join(home, 'lock'), BENCHBOT_DATABASE_URL: '', GITHUB_ACTIONS: '' }, maxBuffer: 64 * 1024 * 1024 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

/** built compiles bench.c at `work` hash rounds into its own directory and returns the binary. */
function built(repo: NightlyRepo, work: number): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-gab-bin-'));
  writeFileSync(join(dir, 'work.h'), `#define WORK ${work}L\n`);
  // bench.c beside its own work.h: a quoted include is looked up next to the source first.
  copyFileSync(join(repo.dir, 'bench.c'), join(dir, 'bench.c'));
  execFileSync('cc', ['-O2', '-o', join(dir, 'bench'), join(dir, 'bench.c')]);
  return join(dir, 'bench');
}

/** measured runs a binary once, as github-action-benchmark's job would have, and keeps its median repetition (us). */
function measured(binary: string): number {
  const values = execFileSync(binary, { encoding: 'utf8' }).trim().split('\n').map((l) => Number(/work: ([\d.]+) us/.exec(l)?.[1])).sort((a, b) => a - b);
  return values[Math.floor(values.length / 2)];
}

/**
 * history makes a repository of PUSHES merges and the data.js
 * github-action-benchmark would have kept for them (its layout, tool
 * customSmallerIsBetter, one value per push measured by the real binary):
 * with `realStep` merge STEP raises the work by 30%; without, the code never
 * changes but the values recorded from push STEP on are the slower
 * binary's (a noisy shared runner, not the code).
 */
function history(realStep: boolean) {
  const repo = makeNightlyRepo(WORK);
  const fast = built(repo, WORK);
  const slow = built(repo, Math.round(WORK * 1.3));
  const entries = [];
  for (let i = 1; i <= PUSHES; i++) {
    const { sha, pr } = repo.merge(realStep && i === STEP ? { work: Math.round(WORK * 1.3) } : {});
    const time = Date.UTC(2026, 0, i, 3, 17);
    entries.push({
      commit: { id: sha, message: `Merge pull request #${pr}`, timestamp: new Date(time - 60_000).toISOString(), url: `https://github.com/octo/gadgets/commit/${sha}`, author: { name: 'Ana Lima', email: 'ana@example.test' } },
      date: time,
      tool: 'customSmallerIsBetter',
      benches: [{ name: 'work', value: measured(i >= STEP ? slow : fast), unit: 'us' }],
    });
  }
  const home = mkdtempSync(join(tmpdir(), 'benchbot-gab-home-'));
  writeFileSync(join(home, 'data.js'), `window.BENCHMARK_DATA = ${JSON.stringify({ lastUpdate: Date.UTC(2026, 0, PUSHES), repoUrl: 'https://github.com/octo/gadgets', entries: { Benchmark: entries } }, null, 2)}`);
  const store = join(home, 'benchbot.db');
  const imported = benchbot(repo.dir, home, 'import', '--from', 'github-action-benchmark', join(home, 'data.js'), '--store', store);
  assert.equal(imported.status, 0, imported.stderr);
  return { repo, home, store };
}

const confirmOnly = (repo: NightlyRepo, home: string, store: string, output = 'json') =>
  benchbot(repo.dir, home, 'nightly', '--confirm-only', '--bench', './bench.sh', '--build', './build.sh', '--repository', 'octo/gadgets', '--store', store, '--threshold', '5%', '--min-runs', '6', '--max-runs', '12', '--max-load', '1000', '--output', output);

test('imported history: a real step awaits, benchbot nightly --confirm-only measures it in the checkout, and the scan confirms it', async (t) => {
  const { repo, home, store } = history(true);
  const before = benchbot(repo.dir, home, 'scan', '--store', store, '--threshold', '5%', '--output', 'json');
  assert.equal(before.status, 0, before.stderr);
  const awaiting = JSON.parse(before.stdout).awaiting;
  t.diagnostic(`after import: ${awaiting.length} awaiting: ${awaiting.map((a: any) => a.reason).join('; ')}`);
  assert.ok(awaiting.length >= 1, 'the imported step awaits its interleaved A/B');
  assert.match(awaiting[0].reason, /both commits are in .*benchbot nightly/);

  const night = confirmOnly(repo, home, store);
  const report = JSON.parse(night.stdout);
  t.diagnostic(`nightly --confirm-only: exit ${night.status}, measured ${JSON.stringify(report.confirmations)}`);
  assert.equal(night.status, 1, night.stderr);
  assert.equal(report.night, null, 'no night measured');
  assert.ok(report.confirmations.measured.length >= 1);
  assert.equal(report.scan.regressions, 1);

  const after = benchbot(repo.dir, home, 'scan', '--store', store, '--threshold', '5%', '--output', 'json');
  assert.equal(after.status, 1, 'the scan now confirms it');
  const scan = JSON.parse(after.stdout);
  const finding = scan.findings.find((f: any) => f.direction === 'regression' && f.kind !== 'watch');
  assert.ok(finding?.confirmation, 'by the interleaved A/B measured here');
  assert.ok(finding.confirmation.ratio > 1.15, `A/B ratio ${finding.confirmation.ratio}`);
  assert.deepEqual(scan.awaiting, []);
});

test('imported history: a step that was the runner, not the code, is refuted by the A/B measured in the checkout', async (t) => {
  const { repo, home, store } = history(false);
  const before = JSON.parse(benchbot(repo.dir, home, 'scan', '--store', store, '--threshold', '5%', '--output', 'json').stdout);
  assert.ok(before.awaiting.length >= 1, 'the recorded step awaits its interleaved A/B');
  const night = confirmOnly(repo, home, store);
  const report = JSON.parse(night.stdout);
  t.diagnostic(`nightly --confirm-only: exit ${night.status}, measured ${JSON.stringify(report.confirmations)}`);
  assert.equal(night.status, 0, night.stderr);
  assert.ok(report.confirmations.measured.length >= 1);
  const after = benchbot(repo.dir, home, 'scan', '--store', store, '--threshold', '5%', '--output', 'json');
  assert.equal(after.status, 0);
  const scan = JSON.parse(after.stdout);
  assert.equal(scan.regressions, 0);
  assert.deepEqual(scan.awaiting.filter((a: any) => a.first_bad.sha === before.awaiting[0].first_bad.sha), [], 'no longer awaiting: refuted');
});

test('imported history whose commits are not in the checkout: scan and nightly say why each finding cannot be confirmed, in text and JSON', async () => {
  const { home, store } = history(true);
  const elsewhere = makeNightlyRepo(WORK);
  elsewhere.merge();
  const json = JSON.parse(benchbot(elsewhere.dir, home, 'scan', '--store', store, '--threshold', '5%', '--output', 'json').stdout);
  assert.ok(json.awaiting.length >= 1);
  for (const a of json.awaiting) assert.match(a.reason, new RegExp(`cannot be confirmed: ${a.last_good.sha.slice(0, 12)} and ${a.first_bad.sha.slice(0, 12)} are not in the repository at .*benchbot ack`));
  const markdown = benchbot(elsewhere.dir, home, 'scan', '--store', store).stdout;
  assert.match(markdown, /cannot be confirmed: [0-9a-f]{12} and [0-9a-f]{12} are not in the repository/);
  // The nightly tries nothing it cannot measure, says why, and exits 0: nothing confirmed.
  const night = confirmOnly(elsewhere, home, store, 'text');
  assert.equal(night.status, 0, night.stderr);
  assert.match(night.stdout, /confirmation A\/B not measurable here: [0-9a-f]{12} vs [0-9a-f]{12}: .* not in the repository at /);
  assert.match(night.stdout, /awaiting an interleaved A\/B: work \(time\)[^\n]*\n\s+cannot be confirmed/);
  // A store that does not exist has nothing to confirm: refused, not created.
  const typo = confirmOnly(elsewhere, home, join(home, 'typo.db'), 'text');
  assert.equal(typo.status, 2);
  assert.match(typo.stderr, /no store at .*typo\.db/);
  // Outside any repository the scan cannot tell, and says what the finding waits for.
  const outside = mkdtempSync(join(tmpdir(), 'benchbot-no-repo-'));
  const plain = JSON.parse(benchbot(outside, home, 'scan', '--store', store, '--threshold', '5%', '--output', 'json').stdout);
  assert.match(plain.awaiting[0].reason, /could not be measured on the last try: .*not in the repository/);
});
