// The nightly scan on histories resampled from the real noise corpus (fixtures/noise/).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadCorpus, makeHistory, seeded } from '../../bench/bisect.ts';
import { poolMaker, scanConfirming } from '../../bench/nightly.ts';
import type { Pool } from '../../bench/bisect.ts';
import { scanHistory, scanSeries } from '../../src/scan/scan-history.ts';
import { seriesKey, type Night, type Series } from '../../src/scan/series.ts';
import { seriesFromPoints } from '../../src/scan/series-from-points.ts';
import type { SeriesPoint } from '../../src/store/store.ts';
import { benjaminiHochberg } from '../../src/stats/fdr.ts';

const pools = loadCorpus();
const pool = (name: string): Pool => pools.find((p) => p.name === name) as Pool;
const quiet = pool('grep -c 7 numbers.txt');
const alarms = (series: Series, options = {}) => scanSeries(series, options).findings.filter((f) => f.kind !== 'watch');

test('finds an injected 10% step at the right night with the right commit range', () => {
  let exact = 0;
  for (let seed = 1; seed <= 10; seed++) {
    // As the nightly action runs it: an inconclusive A/B gets another interleaved session of the same pair (10 v 10 sessions here; bench:nightly runs run's looks up to 40).
    const series = poolMaker(quiet, seeded(seed), 'iid', 'fixed')(1.1, 'q');
    const found = scanConfirming([series], 60).findings.filter((f) => f.kind !== 'watch');
    assert.ok(found.length >= 1, `seed ${seed}: no finding`);
    const f = found[0];
    assert.equal(f.direction, 'regression');
    assert.equal(f.kind, 'change-point');
    assert.ok(f.ratio > 1.05 && f.ratio < 1.15, `seed ${seed}: ratio ${f.ratio}`);
    assert.ok(f.q !== null && f.q < 0.05);
    // Filed only with its interleaved confirmation: last good vs first bad in one session.
    assert.equal(f.confirmation?.baseSha, f.lastGood.sha);
    assert.equal(f.confirmation?.headSha, f.firstBad.sha);
    assert.ok(f.history !== undefined && f.history.ratio > 1.05 && f.history.p <= 0.01);
    if (f.lastGood.sha === 'n039' && f.firstBad.sha === 'n040') {
      exact++;
      assert.equal(f.nightsSince, 20);
      assert.ok(f.ratioCi !== null && f.ratioCi[0] > 1 && f.ratioCi[0] <= f.ratio && f.ratio <= f.ratioCi[1]);
      assert.equal(f.before.nights, 5);
      assert.equal(f.after.nights, 5);
      assert.equal(f.trend.at(-1)?.sha, 'n059');
      assert.ok(f.trend.some((p) => p.sha === 'n039'));
    }
  }
  assert.ok(exact >= 8, `exact range in ${exact}/10 histories`);
});

test('a step on a noisier pool is still found within a night or two', () => {
  for (let seed = 1; seed <= 5; seed++) {
    const series = poolMaker(pool('sort numbers.txt'), seeded(seed), 'iid', 'fixed')(1.2, 's');
    const f = scanConfirming([series], 60).findings.filter((x) => x.kind !== 'watch')[0];
    assert.ok(f !== undefined, `seed ${seed}`);
    assert.ok(Math.abs(Number(f.firstBad.sha.slice(1)) - 40) <= 2, `seed ${seed}: first bad ${f.firstBad.sha}`);
  }
});

test('A/A histories with block draws (every night its own offset): no finding in 900 series-nights', () => {
  // 30 histories (3 per corpus pool) of 60 nights; the scan reports the last 30 nights of each.
  const histories = pools.flatMap((p, i) => [0, 1, 2].map((t) => makeHistory({ pool: p, nights: 60, key: `${p.name}#${t}`, draw: 'block' }, seeded(1000 + 10 * i + t))));
  const found = scanHistory(histories).findings.filter((f) => f.kind !== 'watch');
  assert.deepEqual(found.map((f) => `${f.series}@${f.firstBad.sha} ${f.direction} ${f.ratio}`), []);
  // The quietest pool alone, 10 histories: nothing at all.
  const quietOnes = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9].map((t) => makeHistory({ pool: quiet, nights: 60, key: `q${t}` }, seeded(2000 + t)));
  assert.deepEqual(scanHistory(quietOnes).findings.filter((f) => f.kind !== 'watch'), []);
});

test('higher-is-better metrics read a drop as the regression', () => {
  const series = { ...makeHistory({ pool: quiet, nights: 50, stepAt: 35, factor: 0.85 }, seeded(7)), better: 'higher' as const };
  const f = alarms(series)[0];
  assert.equal(f.direction, 'regression');
  assert.ok(f.ratio < 1);
});

/**
 * clean builds a quiet synthetic history: every night's samples sit at
 * level * (1 + small deterministic jitter), and each night's A/B measured
 * the previous night's level beside it (`ab: false` leaves the A/Bs out).
 */
