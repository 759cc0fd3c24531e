// `npm run bench:nightly`: issue 12's table. The nightly scan and the
// bisect when a session (one night, one bisect probe) carries its own
// offset, beside what people do today, on resampled real noise (independent
// and block draws) and on real nightly histories captured on this machine.
//
// - Noise corpus (fixtures/noise/, bench/bisect.ts): a session is
//   interleaved arms of 10 rounds; iid draws every sample independently,
//   block deals one contiguous stretch of the capture to the session's
//   arms (drawInterleaved), so a session carries that stretch's level.
// - Captured histories (fixtures/nightly-histories/demo-nights.json, by
//   fixtures/capture/nightly-histories.sh): 60 real nights of the demo
//   suite, each night last night's build beside tonight's (and tonight's
//   again) interleaved, a different background load each night. Histories
//   are the captured nights in capture order, rotated; the bisect's
//   sessions are captured nights.
//
// Rows: nightly A/A false findings per 1,000 series-nights (a false
// finding is a distinct (series, first bad night) filed: change point or
// alert, confirmed); a step of +5/+10/+20% from night 40 found within 3
// nights (and by night 60) of 80 histories; bisect right at 2 SD among 64
// merges and the sessions it used. Plain approaches: a fixed 5% threshold
// on the last night (last night's median against the night before's, as
// github-action-benchmark's alert does), and a single-sample `git bisect
// run` (one sample per probe against the midpoint of one good and one bad).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { CANDIDATES, drawInterleaved, loadCorpus, logSd, makeHistory, seeded, simulateBisect, simulatePlain } from './bisect.ts';
import type { Draw, Pool, Rng, SessionSource } from './bisect.ts';
import { sequentialAb } from '../src/compare/sequential-ab.ts';
import { scanHistory } from '../src/scan/scan-history.ts';
import type { ScanOptions } from '../src/scan/scan-options.ts';
import type { Night, Series } from '../src/scan/series.ts';
import { timeFamilies } from '../src/scan/time-families.ts';
import { median } from '../src/stats/order-statistics.ts';
import { varianceComponents } from '../src/stats/sessions.ts';

const NIGHTS = 60;
const STEP_AT = 40;
const FIRST_SCAN = 30;
const STEPS = [0.05, 0.1, 0.2];
/** STEP_HISTORIES: stepped histories per step and column (80, so that one history is 1.25 points of the rate, not 2.5). */
const STEP_HISTORIES = 80;
const WITHIN = 3;
const CAPTURE = fileURLToPath(new URL('../fixtures/nightly-histories/demo-nights.json', import.meta.url));

/** CapturedNight is one captured night of one benchmark: each arm's values in the order it ran. */
interface CapturedNight {
  prev: number[];
  tonight: number[];
  again: number[];
  load: string;
}

/** Captured is the capture: per benchmark its nights in order; `stepped` the benchmark demo-head slowed from night `step`. */
interface Captured {
  benchmarks: Map<string, CapturedNight[]>;
  step: number;
  stepped: string;
  machine: string;
  captured: string;
}

function loadCapture(metric: 'real_time' | 'cpu_time', path = CAPTURE): Captured {
  type Arms = { prev: number[]; tonight: number[]; again: number[] };
  const doc = JSON.parse(readFileSync(path, 'utf8')) as { step: number; stepped: string; machine: string; captured: string; nights: Array<{ load: string; values: Record<string, Record<string, Arms>> }> };
  const benchmarks = new Map<string, CapturedNight[]>();
  for (const night of doc.nights) {
    for (const [name, byMetric] of Object.entries(night.values)) {
      if (!benchmarks.has(name)) benchmarks.set(name, []);
      (benchmarks.get(name) as CapturedNight[]).push({ ...byMetric[metric], load: night.load });
    }
  }
  return { benchmarks, step: doc.step, stepped: doc.stepped, machine: doc.machine, captured: doc.captured };
}

