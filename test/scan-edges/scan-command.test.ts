// benchbot scan and benchbot ack on a store filled with nightly runs through the Store port.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { IngestRun } from '../../src/store/store.ts';
import { openStore } from '../../src/store/open-store.ts';
import { lognormalSamples } from '../support/samples.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

function benchbot(cwd: string, ...args: string[]) {
  const run = spawnSync(process.execPath, [BIN, ...args], { cwd, encoding: 'utf8', env: { ...process.env, BENCHBOT_DATABASE_URL: '' } });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

const sha = (night: number) => createHash('sha1').update(`night ${night}`).digest('hex');
const timeOf = (night: number) => new Date(Date.UTC(2026, 0, 1, 2) + night * 86_400_000).toISOString();

/**
 * nightlyHistory stores `nights` nights of main as the nightly action does:
 * each night the nightly run (role nightly) and, from the second night on,
 * the base-role run of the same job (same time), which measured the
 * previous night's commit interleaved beside it. `parse` has 1% noise and is
 * `stepFactor` slower from night `stepAt` on, `hash` unchanged. The load
 * average differs every night, as on a real runner, and must not split the
 * series; `kernelAt` upgrades the kernel from that night on (both arms of
 * that night's A/B run on the new kernel, `kernelFactor` slower).
 */
async function nightlyHistory(options: { nights: number; stepAt: number; stepFactor: number; kernelAt?: number; kernelFactor?: number }): Promise<{ dir: string; store: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-scan-'));
  const path = join(dir, 'history.db');
  const store = await openStore(path, { cwd: dir });
  const runs: IngestRun[] = [];
  const slowAt = (night: number) => (night >= options.stepAt ? options.stepFactor : 1);
  for (let night = 0; night < options.nights; night++) {
    const upgraded = options.kernelAt !== undefined && night >= options.kernelAt;
    const machine = upgraded ? options.kernelFactor ?? 1 : 1;
    const fingerprint = { cpuModel: 'Test CPU', cores: 8, governor: 'performance', kernel: upgraded ? '6.1.5' : '6.1.0', loadAverage: 0.1 + (night % 7) / 10, runnerLabels: ['bench'] };
    const measurements = (code: number, seed: number): IngestRun['measurements'] => [
      { benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower', values: lognormalSamples(10, 100 * code * machine, 0.01, seed) },
      { benchmark: 'hash', metric: 'time', unit: 'us', better: 'lower', values: lognormalSamples(10, 50 * machine, 0.01, seed + 5000) },
    ];
    runs.push({ sha: sha(night), role: 'nightly', repo: 'octo-org/widgets', branch: 'main', time: timeOf(night), harness: 'plain', warnings: [], hints: {}, fingerprint, measurements: measurements(slowAt(night), 1000 + night) });
    if (night > 0) runs.push({ sha: sha(night - 1), role: 'base', repo: 'octo-org/widgets', time: timeOf(night), harness: 'plain', warnings: [], hints: {}, fingerprint, measurements: measurements(slowAt(night - 1), 3000 + night) });
  }
  await store.ingestRuns(runs);
  await store.close();
  return { dir, store: path };
}

test('scan finds an injected 10% regression with the right nightly range, exits 1, and ack silences it', async () => {
  const h = await nightlyHistory({ nights: 40, stepAt: 30, stepFactor: 1.1 });
  const scan = benchbot(h.dir, 'scan', '--store', h.store, '--output', 'json');
  assert.equal(scan.status, 1, scan.stderr);
  const report = JSON.parse(scan.stdout);
  assert.equal(report.series, 2, 'one series per benchmark: the changing load average does not split them');
  assert.equal(report.regressions, 1);
  const f = report.findings[0];
  assert.equal(f.benchmark, 'parse');
  assert.equal(f.direction, 'regression');
  assert.equal(f.kind, 'change-point');
  assert.equal(f.last_good.sha, sha(29));
  assert.equal(f.first_bad.sha, sha(30));
  assert.equal(f.nights_since, 10);
  assert.ok(f.ratio > 1.08 && f.ratio < 1.12, `ratio ${f.ratio}`);
  assert.ok(f.ratio_ci[0] > 1.05 && f.ratio_ci[1] < 1.15);
  assert.ok(f.q < 0.05);
  assert.equal(f.trend.at(-1).sha, sha(39));
  // Filed on the strength of that night's interleaved A/B, which the store had beside the nightly run.
  assert.equal(f.confirmation.base_sha, sha(29));
  assert.equal(f.confirmation.head_sha, sha(30));
  assert.ok(f.confirmation.ratio > 1.08 && f.confirmation.ratio < 1.12);
  assert.ok(f.history.p <= 0.01);
  assert.ok(!report.findings.some((x: { benchmark: string }) => x.benchmark === 'hash'));

  const md = benchbot(h.dir, 'scan', '--store', h.store, '--repository', 'octo-org/widgets');
  assert.equal(md.status, 1);
  assert.match(md.stdout, /^### benchbot scan of (`main`|<code>main<\/code>): 1 suspected regression/);
  assert.match(md.stdout, /confirmed interleaved, .* in one session: \+\d/);
  assert.match(md.stdout, new RegExp(`\\[${sha(29).slice(0, 7)}\\]\\(https://github.com/octo-org/widgets/commit/${sha(29)}\\) → \\[${sha(30).slice(0, 7)}\\]`));
  assert.match(md.stdout, new RegExp(`benchbot bisect --good ${sha(29)} --bad ${sha(30)} --benchmark parse --metric time`));

  const ack = benchbot(h.dir, 'ack', f.series, '--at', sha(30).slice(0, 10), '--reason', 'new parser checks input', '--store', h.store);
  assert.equal(ack.status, 0, ack.stderr);
  assert.match(ack.stdout, new RegExp(`acknowledged .* at ${sha(30)}: new parser checks input`));
  const after = benchbot(h.dir, 'scan', '--store', h.store, '--output', 'json');
  assert.equal(after.status, 0, after.stdout);
  assert.equal(JSON.parse(after.stdout).regressions, 0);
});

test('an A/A history is clean (exit 0); another branch has no nightlies and says so', async () => {
  const h = await nightlyHistory({ nights: 30, stepAt: 99, stepFactor: 1 });
  const scan = benchbot(h.dir, 'scan', '--store', h.store);
  assert.equal(scan.status, 0, scan.stdout);
  assert.match(scan.stdout, /: no regressions/);
  const other = benchbot(h.dir, 'scan', '--store', h.store, '--branch', 'release', '--output', 'json');
  assert.equal(other.status, 0);
  assert.match(JSON.parse(other.stdout).warnings[0], /no nightly runs of branch release/);
});

test('ack validates the series, the commit and the reason; errors name the flag and exit 2', async () => {
  const h = await nightlyHistory({ nights: 12, stepAt: 99, stepFactor: 1 });
  const series = JSON.parse(benchbot(h.dir, 'scan', '--store', h.store, '--output', 'json').stdout);
  assert.equal(series.series, 2);
  const unknown = benchbot(h.dir, 'ack', 'main:nope:time:000000000000', '--at', sha(3), '--reason', 'x', '--store', h.store);
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /SERIES main:nope:time:000000000000: no such nightly series/);
  const noReason = benchbot(h.dir, 'ack', 'main:parse:time:x', '--at', sha(3), '--store', h.store);
  assert.equal(noReason.status, 2);
  assert.match(noReason.stderr, /--reason is required/);
  const bad = benchbot(h.dir, 'scan', '--store', h.store, '--threshold', 'lots');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /--threshold lots/);
});

test('a kernel upgrade on the runner starts a new segment of the same series: no regression, and the scan says what changed', async () => {
  const h = await nightlyHistory({ nights: 40, stepAt: 99, stepFactor: 1, kernelAt: 30, kernelFactor: 1.1 });
  const scan = benchbot(h.dir, 'scan', '--store', h.store, '--output', 'json');
  assert.equal(scan.status, 0, scan.stdout);
  const report = JSON.parse(scan.stdout);
  assert.equal(report.series, 2, 'the kernel does not split the series: same machine, new segment');
  assert.equal(report.regressions, 0);
  assert.deepEqual(report.findings.filter((f: { kind: string }) => f.kind !== 'watch'), []);
  const parse = report.machine_changes.find((m: { benchmark: string }) => m.benchmark === 'parse');
  assert.equal(parse.night.sha, sha(30));
  assert.deepEqual(parse.changes, [{ field: 'kernel', before: '6.1.0', after: '6.1.5' }]);
  const md = benchbot(h.dir, 'scan', '--store', h.store);
  assert.match(md.stdout, /#### Machine changes \(a new segment starts; never a regression\)/);
  assert.match(md.stdout, /kernel 6\.1\.0 → 6\.1\.5/);
});
