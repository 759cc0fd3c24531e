// The dashboard tests' store, generated (never hand-typed) from the
// committed history generator (bench/history-generator.ts): 90 nights x
// 300 series with 4 real steps, plus what a real history gathers around
// them: one step acknowledged with `benchbot ack`'s record, a regression
// issue the app filed (with the culprit bisection named), a second machine
// for a few benchmarks, a benchmark whose name is an HTML attack, and two PR
// checks (base and head stored together, as `benchbot run` stores them).
//
//   node test/dashboard/fixture-store.ts OUT.db     writes one to look at
import { fileURLToPath } from 'node:url';
import { historyLines, plannedSteps, seeded, type HistoryShape, type PlannedStep } from '../../bench/history-generator.ts';
import { hostKey } from '../../src/model/fingerprint.ts';
import { openStore } from '../../src/store/open-store.ts';
import type { IngestRun, Store } from '../../src/store/store.ts';

/** SHAPE is the fixture's history. */
export const SHAPE: HistoryShape = { series: 300, nights: 90, samples: 10, steps: 4, stepWithin: 30, abNights: 40, seed: 15, repo: 'example/suite', branch: 'main' };

/** HOSTILE is a benchmark name that would run script if a page ever treated data as markup. */
export const HOSTILE = '<img src=x onerror=alert(1)>';

/** SECOND_MACHINE is the other runner some benchmarks also run on. */
export const SECOND_MACHINE = { cpuModel: 'Ampere Altra Q80-30', cores: 80, governor: 'performance', kernel: '6.1.0-28-arm64', memoryBytes: 540_000_000_000, hostName: 'bench-arm', virtualization: 'bare-metal' };

/** Fixture says what was seeded, for the tests to check against. */
export interface Fixture {
  steps: PlannedStep[];
  /** acked: the step that was acknowledged (expected), with its reason. */
  acked: PlannedStep & { reason: string };
  /** issue: the step with a regression issue, its number and culprit. */
  issue: PlannedStep & { number: number; url: string; culprit: { sha: string; subject: string; pr: number } };
  machine: string;
  secondMachine: string;
  seriesCount: number;
  pr: { number: number; headSha: string };
}

/** seedFixture fills an empty store with the fixture history and returns what it holds. */
export async function seedFixture(store: Store): Promise<Fixture> {
  const steps = plannedSteps(SHAPE);
  const rng = seeded(99);
  let firstFingerprint: IngestRun['fingerprint'] | undefined;
  const second: IngestRun[] = [];
  await store.ingestStream((function* () {
    let header = true;
    for (const line of historyLines(SHAPE)) {
      if (header) {
        header = false;
        continue;
      }
      const { type: _t, id, ...run } = JSON.parse(line) as IngestRun & { type: string; id: string };
      firstFingerprint ??= run.fingerprint;
      run.measurements.push({ benchmark: HOSTILE, metric: 'real_time', unit: 'ns', better: 'lower', values: Array.from({ length: 10 }, () => 500 * (1 + 0.01 * (rng() - 0.5))) });
      // The same first three benchmarks, a little slower, on the second machine.
      second.push({ ...run, key: `${id}-arm`, fingerprint: { ...SECOND_MACHINE, loadAverage: 0.1 }, measurements: run.measurements.slice(0, 3).map((m) => ({ ...m, values: m.values.map((v) => v * 1.4) })) });
      yield { ...run, key: id };
    }
  })());
  await store.ingestRuns(second);
  const machine = hostKey(firstFingerprint as IngestRun['fingerprint']);
  const key = (s: PlannedStep) => `main:${s.benchmark}:${s.metric}:${machine}`;

  const regressions = steps.filter((s) => s.ratio > 1);
  const acked = { ...regressions[0], reason: 'expected: the parser now validates UTF-8 <b>strictly</b>' };
  await store.putState(`ack:${key(acked)}:${acked.sha}`, { series: key(acked), sha: acked.sha, reason: acked.reason, createdAt: '2025-04-01T00:00:00Z' });
  const filed = regressions[1];
  const issue = { ...filed, number: 4242, url: 'https://github.com/example/suite/issues/4242', culprit: { sha: filed.sha, subject: 'Inline the hash <script>alert(2)</script> loop', pr: 4199 } };
  await store.putState(`issue:example/suite:${key(filed)}`, { number: issue.number, url: issue.url, marker: 'benchbot-regression', at: '2025-04-01T00:00:00Z', culprit: issue.culprit });
  // A hostile issue URL: the pages must not make it a link.
  await store.putState(`issue:example/suite:main:${HOSTILE}:real_time:${machine}`, { number: 13, url: 'javascript:alert(3)', marker: 'x', at: '2025-04-01T00:00:00Z' });

  // Two PR checks: one regressed (head 10% slower on one benchmark), one unchanged.
  const prFingerprint = { ...(firstFingerprint as IngestRun['fingerprint']), loadAverage: 0.07 };
  const side = (sha: string, role: 'base' | 'head', time: string, slower: number): IngestRun => ({
    sha, role, fingerprint: prFingerprint, time, harness: 'google-benchmark', repo: 'example/suite', ...(role === 'head' ? { branch: 'faster-hash' } : {}), warnings: [], hints: {},
    measurements: ['BM_Sort/small/16', 'BM_Hash/small/16', 'BM_Parse/small/16'].map((benchmark, i) => ({
      benchmark, metric: 'real_time', unit: 'ns', better: 'lower' as const,
      values: Array.from({ length: 20 }, () => (100 + 10 * i) * (i === 1 ? slower : 1) * (1 + 0.004 * (rng() - 0.5))),
    })),
  });
  const headSha = 'feedc0de'.repeat(5);
  await store.ingestRuns([side('ba5e0000'.repeat(5), 'base', '2025-03-30T12:00:00Z', 1), side(headSha, 'head', '2025-03-30T12:00:00Z', 1.1)]);
  await store.ingestRuns([side('ba5e0001'.repeat(5), 'base', '2025-03-31T12:00:00Z', 1), side('c0ffee00'.repeat(5), 'head', '2025-03-31T12:00:00Z', 1)]);
  await store.putState('bench:example/suite#77', { owner: 'example', repo: 'suite', pr: 77, base: 'ba5e0000'.repeat(5), head: headSha, status: 'reported' });

  return { steps, acked, issue, machine, secondMachine: hostKey(SECOND_MACHINE), seriesCount: SHAPE.series + 1 + 3, pr: { number: 77, headSha } };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const path = process.argv[2];
  if (!path) throw new Error('give the SQLite file to write');
  const store = await openStore(path, { cwd: process.cwd(), env: {} });
  try {
    const f = await seedFixture(store);
    console.log(`seeded ${path}: ${f.seriesCount} series; steps ${f.steps.map((s) => `${s.benchmark}@${s.night}`).join(', ')}`);
  } finally {
    await store.close();
  }
}