/** HistoryMaker makes one 60-night history with a step of `factor` from night STEP_AT on (1: A/A), named `key`. */
type HistoryMaker = (factor: number, key: string) => Series;

/**
 * CONFIRM measures one more interleaved A/B session of a history's nights
 * (last good vs first bad), as the nightly action does right away for a
 * finding whose A/B was inconclusive: the bench draws it from the same noise.
 */
const CONFIRM = new WeakMap<Series, (lastGood: number, firstBad: number) => { base: number[]; head: number[] }>();

/**
 * Rounds is how one interleaved session (the action's min-runs..max-runs,
 * 10..40 rounds per side, looks at 10, 15, 20, 30, 40) stops:
 * `nightly` as the nightly's run stops, at the look that decides the
 * benchmark or at the budget (no futility stops: compare/sequential-ab.ts),
 * `alone` as a PR run of this benchmark alone stops (futility stops too),
 * `fixed` 10 v 10 (what this bench simulated first).
 */
export type Rounds = 'nightly' | 'alone' | 'fixed';

/** stopAsRun keeps the rounds the session measured before it stopped (see Rounds). */
function stopAsRun(base: number[], head: number[], rounds: Rounds): { base: number[]; head: number[] } {
  if (rounds === 'fixed') return { base: base.slice(0, 10), head: head.slice(0, 10) };
  const n = sequentialAb(base, head, { threshold: 0.02, alpha: 0.05, futility: rounds === 'alone' })?.rounds ?? base.length;
  return { base: base.slice(0, n), head: head.slice(0, n) };
}

export function poolMaker(pool: Pool, rng: Rng, draw: Draw, rounds: Rounds = 'nightly'): HistoryMaker {
  return (factor, key) => {
    // Every night's A/B (last night's commit beside tonight's) is a session of up to 40 rounds, stopped as run stops it.
    const budget = rounds === 'fixed' ? 10 : 40;
    const full = makeHistory({ pool, nights: NIGHTS, stepAt: STEP_AT, factor, key, draw, samplesPerNight: budget }, rng);
    const series: Series = rounds === 'fixed' ? full : {
      ...full,
      nights: full.nights.map((night) => {
        if (!night.ab) return { ...night, values: night.values.slice(0, 10) };
        const kept = stopAsRun([...night.ab.base], [...night.values], rounds);
        return { ...night, values: kept.head, ab: { ...night.ab, base: kept.base } };
      }),
    };
    const f = (i: number) => (i >= STEP_AT ? factor : 1);
    CONFIRM.set(series, (a, b) => {
      const [base, head] = drawInterleaved(pool.values, [f(a), f(b)], budget, rng, draw);
      return stopAsRun(base, head, rounds);
    });
    return series;
  };
}

/** ConfirmCost counts what the confirmations cost a suite: nights scanned and extra A/B sessions of the whole suite run. */
export interface ConfirmCost {
  nights: number;
  suiteSessions: number;
}

/**
 * scanConfirming is one night's scan as the nightly action runs it: scan,
 * then for every finding awaiting its interleaved confirmation measure one
 * more A/B session of its pair and scan again (up to two more sessions).
 */
export function scanConfirming(full: readonly Series[], end: number, options: ScanOptions = {}, cost?: ConfirmCost): ReturnType<typeof scanHistory> {
  let scan = scanHistory(full.map((h) => ({ ...h, nights: h.nights.slice(0, end) })), options);
  if (cost) cost.nights++;
  for (let round = 0; round < (options.maxConfirmSessions ?? 3) - 1 && scan.awaiting.length > 0; round++) {
    // One confirmation round is one A/B session of the pair for the whole suite (the action measures every benchmark).
    if (cost) cost.suiteSessions++;
    for (const f of scan.awaiting) {
      const series = full.find((h) => h.key === f.series);
      const confirm = series ? CONFIRM.get(series) : undefined;
      if (!series || !confirm) continue;
      const a = Number(f.lastGood.sha.slice(1));
      const b = Number(f.firstBad.sha.slice(1));
      const night = series.nights[b] as Night;
      const session = confirm(a, b);
      (series.nights as Night[])[b] = { ...night, ab: night.ab ? { ...night.ab, extra: [...(night.ab.extra ?? []), session] } : { baseSha: f.lastGood.sha, base: session.base, head: session.head } };
    }
    scan = scanHistory(full.map((h) => ({ ...h, nights: h.nights.slice(0, end) })), options);
  }
  return scan;
}

