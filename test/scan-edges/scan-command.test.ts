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
 * nightlyHistory stores `nights` nightly runs of main: `parse` 1% noise,
 * `stepFactor` slower from night `stepAt` on, `hash` unchanged. The load
 * average differs every night, as on a real runner, and must not split the series.
 */
async function nightlyHistory(options: { nights: number; stepAt: number; stepFactor: number }): Promise<{ dir: string; store: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-scan-'));
  const path = join(dir, 'history.db');
  const store = await openStore(path, { cwd: dir });
  const runs: IngestRun[] = [];
  for (let night = 0; night < options.nights; night++) {
    const slow = night >= options.stepAt ? options.stepFactor : 1;
    runs.push({
      sha: sha(night), role: 'nightly', repo: 'octo-org/widgets', branch: 'main', time: timeOf(night), harness: 'plain', warnings: [], hints: {},
      fingerprint: { cpuModel: 'Test CPU', cores: 8, governor: 'performance', kernel: '6.1.0', loadAverage: 0.1 + (night % 7) / 10, runnerLabels: ['bench'] },
      measurements: [
        { benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower', values: lognormalSamples(10, 100 * slow, 0.01, 1000 + night) },
        { benchmark: 'hash', metric: 'time', unit: 'us', better: 'lower', values: lognormalSamples(10, 50, 0.01, 2000 + night) },
      ],
    });
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
  assert.ok(!report.findings.some((x: { benchmark: string }) => x.benchmark === 'hash'));

  const md = benchbot(h.dir, 'scan', '--store', h.store, '--repo', 'octo-org/widgets');
  assert.equal(md.status, 1);
  assert.match(md.stdout, /^### benchbot scan of `main`: 1 suspected regression/);
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
