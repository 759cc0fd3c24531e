// The nightly's confirmation step: a finding without its interleaved A/B gets one right away, through the store.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadNightlySeries } from '../../src/jobs/nightly-history.ts';
import type { Run } from '../../src/model/run.ts';
import { awaitingPairs, loadConfirmedSeries } from '../../src/jobs/confirm-findings.ts';
import type { AbPair } from '../../src/jobs/confirm-findings.ts';
import { scanHistory } from '../../src/scan/scan-history.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { IngestRun } from '../../src/store/store.ts';
import { lognormalSamples } from '../support/samples.ts';

const sha = (night: number) => createHash('sha1').update(`night ${night}`).digest('hex');
const timeOf = (night: number) => new Date(Date.UTC(2026, 0, 1, 2) + night * 86_400_000).toISOString();
const fingerprint = { cpuModel: 'Test CPU', cores: 8, governor: 'performance', kernel: '6.1.0', loadAverage: 0.2 };

test('a finding whose night has no A/B awaits it; the nightly measures last good vs first bad right away, and then files it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-confirm-'));
  const store = await openStore(join(dir, 'history.db'), { cwd: dir });
  const level = (night: number) => (night >= 30 ? 110 : 100);
  // An older store: nightly runs only, no A/B beside them.
  const runs: IngestRun[] = Array.from({ length: 40 }, (_, night) => ({
    sha: sha(night), role: 'nightly' as const, repo: 'o/r', branch: 'main', time: timeOf(night), harness: 'plain', warnings: [], hints: {}, fingerprint,
    measurements: [{ benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower' as const, values: lognormalSamples(10, level(night), 0.01, 100 + night) }],
  }));
  await store.ingestRuns(runs);
  const before = scanHistory(await loadNightlySeries(store, { branch: 'main', repo: 'o/r' }));
  assert.deepEqual(before.findings.filter((f) => f.kind !== 'watch'), [], 'nothing is filed on the history alone');
  assert.deepEqual(awaitingPairs(before.awaiting, 3), [{ base: sha(29), head: sha(30) }]);

  const measured: AbPair[] = [];
  const measure = async (pair: AbPair): Promise<{ base: Run; head: Run }> => {
    measured.push(pair);
    const night = (s: string) => runs.findIndex((r) => r.sha === s);
    const run = (s: string, role: 'base' | 'head', seed: number): Run => ({
      sha: s, role, fingerprint, time: '2026-02-10T02:30:00.000Z', harness: 'plain', warnings: [], hints: {},
      measurements: [{ benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower', values: lognormalSamples(10, level(night(s)), 0.01, seed) }],
    });
    return { base: run(pair.base, 'base', 7), head: run(pair.head, 'head', 8) };
  };
  const { series, measured: pairs } = await loadConfirmedSeries(store, { branch: 'main', repo: 'o/r' }, measure);
  assert.deepEqual(pairs, [{ base: sha(29), head: sha(30) }]);
  assert.deepEqual(measured, pairs, 'one A/B, of exactly the pair to confirm');
  const after = scanHistory(series);
  const f = after.findings.find((x) => x.kind !== 'watch');
  assert.ok(f, 'confirmed by the A/B measured right away');
  assert.equal(f.firstBad.sha, sha(30));
  assert.equal(f.confirmation?.baseSha, sha(29));
  assert.ok(f.confirmation !== null && f.confirmation !== undefined && Math.abs(f.confirmation.ratio - 1.1) < 0.02);
  assert.deepEqual(after.awaiting, []);

  // Stored: the next night's scan sees the same confirmation without measuring again.
  const again = await loadConfirmedSeries(store, { branch: 'main', repo: 'o/r' }, measure);
  assert.deepEqual(again.measured, []);
  await store.close();
});