/** capturedMaker: the captured nights of one benchmark in capture order from a random rotation; arms prev and tonight are the A/B. */
function capturedMaker(name: string, nights: readonly CapturedNight[], rng: Rng): HistoryMaker {
  return (factor, key) => {
    const offset = Math.floor(rng() * nights.length);
    const f = (i: number) => (i >= STEP_AT ? factor : 1);
    const sha = (i: number) => `n${String(i).padStart(3, '0')}`;
    const out: Night[] = Array.from({ length: NIGHTS }, (_, i) => {
      const c = nights[(offset + i) % nights.length];
      return { sha: sha(i), time: new Date(Date.UTC(2026, 0, 1 + i, 3)).toISOString(), values: c.tonight.map((v) => v * f(i)), ...(i > 0 ? { ab: { baseSha: sha(i - 1), base: c.prev.map((v) => v * f(i - 1)) } } : {}) };
    });
    const series: Series = { key, benchmark: name, metric: 'time', unit: 'ns', better: 'lower', machineKey: 'fp', branch: 'main', nights: out };
    // A confirmation session is another captured night's pair of arms (its again and prev arms), shifted as the commits are.
    CONFIRM.set(series, (a, b) => {
      const c = nights[Math.floor(rng() * nights.length)];
      return { base: c.prev.map((v) => v * f(a)), head: c.again.map((v) => v * f(b)) };
    });
    return series;
  };
}

/** plainAlarm is the fixed-threshold rule on the last night: last night's median against the night before's, beyond 5%. */
function plainAlarm(series: Series, end: number): 'regression' | 'improvement' | null {
  const last = median(series.nights[end - 1].values);
  const before = median(series.nights[end - 2].values);
  const r = last / before;
  return r > 1.05 ? 'regression' : r < 1 / 1.05 ? 'improvement' : null;
}

interface ScanRow {
  seriesNights: number;
  /** cost: the A/A suite's confirmation sessions (each a whole-suite A/B) over its nights. */
  cost: ConfirmCost;
  falseFindings: number;
  plainFalse: number;
  found: Record<string, { within: number; ever: number; plainWithin: number; total: number; delays: number[] }>;
}

