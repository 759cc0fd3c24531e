// The scan reads and scans a batch of series at a time (memory follows the
// batch, not the suite) and applies the false discovery rate once, across
// every batch: whatever the batch size, it finds exactly what one scan of
// every series at once finds.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { loadNightlySeries, nightlySeriesBatches } from '../../src/jobs/nightly-history.ts';
import { HistoryScan, scanHistory } from '../../src/scan/scan-history.ts';
import type { Series } from '../../src/scan/series.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { IngestRun } from '../../src/store/store.ts';
import { lognormalSamples } from '../support/samples.ts';

const dir = mkdtempSync(join(tmpdir(), 'benchbot-scan-batches-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const sha = (night: number) => createHash('sha1').update(`batch night ${night}`).digest('hex');
const timeOf = (night: number, hours = 0) => new Date(Date.UTC(2026, 0, 1, 2 + hours) + night * 86_400_000).toISOString();
const BENCHMARKS = ['b0', 'b1', 'b2', 'b3', 'b4', 'b5', 'b6', 'b7'];
/** Steps: b1 12% slower from night 45, b5 10% slower from night 50 (both caught by their night's A/B). */
const factor = (benchmark: string, night: number) => (benchmark === 'b1' && night >= 45 ? 1.12 : benchmark === 'b5' && night >= 50 ? 1.1 : 1);

/**
 * A history of 8 benchmarks x 60 nights as the nightly action stores it
 * (nightly run, and the base run of the same job measuring the night
 * before), with a kernel upgrade at night 30 (a second stored series of
 * every benchmark, the same scan series), and one later confirmation
 * session (base and head runs of one time) of b5's pair.
 */
function history(): IngestRun[] {
  const runs: IngestRun[] = [];
  for (let night = 0; night < 60; night++) {
    const fingerprint = { cpuModel: 'Test CPU', cores: 8, governor: 'performance', kernel: night >= 30 ? '6.1.5' : '6.1.0', loadAverage: 0.1 + (night % 5) / 10 };
    // Each benchmark's real_time and cpu_time: one measurement (timeFamilies), so always in one batch.
    const measurements = (of: number, seed: number): IngestRun['measurements'] =>
      BENCHMARKS.flatMap((b, i) => (['real_time', 'cpu_time'] as const).map((metric, j) => ({ benchmark: b, metric, unit: 'us', better: 'lower' as const, values: lognormalSamples(10, (50 + 10 * i) * factor(b, of), 0.01 + 0.01 * j, seed + 100 * i + 50 * j) })));
    runs.push({ sha: sha(night), role: 'nightly', repo: 'o/r', branch: 'main', time: timeOf(night), harness: 'plain', warnings: [], hints: {}, fingerprint, measurements: measurements(night, 1000 * night) });
    if (night > 0) runs.push({ sha: sha(night - 1), role: 'base', repo: 'o/r', time: timeOf(night), harness: 'plain', warnings: [], hints: {}, fingerprint, measurements: measurements(night - 1, 1000 * night + 7) });
  }
  const fingerprint = { cpuModel: 'Test CPU', cores: 8, governor: 'performance', kernel: '6.1.5', loadAverage: 0.2 };
  const later = timeOf(59, 3);
  runs.push({ sha: sha(49), role: 'base', repo: 'o/r', time: later, harness: 'plain', warnings: [], hints: {}, fingerprint, measurements: [{ benchmark: 'b5', metric: 'real_time', unit: 'us', better: 'lower', values: lognormalSamples(10, 100, 0.01, 77) }] });
  runs.push({ sha: sha(50), role: 'head', repo: 'o/r', time: later, harness: 'plain', warnings: [], hints: {}, fingerprint, measurements: [{ benchmark: 'b5', metric: 'real_time', unit: 'us', better: 'lower', values: lognormalSamples(10, 110, 0.01, 78) }] });
  return runs;
}

test('a scan in batches of one series finds what one scan of every series finds, the FDR taken across all of them', { timeout: 60_000 }, async () => {
  const store = await openStore(join(dir, 'history.db'), { cwd: dir, env: {} });
  try {
    await store.ingestRuns(history());
    const whole = await loadNightlySeries(store, { branch: 'main', repo: 'o/r' });
    assert.equal(whole.length, 2 * BENCHMARKS.length, 'the kernel upgrade does not split a series');
    assert.ok(whole.every((s) => s.nights.length === 60));
    // Batches of one stored series: a benchmark's stored series (its kernels, its two time metrics) still arrive together.
    const batches: Series[][] = [];
    for await (const batch of nightlySeriesBatches(store, { branch: 'main', repo: 'o/r', batch: 1 })) batches.push(batch);
    assert.deepEqual(batches.map((b) => b.map((s) => `${s.benchmark} ${s.metric}`)), BENCHMARKS.map((b) => [`${b} real_time`, `${b} cpu_time`]));
    assert.deepEqual(batches.flat(), whole, 'the same series, nights, A/Bs and confirmation sessions');
    const b5 = whole.find((s) => s.benchmark === 'b5' && s.metric === 'real_time');
    assert.ok(b5?.nights[50].ab?.extra?.length === 1, 'the later confirmation session is b5 night 50\'s second session');

    const acks = [{ series: whole[4].key as string, sha: 'f'.repeat(40), reason: 'matches no night' }];
    const once = scanHistory(whole, { acks });
    const scan = new HistoryScan({ acks });
    for (const batch of batches) scan.add(batch);
    const batched = scan.result();
    assert.deepEqual(batched, once);
    assert.equal(scan.series, BENCHMARKS.length, 'one scanned series per family');
    // Not vacuous: both steps found at their nights, the machine change seen, q adjusted across the batches.
    const found = once.findings.filter((f) => f.kind !== 'watch');
    assert.deepEqual(found.map((f) => [f.benchmark, f.firstBad.sha]).sort(), [['b1', sha(45)], ['b5', sha(50)]]);
    assert.ok(found.some((f) => f.q !== null && f.q > f.p), 'a q-value above its p: the FDR counts the other batch\'s finding');
    assert.ok(once.machineChanges.length >= BENCHMARKS.length, 'every benchmark\'s kernel upgrade seen');
    assert.equal(once.timeFamilies?.length, BENCHMARKS.length, 'each benchmark\'s two time metrics are one family, in every batch');
    assert.equal(once.warnings.filter((w) => /ack at f{40} matches no night/.test(w)).length, 1);
    // The CLI leaves out the warning about an ack older than every night it read, as acksInWindow does.
    assert.deepEqual(scan.result({ ackCounts: () => false }).warnings.filter((w) => /ack/.test(w)), []);
  } finally {
    await store.close();
  }
});
