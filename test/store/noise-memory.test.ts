import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { openStore } from '../../src/store/open-store.ts';
import { learnNoise, loadNoiseMemory, memoryStateKey, mergeNoise, noiseKey, storedRounds, MEMORY_ROUNDS } from '../../src/store/noise-memory.ts';
import type { Fingerprint } from '../../src/model/fingerprint.ts';
import type { Run } from '../../src/model/run.ts';

const scratch = mkdtempSync(join(tmpdir(), 'benchbot-noise-memory-'));
after(() => rmSync(scratch, { recursive: true, force: true }));
const machine: Fingerprint = { cpuModel: 'Xeon', cores: 2, kernel: '6.1', loadAverage: 1.5 };
const other: Fingerprint = { cpuModel: 'EPYC', cores: 64, kernel: '6.1' };

test('mergeNoise averages variances weighted by rounds and caps the evidence so the memory follows the machine', () => {
  const a = mergeNoise(undefined, { benchmark: 'b', metric: 'real_time', sigma: 0.02, rounds: 30 }, 't1');
  assert.deepEqual(a, { sigma: 0.02, rounds: 30, updated: 't1' });
  const b = mergeNoise(a, { benchmark: 'b', metric: 'real_time', sigma: 0.04, rounds: 10 }, 't2');
  assert.ok(Math.abs(b.sigma - Math.sqrt((30 * 0.02 ** 2 + 10 * 0.04 ** 2) / 40)) < 1e-15);
  assert.equal(b.rounds, 40);
  let c = b;
  for (let i = 0; i < 30; i++) c = mergeNoise(c, { benchmark: 'b', metric: 'real_time', sigma: 0.1, rounds: 40 }, 't3');
  assert.equal(c.rounds, MEMORY_ROUNDS);
  assert.ok(Math.abs(c.sigma - 0.1) < 1e-3, `after many noisy runs the memory says ${c.sigma}`);
});

test('the memory lives in the store per machine key and repository; runs on another machine do not touch it', async () => {
  const store = await openStore(join(scratch, 'a.db'), { cwd: scratch, env: {} });
  try {
    await learnNoise(store, machine, 'repo', [{ benchmark: 'BM_A', metric: 'real_time', sigma: 0.01, rounds: 20 }], '2026-11-22T00:00:00Z');
    await learnNoise(store, { ...machine, loadAverage: 3 }, 'repo', [{ benchmark: 'BM_A', metric: 'real_time', sigma: 0.03, rounds: 20 }], '2026-11-23T00:00:00Z');
    await learnNoise(store, other, 'repo', [{ benchmark: 'BM_A', metric: 'real_time', sigma: 0.5, rounds: 20 }], '2026-11-23T00:00:00Z');
    const memory = await loadNoiseMemory(store, machine, 'repo');
    const a = memory.get(noiseKey('BM_A', 'real_time'));
    assert.ok(a && Math.abs(a.sigma - Math.sqrt((0.01 ** 2 + 0.03 ** 2) / 2)) < 1e-12, `sigma ${a?.sigma}: the load average does not split a machine`);
    assert.equal(a?.rounds, 40);
    assert.equal((await loadNoiseMemory(store, machine, 'another repo')).size, 0);
    assert.equal((await loadNoiseMemory(store, other, 'repo')).get(noiseKey('BM_A', 'real_time'))?.sigma, 0.5);
    assert.notEqual(memoryStateKey(machine, 'repo'), memoryStateKey(other, 'repo'));
  } finally {
    await store.close();
  }
});

test('two jobs learning at once both land (compare-and-set), and a garbled entry is ignored rather than trusted', async () => {
  const store = await openStore(join(scratch, 'b.db'), { cwd: scratch, env: {} });
  try {
    await Promise.all(Array.from({ length: 5 }, (_, i) => learnNoise(store, machine, 'r', [{ benchmark: `B${i}`, metric: 'time', sigma: 0.01, rounds: 10 }], 't')));
    assert.equal((await loadNoiseMemory(store, machine, 'r')).size, 5);
    await store.putState(memoryStateKey(machine, 'bad'), { records: { x: { sigma: 'NaN', rounds: 3 }, y: { sigma: 0.02, rounds: 10 } } });
    assert.deepEqual([...(await loadNoiseMemory(store, machine, 'bad')).keys()], ['y']);
  } finally {
    await store.close();
  }
});

test('storedRounds returns a commit\'s rounds from this machine only, any role, oldest first', async () => {
  const store = await openStore(join(scratch, 'c.db'), { cwd: scratch, env: {} });
  const run = (sha: string, role: Run['role'], fingerprint: Fingerprint, time: string, values: number[]): Run & { repo: string } => ({
    repo: 'r', sha, role, fingerprint, time, harness: 'google-benchmark', warnings: [], hints: {},
    measurements: [{ benchmark: 'BM_A', metric: 'real_time', unit: 'ns', better: 'lower', values }],
  });
  try {
    await store.ingestRuns([
      run('a'.repeat(40), 'base', machine, '2026-11-20T00:00:00Z', [1, 2]),
      run('a'.repeat(40), 'nightly', { ...machine, loadAverage: 9 }, '2026-11-21T00:00:00Z', [3, 4]),
      run('a'.repeat(40), 'base', other, '2026-11-22T00:00:00Z', [5, 6]),
      run('b'.repeat(40), 'base', machine, '2026-11-22T00:00:00Z', [7, 8]),
    ]);
    const rounds = await storedRounds(store, machine, 'r', 'a'.repeat(40));
    assert.deepEqual(rounds.map((m) => m.values), [[1, 2], [3, 4]]);
  } finally {
    await store.close();
  }
});