/** scanRows measures A/A false findings (`aa` histories scanned nightly as one suite) and step detection (`perStep` histories per step). */
export function scanRows(makers: readonly HistoryMaker[], aaPerMaker: number, stepsPerMaker: number, options: ScanOptions = {}, steps: readonly number[] = STEPS): ScanRow {
  const row: ScanRow = { seriesNights: 0, cost: { nights: 0, suiteSessions: 0 }, falseFindings: 0, plainFalse: 0, found: {} };
  const aa: Series[] = [];
  makers.forEach((make, m) => {
    for (let t = 0; t < aaPerMaker; t++) aa.push(make(1, `aa${m}#${t}`));
  });
  const alarms = new Set<string>();
  const plain = new Set<string>();
  for (let end = FIRST_SCAN; end <= NIGHTS; end++) {
    const scan = scanConfirming(aa, end, options, row.cost);
    row.seriesNights += aa.length;
    for (const f of scan.findings) if (f.kind !== 'watch') alarms.add(`${f.series}@${f.firstBad.sha}`);
    for (const h of aa) if (plainAlarm(h, end) !== null) plain.add(`${h.key}@${end - 1}`);
  }
  row.falseFindings = alarms.size;
  row.plainFalse = plain.size;
  for (const step of steps) {
    const r = { within: 0, ever: 0, plainWithin: 0, total: 0, delays: [] as number[] };
    makers.forEach((make, m) => {
      for (let t = 0; t < stepsPerMaker; t++) {
        const series = make(1 + step, `s${m}#${t}`);
        r.total++;
        for (let end = STEP_AT + 1; end <= NIGHTS; end++) {
          const scan = scanConfirming([series], end, options);
          const hit = scan.findings.find((f) => f.kind !== 'watch' && f.direction === 'regression' && Math.abs(Number(f.firstBad.sha.slice(1)) - STEP_AT) <= 1);
          if (hit) {
            r.ever++;
            r.delays.push(end - STEP_AT);
            if (end - STEP_AT <= WITHIN) r.within++;
            break;
          }
        }
        for (let end = STEP_AT + 1; end <= STEP_AT + WITHIN; end++) {
          if (plainAlarm(series, end) === 'regression') {
            r.plainWithin++;
            break;
          }
        }
      }
    });
    row.found[String(step)] = r;
  }
  return row;
}

interface BisectRow {
  correct: number;
  sessions: number;
  trials: number;
  plainCorrect: number;
  plainSessions: number;
  maxSessions: number;
}

/** bisectRows bisects 64 merges with the culprit uniform and a 2 SD step, `trials` times per source. */
function bisectRows(sources: ReadonlyArray<{ source: SessionSource; values: readonly number[]; plain: Draw; sd: number }>, trials: number, rng: Rng): BisectRow {
  const row: BisectRow = { correct: 0, sessions: 0, trials: 0, plainCorrect: 0, plainSessions: 0, maxSessions: 0 };
  for (const s of sources) {
    const factor = Math.exp(2 * s.sd);
    for (let t = 0; t < trials; t++) {
      const culprit = Math.floor(rng() * CANDIDATES);
      const factorAt = (i: number) => (i >= culprit ? factor : 1);
      const ours = simulateBisect({ values: s.values, factorAt, rng, source: s.source, expected: [`m${String(culprit).padStart(2, '0')}`] });
      const plain = simulatePlain(s.values, factorAt, rng, culprit, s.plain);
      row.trials++;
      row.sessions += ours.sessions;
      row.maxSessions = Math.max(row.maxSessions, ours.sessions);
      if (ours.correct) row.correct++;
      row.plainSessions += plain.sessions;
      if (plain.correct) row.plainCorrect++;
    }
  }
  return row;
}

/** capturedSource: each session is one captured night of a benchmark, its arms dealt to the session's arms at random. */
function capturedSource(nights: readonly CapturedNight[], rng: Rng): SessionSource {
  return (factors, n) => {
    const night = nights[Math.floor(rng() * nights.length)];
    const arms = [night.prev, night.tonight, night.again];
    for (let i = arms.length - 1; i > 0; i--) {
      const j = Math.floor(rng() * (i + 1));
      [arms[i], arms[j]] = [arms[j], arms[i]];
    }
    return factors.map((f, i) => arms[i].slice(0, n).map((v) => v * f));
  };
}

const per1000 = (x: number, n: number) => ((1000 * x) / n).toFixed(2);
const pct = (x: number, n: number) => `${((100 * x) / n).toFixed(1)}%`;

/** Column is one column of the table: what was measured under one kind of noise. */
interface Column {
  name: string;
  scan: ScanRow;
  bisect: BisectRow;
}

