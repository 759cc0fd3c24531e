// The scan reads and scans a batch of series at a time (memory follows the
// batch, not the suite) and applies the false discovery rate once, across
// every batch: whatever the batch size, it finds exactly what one scan of
// every series at once finds.
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import type { AbPair } from '../../src/jobs/confirm-findings.ts';
import { nightlyEvidence } from '../../src/jobs/nightly.ts';
import { ACK_PREFIX, loadAcks, loadNightlySeries, nightlyHistoryJson, nightlySeriesBatches } from '../../src/jobs/nightly-history.ts';
import type { Run } from '../../src/model/run.ts';
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

test('the nightly action\'s evidence in batches of one series: the same scan.json and history.json as in one batch, confirmed on the whole scan\'s findings', { timeout: 120_000 }, async () => {
  // c0 has no A/B of its own (nightly runs only) and steps 10% at night 45: it awaits a confirmation the step measures.
  const c0 = (night: number) => (night >= 45 ? 110 : 100);
  const fingerprint = { cpuModel: 'Test CPU', cores: 8, governor: 'performance', kernel: '6.1.5', loadAverage: 0.2 };
  const runs: IngestRun[] = [...history(), ...Array.from({ length: 60 }, (_, night): IngestRun => ({
    sha: sha(night), role: 'nightly', repo: 'o/r', branch: 'main', time: timeOf(night, 1), harness: 'plain', warnings: [], hints: {}, fingerprint: { ...fingerprint, kernel: night >= 30 ? '6.1.5' : '6.1.0' },
    measurements: [{ benchmark: 'c0', metric: 'real_time', unit: 'us', better: 'lower', values: lognormalSamples(10, c0(night), 0.01, 5000 + night) }],
  }))];
  const evidence = async (name: string, batch: number | undefined) => {
    const out = mkdtempSync(join(dir, `${name}-`));
    const store = await openStore(join(out, 'history.db'), { cwd: out, env: {} });
    try {
      await store.ingestRuns(runs);
      await store.putState(`${ACK_PREFIX}main:b3`, { series: 'main:b3:real_time:whatever', sha: 'e'.repeat(40), reason: 'matches no night' });
      const measured: AbPair[] = [];
      const measure = async (pair: AbPair): Promise<{ base: Run; head: Run }> => {
        measured.push(pair);
        const level = (s: string) => c0(Array.from({ length: 60 }, (_, n) => sha(n)).indexOf(s));
        const run = (s: string, role: 'base' | 'head', seed: number): Run => ({
          sha: s, role, fingerprint, time: timeOf(59, 5), harness: 'plain', warnings: [], hints: {},
          measurements: [{ benchmark: 'c0', metric: 'real_time', unit: 'us', better: 'lower', values: lognormalSamples(10, level(s), 0.01, seed) }],
        });
        return { base: run(pair.base, 'base', 91), head: run(pair.head, 'head', 92) };
      };
      const historyFile = join(out, 'history.json');
      const result = await nightlyEvidence(store, { branch: 'main', repository: 'o/r', threshold: 0.02, minRuns: 10, maxRuns: 40, repoDir: out, headSha: sha(59), historyFile, batch }, measure);
      assert.equal(result.historyFile, historyFile);
      const text = readFileSync(historyFile, 'utf8');
      // What the action wrote before it read in batches: every series at once, after the confirmations were stored.
      const whole = nightlyHistoryJson('main', await loadNightlySeries(store, { branch: 'main', repo: 'o/r' }), await loadAcks(store), []);
      assert.deepEqual(readdirSync(out).filter((f) => f.endsWith('.partial')), [], 'no unfinished file left behind');
      return { scan: result.scan, text, whole, measured };
    } finally {
      await store.close();
    }
  };
  const one = await evidence('one', undefined);
  const tiny = await evidence('tiny', 1);
  assert.equal(one.text, one.whole, 'one batch writes the very text of every series at once');
  assert.deepEqual(tiny.scan, one.scan, 'the same scan.json and summary');
  const sorted = (text: string) => {
    const h = JSON.parse(text) as { series: Array<{ benchmark: string; metric: string }> };
    return { ...h, series: [...h.series].sort((a, b) => `${a.benchmark} ${a.metric}`.localeCompare(`${b.benchmark} ${b.metric}`)) };
  };
  assert.deepEqual(sorted(tiny.text), sorted(one.text), 'the same series, nights, A/Bs, acks and chain');
  assert.equal(tiny.text, tiny.whole, 'the batched file is the text of every series read at once');
  // Not vacuous: c0's pair awaited its A/B across the batches, was measured once per store, and is then a finding with it.
  assert.deepEqual(one.measured, [{ base: sha(44), head: sha(45) }]);
  assert.deepEqual(tiny.measured, one.measured);
  const scan = JSON.parse(one.scan.json) as { series: number; findings: Array<{ benchmark: string; kind: string; first_bad: { sha: string } }> };
  assert.equal(scan.series, 2 * BENCHMARKS.length + 1);
  assert.deepEqual(scan.findings.filter((f) => f.kind !== 'watch').map((f) => [f.benchmark, f.first_bad.sha]).sort(), [['b1', sha(45)], ['b5', sha(50)], ['c0', sha(45)]]);
  const written = JSON.parse(one.text) as { series: Array<{ benchmark: string; nights: Array<{ ab?: unknown }> }>; acks: unknown[] };
  assert.equal(written.series.length, 2 * BENCHMARKS.length + 1);
  assert.ok(written.series.find((s) => s.benchmark === 'c0')?.nights[45].ab, 'c0\'s confirmation is in history.json as night 45\'s A/B');
  assert.equal(written.acks.length, 1);
});