function clean(levels: number[], options: { ab?: boolean; abLevels?: number[] } = {}): Series {
  const jitter = (level: number, i: number, k: number) => Array.from({ length: 10 }, (_, j) => level * (1 + 0.004 * Math.sin(i * 7.3 + j * 1.9 + k)));
  const sha = (i: number) => `n${String(i).padStart(3, '0')}`;
  const nights: Night[] = levels.map((level, i) => ({
    sha: sha(i),
    time: new Date(Date.UTC(2026, 0, 1 + i)).toISOString(),
    values: jitter(level, i, 0),
    ...(i > 0 && options.ab !== false ? { ab: { baseSha: sha(i - 1), base: jitter((options.abLevels ?? levels)[i - 1], i, 0.5) } } : {}),
  }));
  return { benchmark: 'BM_X', metric: 'time', unit: 'ns', better: 'lower', machineKey: 'fp', branch: 'main', nights };
}

test('the fast alert needs two nights: one night is a watch', () => {
  const flat = Array.from({ length: 40 }, (_, i) => 100 * (1 + 0.01 * Math.sin(i * 2.1)));
  const one = scanSeries(clean([...flat, 125]));
  assert.deepEqual(one.findings.filter((f) => f.kind !== 'watch'), []);
  const watch = one.findings.find((f) => f.kind === 'watch');
  assert.ok(watch, 'a watch on the first night');
  assert.equal(watch.firstBad.sha, 'n040');
  assert.equal(watch.q, null);
  assert.ok((watch.zScore ?? 0) >= 4);

  const two = scanSeries(clean([...flat, 125, 125])).findings.filter((f) => f.kind !== 'watch');
  assert.equal(two.length, 1);
  assert.equal(two[0].firstBad.sha, 'n040');
  assert.equal(two[0].lastGood.sha, 'n039');
  assert.equal(two[0].direction, 'regression');

  // Two nights that disagree in direction are not an alert.
  const split = scanSeries(clean([...flat, 75, 125])).findings.filter((f) => f.kind !== 'watch');
  assert.deepEqual(split, []);
});

test('acks suppress the acknowledged change and start a new baseline', () => {
  const levels = [...Array(30).fill(100), ...Array(15).fill(110), ...Array(15).fill(121)];
  const series = clean(levels);
  const key = seriesKey(series);
  const plain = alarms(series);
  assert.deepEqual(plain.map((f) => f.firstBad.sha), ['n030', 'n045']);

  const acked = alarms(series, { acks: [{ series: key, sha: 'n030', reason: 'new allocator, expected' }] });
  assert.deepEqual(acked.map((f) => f.firstBad.sha), ['n045']);
  assert.ok(Math.abs(acked[0].ratio - 1.1) < 0.01, 'measured against the new baseline');

  // An ack placed by time (the culprit merge between two nightlies) works the same.
  const byTime = alarms(series, { acks: [{ series: key, sha: 'abc123', time: '2026-01-30T12:00:00Z' }] });
  assert.deepEqual(byTime.map((f) => f.firstBad.sha), ['n045']);

  // Acking the later change too silences the series; an ack of another series changes nothing.
  assert.deepEqual(alarms(series, { acks: [{ series: key, sha: 'n045' }] }), []);
  assert.equal(alarms(series, { acks: [{ series: 'other', sha: 'n030' }] }).length, 2);

  const unmatched = scanSeries(series, { acks: [{ series: key, sha: 'nope' }] });
  assert.match(unmatched.warnings.join('\n'), /ack at nope matches no night/);
});

test('FDR: q-values are Benjamini-Hochberg across every series tested', () => {
  const histories: Series[] = [];
  for (let i = 0; i < 30; i++) histories.push(makeHistory({ pool: quiet, nights: 60, key: `aa${i}` }, seeded(500 + i)));
  const stepped = makeHistory({ pool: quiet, nights: 60, stepAt: 40, factor: 1.1, key: 'stepped' }, seeded(3));
  histories.push(stepped);
  const all = scanHistory(histories);
  const alone = scanSeries(stepped);
  const f = all.findings.find((x) => x.series === 'stepped' && x.kind !== 'watch');
  const g = alone.findings.find((x) => x.kind !== 'watch');
  assert.ok(f && g && f.q !== null && g.q !== null);
  assert.equal(f.p, g.p);
  assert.ok(all.tested >= alone.tested);
  // Within the suite every candidate is adjusted together: the reported q is BH over all tested p-values.
  for (const x of all.findings) if (x.q !== null) assert.ok(x.q >= x.p);
  assert.deepEqual(all.findings.filter((x) => x.kind !== 'watch').map((x) => x.series), ['stepped']);
  assert.ok(f.q >= g.q);
  assert.deepEqual(benjaminiHochberg([f.p]), [g.q]);
});