function table(columns: readonly Column[]): string[] {
  const head = `| | ${columns.map((c) => c.name).join(' | ')} |`;
  const lines = [head, `| --- |${columns.map(() => ' --- |').join('')}`];
  const row = (label: string, cell: (c: Column) => string) => lines.push(`| ${label} | ${columns.map(cell).join(' | ')} |`);
  row('nightly A/A false findings per 1,000 series-nights: benchbot', (c) => per1000(c.scan.falseFindings, c.scan.seriesNights));
  row('  plain: fixed 5% on the last night', (c) => per1000(c.scan.plainFalse, c.scan.seriesNights));
  row('  cost: extra A/B sessions of the whole suite per night (confirmations, A/A suite)', (c) => (c.scan.cost.suiteSessions / Math.max(1, c.scan.cost.nights)).toFixed(2));
  for (const step of STEPS) {
    row(`+${step * 100}% step found within ${WITHIN} nights: benchbot`, (c) => `${c.scan.found[String(step)].within}/${c.scan.found[String(step)].total} (${pct(c.scan.found[String(step)].within, c.scan.found[String(step)].total)})`);
    row(`  found by night ${NIGHTS} (mean delay)`, (c) => {
      const f = c.scan.found[String(step)];
      return `${f.ever} (${f.delays.length ? (f.delays.reduce((a, b) => a + b, 0) / f.delays.length).toFixed(1) : '–'})`;
    });
    row(`  plain: fixed 5% on the last night, within ${WITHIN} nights`, (c) => `${c.scan.found[String(step)].plainWithin}`);
  }
  row(`bisect right at 2 SD (${CANDIDATES} merges): benchbot`, (c) => pct(c.bisect.correct, c.bisect.trials));
  row('  sessions used (mean / max)', (c) => `${(c.bisect.sessions / c.bisect.trials).toFixed(2)} / ${c.bisect.maxSessions}`);
  row('  plain: single-sample `git bisect run`', (c) => pct(c.bisect.plainCorrect, c.bisect.trials));
  row('  plain sessions', (c) => (c.bisect.plainSessions / c.bisect.trials).toFixed(2));
  row('series-nights scanned (A/A) / bisects', (c) => `${c.scan.seriesNights} / ${c.bisect.trials}`);
  return lines;
}

/** why measures, per noise source, what limits detection: night-to-night SD of medians and the A/B's standard error, in %. */
function whyRows(pools: readonly Pool[], captured: ReadonlyArray<{ metric: string; capture: Captured }>, rng: Rng): string[] {
  const lines = ['| noise | within-session SD | between-session SD | night-to-night SD of log medians | A/B SE (10 v 10, interleaved) | +5% in SEs of the A/B | +10% |', '| --- | --- | --- | --- | --- | --- | --- |'];
  const sd = (x: number[]) => {
    const m = x.reduce((a, b) => a + b, 0) / x.length;
    return Math.sqrt(x.reduce((a, b) => a + (b - m) ** 2, 0) / (x.length - 1));
  };
  // Per source: the SD of nightly log medians and of the A/B's log median difference (its standard error).
  // Variance components of log values with the session as the group (one-way random effects): what a night shares.
  const measure = (sessions: number[][][]) => {
    const vc = varianceComponents(sessions.map((x) => x[1].map(Math.log)));
    return {
      within: Math.sqrt(vc?.within ?? NaN),
      between: Math.sqrt(vc?.between ?? NaN),
      night: sd(sessions.map((x) => Math.log(median(x[1])))),
      ab: sd(sessions.map((x) => Math.log(median(x[1])) - Math.log(median(x[0])))),
    };
  };
  const add = (name: string, m: ReturnType<typeof measure>) => {
    const p = (x: number) => `${(100 * x).toFixed(1)}%`;
    lines.push(`| ${name} | ${p(m.within)} | ${p(m.between)} | ${p(m.night)} | ${p(m.ab)} | ${(Math.log(1.05) / m.ab).toFixed(2)} | ${(Math.log(1.1) / m.ab).toFixed(2)} |`);
  };
  for (const draw of ['iid', 'block'] as const) {
    for (const p of pools) add(`corpus ${draw}: ${p.name}`, measure(Array.from({ length: 60 }, () => drawInterleaved(p.values, [1, 1], 10, rng, draw))));
  }
  for (const c of captured) {
    for (const [name, nights] of c.capture.benchmarks) {
      if (name === c.capture.stepped) continue;
      add(`captured ${c.metric}: ${name}`, measure(nights.map((n) => [n.prev, n.tonight])));
    }
  }
  return lines;
}

