// The scan reads the newest nights of each series (SCAN_NIGHTS) through the
// store's per-series index, not the whole history: on a year of history it
// finds the recent steps as before, reports nothing old, and an ack older
// than the window is neither applied twice nor warned about.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { historyLines, nightSha, plannedSteps, type HistoryShape } from '../../bench/history-generator.ts';
import { loadNightlySeries, SCAN_NIGHTS } from '../../src/jobs/nightly-history.ts';
import { importNdjson } from '../../src/store/import-ndjson.ts';
import { openStore } from '../../src/store/open-store.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'benchbot-scan-window-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A year of 40 series; two recent steps, and one half a year ago that an ack marks expected. */
const SHAPE: HistoryShape = { series: 40, nights: 365, samples: 10, steps: 2, stepWithin: 15, abNights: 30, seed: 7 };

test('on a year of history the scan reads the newest nights, finds the recent steps and warns about no old ack', { timeout: 120_000 }, async () => {
  const path = join(dir, 'year.db');
  const store = await openStore(path, { cwd: dir, env: {} });
  try {
    await importNdjson(store, historyLines(SHAPE));
    const series = await loadNightlySeries(store, { branch: 'main', repo: 'example/suite' });
    assert.equal(series.length, SHAPE.series);
    assert.ok(series.every((s) => s.nights.length === SCAN_NIGHTS), 'the newest SCAN_NIGHTS nights of each series');
    assert.equal(series[0].nights.at(-1)?.sha, nightSha(7, SHAPE.nights - 1));
    assert.ok(series[0].nights.at(-1)?.ab, 'the newest nights keep their interleaved A/B');
    // An ack of a night half a year back, on the first series.
    await store.putState(`ack:${series[0].key}:${nightSha(7, 180)}`, { series: series[0].key, sha: nightSha(7, 180), reason: 'old, expected' });
  } finally {
    await store.close();
  }
  const run = spawnSync(process.execPath, [BIN, 'scan', '--store', path, '--output', 'json'], { encoding: 'utf8', env: { ...process.env, BENCHBOT_DATABASE_URL: '' } });
  const scan = JSON.parse(run.stdout) as { findings: { benchmark: string; kind: string; first_bad: { sha: string } }[]; warnings: string[] };
  const steps = plannedSteps(SHAPE);
  const confirmed = scan.findings.filter((f) => f.kind !== 'watch');
  assert.deepEqual(confirmed.map((f) => f.benchmark).sort(), steps.map((s) => s.benchmark).sort(), JSON.stringify(scan.findings.map((f) => [f.benchmark, f.kind])));
  assert.deepEqual(scan.warnings.filter((w) => /ack/.test(w)), [], 'an ack older than the window is no warning');
});