test('nights without a positive median are left out with a warning; maxAgeNights hides old changes', () => {
  const series = clean([...Array(30).fill(100), ...Array(30).fill(110)]);
  const nights = [...series.nights];
  nights[5] = { ...nights[5], values: [] };
  const r = scanSeries({ ...series, nights });
  assert.match(r.warnings.join('\n'), /1 night\(s\) without a positive median/);
  assert.equal(r.findings.filter((f) => f.kind !== 'watch').length, 1);
  assert.deepEqual(alarms(series, { maxAgeNights: 20 }), []);
});

test('seriesFromPoints groups store points by benchmark, metric and machine key', () => {
  const point = (sha: string, fp: string, metric: string, median: number | null, values?: number[]): SeriesPoint => ({
    runId: sha, sha, role: 'nightly', time: '2026-01-01T00:00:00Z', machineKey: fp, benchmark: 'BM_A', metric, unit: 'ns', better: 'lower', n: values?.length ?? 0, median, values,
  });
  const series = seriesFromPoints([point('a', 'f1', 'time', 2, [1, 2, 3]), point('b', 'f1', 'time', 4), point('a', 'f2', 'time', 5, [5]), point('c', 'f1', 'cpu', null)], 'main');
  assert.equal(series.length, 3);
  assert.deepEqual(series[0].nights.map((n) => [n.sha, [...n.values]]), [['a', [1, 2, 3]], ['b', [4]]]);
  assert.equal(seriesKey(series[1]), 'main:BM_A:time:f2');
  assert.deepEqual([...series[2].nights[0].values], []);
  assert.equal(series[0].harness, undefined, 'points without a harness (store.series) name none');
  // The newest night's harness, which the scan's default work threshold follows: a suite that moved to another harness is judged as measured now.
  const moved = seriesFromPoints([{ ...point('a', 'f1', 'instructions', 2), harness: 'go' }, { ...point('b', 'f1', 'instructions', 2), harness: 'pytest-benchmark' }], 'main');
  assert.equal(moved[0].harness, 'pytest-benchmark');
});

test('a finding is filed only with its interleaved A/B: none awaits it, one that saw nothing refutes it', () => {
  const levels = [...Array(30).fill(100), ...Array(10).fill(110)];
  const confirmed = scanSeries(clean(levels));
  const f = confirmed.findings.find((x) => x.kind !== 'watch');
  assert.ok(f, 'confirmed by the A/B of n029 vs n030');
  assert.equal(f.firstBad.sha, 'n030');
  assert.equal(f.confirmation?.baseSha, 'n029');
  assert.equal(f.confirmation?.headSha, 'n030');
  assert.ok(f.confirmation !== null && f.confirmation !== undefined && Math.abs(f.confirmation.ratio - 1.1) < 0.01);

  // The same nights without A/Bs (a store of plain nightly runs): the history alone files nothing; the finding awaits its A/B.
  const bare = scanSeries(clean(levels, { ab: false }));
  assert.deepEqual(bare.findings.filter((x) => x.kind !== 'watch'), []);
  assert.deepEqual(bare.awaiting.map((x) => `${x.lastGood.sha}..${x.firstBad.sha}`), ['n029..n030']);

  // The A/B of that night measured both commits alike: the machine moved, not the code.
  const machine = scanSeries(clean(levels, { abLevels: levels.map((_, i) => (i >= 29 ? 110 : 100)) }));
  assert.deepEqual(machine.findings.filter((x) => x.kind !== 'watch'), []);
  assert.deepEqual(machine.refuted.map((x) => x.firstBad.sha), ['n030']);
  assert.deepEqual(machine.awaiting, []);
});

test('a night whose machine facts changed starts a new segment, never a regression, and the scan says what changed', () => {
  // Kernel upgrade at night 30 makes everything 10% slower (both arms of that night's A/B alike);
  // a real regression lands at night 45 in the new segment.
  const levels = [...Array(30).fill(100), ...Array(15).fill(110), ...Array(10).fill(121)];
  const abLevels = levels.map((l, i) => (i === 29 ? 110 : l));
  const series = clean(levels, { abLevels });
  const nights = series.nights.map((n, i) => ({ ...n, machine: { kernel: i < 30 ? '6.8.0-45' : '6.8.0-47', governor: 'performance', 'tool:g++': '12.2.0' } }));
  const r = scanSeries({ ...series, nights });
  assert.deepEqual(r.machineChanges.map((c) => [c.night.sha, c.changes]), [['n030', [{ field: 'kernel', before: '6.8.0-45', after: '6.8.0-47' }]]]);
  const found = r.findings.filter((x) => x.kind !== 'watch');
  assert.deepEqual(found.map((x) => x.firstBad.sha), ['n045'], 'the kernel change is no regression; the later one is');
  assert.ok(Math.abs(found[0].ratio - 1.1) < 0.01);
  assert.deepEqual(found[0].machineChanges?.map((c) => c.night.sha), ['n030'], 'the finding says what changed on the machine in its trend');
  assert.deepEqual(r.refuted, []);

  // Without the machine facts the same history would have to be refuted by the A/B (both arms moved together).
  const plain = scanSeries(series);
  assert.ok(!plain.findings.some((x) => x.kind !== 'watch' && x.firstBad.sha === 'n030'));
});