/**
 * capturedFamilies runs the scan's family choice (timeFamilies) on the
 * captured histories with both times, as the nightly scan reads them.
 */
function capturedFamilies(captures: ReadonlyArray<{ metric: string; capture: Captured }>) {
  const series: Series[] = captures.flatMap(({ metric, capture }) => [...capture.benchmarks].map(([name, nights]) => ({
    benchmark: name, metric, unit: 'ns', better: 'lower' as const, machineKey: 'fp', branch: 'main',
    nights: nights.map((c, i) => ({ sha: `n${i}`, time: new Date(Date.UTC(2026, 0, 1 + i, 3)).toISOString(), values: c.tonight })),
  })));
  return timeFamilies(series);
}

/**
 * designRows: block draws under the designs compared (before: fixed 10 v 10
 * sessions and history-led candidates only), each on fresh histories.
 */
function designRows(pools: readonly Pool[], seed: number): string[] {
  const designs: Array<{ name: string; rounds: Rounds; options: ScanOptions }> = [
    { name: 'first: 10 v 10 sessions, history-led candidates', rounds: 'fixed', options: { abAlpha: null, minRuns: 10, maxRuns: 10 } },
    { name: 'sessions stopped as a PR run stops (futility too), history-led and ab-alert on a decided A/B (0.05)', rounds: 'alone', options: { abAlpha: 0.05 } },
    { name: 'sessions run to a decision or the budget (no futility stops), ab-alert at 0.05', rounds: 'nightly', options: { abAlpha: 0.05 } },
    { name: 'the same, ab-alert on a lean beyond the threshold at 0.5 (default)', rounds: 'nightly', options: {} },
    { name: 'the default with up to 6 sessions of a pair (maxConfirmSessions 6, not the default)', rounds: 'nightly', options: { maxConfirmSessions: 6 } },
  ];
  const lines = ['| design (corpus, block draws) | A/A false per 1,000 series-nights | +5% within 3 nights | +10% within 3 nights | +10% mean delay | extra whole-suite sessions per night |', '| --- | --- | --- | --- | --- | --- |'];
  for (const d of designs) {
    const rng = seeded(seed);
    const row = scanRows(pools.map((p) => poolMaker(p, rng, 'block', d.rounds)), Math.ceil(100 / pools.length), STEP_HISTORIES / pools.length, d.options, [0.05, 0.1]);
    const ten = row.found['0.1'];
    lines.push(`| ${d.name} | ${per1000(row.falseFindings, row.seriesNights)} | ${row.found['0.05'].within}/${row.found['0.05'].total} | ${ten.within}/${ten.total} | ${ten.delays.length ? (ten.delays.reduce((a, b) => a + b, 0) / ten.delays.length).toFixed(1) : '–'} | ${(row.cost.suiteSessions / Math.max(1, row.cost.nights)).toFixed(2)} |`);
  }
  return lines;
}

/** benchNightly runs everything and returns the markdown lines. */
export function benchNightly(seed = 20261123, aaHistories = 100): string[] {
  const rng = seeded(seed);
  const pools = loadCorpus();
  const captures = (['cpu_time', 'real_time'] as const).map((metric) => ({ metric, capture: loadCapture(metric) }));
  const captured = captures[0].capture;
  const aaPools = Math.ceil(aaHistories / pools.length);
  const columns: Column[] = [];
  for (const draw of ['iid', 'block'] as const) {
    const makers = pools.map((p) => poolMaker(p, rng, draw));
    columns.push({
      name: `corpus, ${draw === 'iid' ? 'independent' : 'block'} draws`,
      scan: scanRows(makers, aaPools, STEP_HISTORIES / pools.length),
      bisect: bisectRows(pools.map((p) => ({ source: (f, n) => drawInterleaved(p.values, f, n, rng, draw), values: p.values, plain: draw, sd: logSd(p.values) })), 10, rng),
    });
  }
  const aaBenchmarks = [...captured.benchmarks].filter(([name]) => name !== captured.stepped);
  const perMaker = Math.ceil(STEP_HISTORIES / aaBenchmarks.length);
  // What the scan does with Google Benchmark's two times: one family, the quieter one scanned (scan/time-families.ts).
  const families = capturedFamilies(captures);
  const chosen = new Set(families.map((f) => f.primary));
  for (const { metric, capture } of captures) {
    const benchmarks = [...capture.benchmarks].filter(([name]) => name !== capture.stepped);
    const makers = benchmarks.map(([name, nights]) => capturedMaker(name, nights, rng));
    const picked = families.filter((f) => f.primary === metric).length;
    columns.push({
      name: chosen.size === 1 && chosen.has(metric)
        ? `captured: real_time + cpu_time, one family (the scan picks ${metric} on ${picked}/${families.length})`
        : `captured: ${metric} alone (as a harness without ${metric === 'real_time' ? 'cpu_time' : 'real_time'} has it)`,
      scan: scanRows(makers, Math.ceil(aaHistories / makers.length), perMaker),
      bisect: bisectRows(benchmarks.map(([, nights]) => {
        const all = nights.flatMap((n) => [...n.prev, ...n.tonight, ...n.again]);
        return { source: capturedSource(nights, rng), values: all, plain: 'block' as Draw, sd: logSd(all) };
      }), Math.ceil(100 / benchmarks.length), rng),
    });
  }
  // 40 histories per step: the makers round up; report per 40 by scaling the captured column's totals honestly.
  const lines = ['## Nightly scan and bisect under night-to-night noise', ''];
  lines.push(`Corpus: ${pools.length} pools of fixtures/noise/, A/A ${aaPools} histories per pool scanned nightly from night ${FIRST_SCAN} to ${NIGHTS} as one suite; steps ${STEP_HISTORIES / pools.length} histories per pool (${STEP_HISTORIES}); bisect 10 per pool at 2 SD (SD of the pool's log values). Captured: ${captured.captured}, ${captured.machine}, ${aaBenchmarks.length} benchmarks x ${aaBenchmarks[0]?.[1].length ?? 0} nights (the stepped one, ${captured.stepped}, is reported below); ${perMaker} rotated histories per benchmark and step (${perMaker * aaBenchmarks.length}), bisect sessions drawn from the captured nights at 2 SD of each benchmark's log values.`, '');
  lines.push(...table(columns), '');
  lines.push(`Targets (block draws and captured histories): <= 1 false finding per 1,000 series-nights; +10% found in >= 36/40 (90%) within ${WITHIN} nights; +5% in >= 30/40 (75%); bisect >= 95% right at 2 SD with <= ${(1.5 * Math.log2(CANDIDATES)).toFixed(1)} sessions (1.5 x log2 ${CANDIDATES}).`, '');
  lines.push('### What each change bought (block draws, same seed per design)', '', ...designRows(pools, seed + 1), '');
  lines.push(`The scan's time family on the captured histories: ${families.map((f) => `${f.benchmark} ${f.primary} (per-round noise real_time ${((f.noise.real_time ?? NaN) * 100).toFixed(1)}%, cpu_time ${((f.noise.cpu_time ?? NaN) * 100).toFixed(1)}%)`).join('; ')}.`, '');
  lines.push('### What limits detection (measured)', '', ...whyRows(pools, captures, rng), '');
  lines.push("A step is in one interleaved A/B only: the step night's (last good beside first bad); every later night's A/B compares two bad commits. The nightly runs that A/B to a decision or the budget (no futility stops, 10..40 rounds per side), and the scan judges it over every round. A night whose A/B leans beyond the threshold (look-adjusted p <= 0.5) is an ab-alert: the action measures up to two more sessions of the pair right away, and only those confirm it (by the PR rule, after Benjamini-Hochberg across the suite). A change the history finds (p <= 0.01 against the night-to-night SD) is confirmed by the A/B around it. What is missed is on the noisiest pools (the SE column): one 40 v 40 session there is about one SE of a +5% step.", '');
  for (const c of captures) lines.push(...realStep(c.capture, c.metric));
  return lines;
}

/** realStep scans the stepped benchmark's capture in order: demo-head's real regression from the step night. */
function realStep(captured: Captured, metric: string): string[] {
  const nights = captured.benchmarks.get(captured.stepped);
  if (!nights) return [];
  const sha = (i: number) => `n${String(i).padStart(3, '0')}`;
  const series: Series = {
    key: captured.stepped, benchmark: captured.stepped, metric: 'time', unit: 'ns', better: 'lower', machineKey: 'fp', branch: 'main',
    nights: nights.map((c, i) => ({ sha: sha(i), time: new Date(Date.UTC(2026, 0, 1 + i, 3)).toISOString(), values: c.tonight, ...(i > 0 ? { ab: { baseSha: sha(i - 1), base: c.prev } } : {}) })),
  };
  const lines = [`### The real step in the capture (${metric})`, ''];
  let found = false;
  const falses = new Set<string>();
  for (let end = FIRST_SCAN; end <= nights.length; end++) {
    const scan = scanHistory([{ ...series, nights: series.nights.slice(0, end) }]);
    for (const f of scan.findings.filter((x) => x.kind !== 'watch')) {
      const at = Number(f.firstBad.sha.slice(1));
      if (!found && f.direction === 'regression' && Math.abs(at - captured.step) <= 1) {
        found = true;
        lines.push(`${captured.stepped} (demo-head, merge #14, from night ${captured.step}): found after ${end - captured.step} night(s), ${f.kind}, first bad ${f.firstBad.sha}, ratio ${f.ratio.toFixed(3)}${f.confirmation ? ` (interleaved A/B ${f.confirmation.baseSha} vs ${f.confirmation.headSha}: ${f.confirmation.ratio.toFixed(3)}, p ${f.confirmation.p.toPrecision(2)})` : ''}; history ratio ${f.history?.ratio.toFixed(3) ?? '–'}.`);
      } else if (Math.abs(at - captured.step) > 1) falses.add(`${f.firstBad.sha}`);
    }
  }
  if (!found) lines.push(`${captured.stepped}: the real step from night ${captured.step} was not found by night ${nights.length}.`);
  lines.push(`Other findings on it: ${falses.size === 0 ? 'none' : [...falses].join(', ')}.`, '');
  return lines;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const started = process.hrtime.bigint();
  // --seed N and --aa N (A/A histories per column, 100 by default): more series-nights for the false rate.
  const flag = (name: string, fallback: number) => {
    const i = process.argv.indexOf(name);
    return i > 0 ? Number(process.argv[i + 1]) : fallback;
  };
  const lines = benchNightly(flag('--seed', 20261123), flag('--aa', 100));
  const text = `${lines.join('\n')}\n\n(${(Number(process.hrtime.bigint() - started) / 1e9).toFixed(1)} s)\n`;
  console.log(text);
  if (process.argv.includes('--save')) {
    const dir = fileURLToPath(new URL('./results/', import.meta.url));
    mkdirSync(dir, { recursive: true });
    const seed = flag('--seed', 20261123);
    const aa = flag('--aa', 100);
    writeFileSync(`${dir}nightly${seed === 20261123 && aa === 100 ? '' : `-seed${seed}-aa${aa}`}.md`, text);
  }
}
