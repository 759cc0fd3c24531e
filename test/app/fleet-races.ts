// The duplicate races and the crash of issue 24, run against a Fleet
// (serve-fleet.ts: `benchbot serve` replicas as processes on one store, the
// GitHub stand-in in a process of its own) and judged by what lands at the
// stand-in. serve-races.test.ts and serve-crash.test.ts run a few trials of
// each as tests; bench/app-races.ts runs hundreds and sweeps the moment of
// the crash. Nothing here asserts: a trial returns what went wrong, counted
// by kind, for the caller to assert on or print.
import { REPLY_MARKER } from '../../src/app/handler-deps.ts';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { regressionMarker } from '../../src/report/regression-issue.ts';
import type { ServeProcess } from '../support/serve-process.ts';
import type { Effects } from '../support/stand-in-process.ts';
import type { Delivery, DeliveryResult } from '../support/webhook-traffic.ts';
import { BENCH_WORKFLOW, scanJson } from './app-harness.ts';
import { BISECT_WORKFLOW, headOf, type Fleet } from './serve-fleet.ts';

/** RACES names the races of issue 24 ("Effects are not exactly once"), as the bench prints them. */
export const RACES = {
  bisect: 'a bisect completion delivered twice under different ids: one regression issue',
  bench: 'two /bench on one pull request at once: one check run, completed, one report comment',
  reply: 'two refusals or help replies at once: one reply comment',
} as const;
export type RaceName = keyof typeof RACES;

/** RaceOptions say how to run one race. */
export interface RaceOptions {
  trials: number;
  /** batch is how many trials run at once. */
  batch: number;
  /** prs are the race's own pull requests (seeded in the fleet), one a trial; the bisect race uses their numbers as run ids and series names only. */
  prs: number[];
  /** to are the two replicas the two deliveries of a trial go to: two processes, or one process twice. */
  to: [ServeProcess, ServeProcess];
  /** waitMs bounds the wait for a batch's effects; what has not landed by then counts as missing. */
  waitMs: number;
  progress(message: string): void;
}

/** RaceResult is how a race went: the trials that went wrong (described), and the duplicate and missing effects by kind. */
export interface RaceResult {
  race: RaceName;
  trials: number;
  wrong: string[];
  duplicates: Record<string, number>;
  missing: Record<string, number>;
  /** invalid counts requests the stand-in found invalid against GitHub's OpenAPI description (over the fleet's life so far). */
  invalid: number;
  seconds: number;
}

const accepted = (r: DeliveryResult) => r.status >= 200 && r.status < 300;
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * until polls the stand-in's effects (without comment bodies: the lists
 * grow with the trials) until `done` holds or `ms` pass, and says which.
 */
async function until(fleet: Fleet, done: (e: Effects) => boolean, ms: number): Promise<{ e: Effects; done: boolean }> {
  const end = Date.now() + ms;
  for (;;) {
    const e = await fleet.stand.effects();
    if (done(e)) return { e, done: true };
    if (Date.now() > end) return { e, done: false };
    await pause(250);
  }
}

/** settle waits until the stand-in has seen no write for `quietMs` (at most a minute), then returns the effects with bodies. */
async function settle(fleet: Fleet, quietMs = 1500): Promise<Effects> {
  const end = Date.now() + 60_000;
  while (Date.now() < end && Date.now() - (await fleet.stand.effects()).lastWriteAt <= quietMs) await pause(200);
  return fleet.stand.effects({ bodies: true });
}

/** runRace runs `race` options.trials times, options.batch at once, and counts what went wrong. */
export async function runRace(fleet: Fleet, race: RaceName, options: RaceOptions): Promise<RaceResult> {
  const started = performance.now();
  const result: RaceResult = { race, trials: options.trials, wrong: [], duplicates: {}, missing: {}, invalid: 0, seconds: 0 };
  const count = (into: Record<string, number>, kind: string, n: number) => {
    into[kind] = (into[kind] ?? 0) + Math.max(0, n);
  };
  const trial = TRIALS[race];
  for (let first = 0; first < options.trials; first += options.batch) {
    const batch = options.prs.slice(first, Math.min(options.trials, first + options.batch));
    const problems = await trial(fleet, batch, options, (kind, n) => count(result.duplicates, kind, n), (kind, n) => count(result.missing, kind, n));
    result.wrong.push(...problems);
    options.progress(`${race}: ${first + batch.length} trials in ${((performance.now() - started) / 1000).toFixed(1)} s, ${result.wrong.length} wrong`);
  }
  result.invalid = (await fleet.stand.effects()).invalidCount;
  result.seconds = (performance.now() - started) / 1000;
  return result;
}

type Tally = (kind: string, n: number) => void;
type Trial = (fleet: Fleet, prs: number[], options: RaceOptions, duplicate: Tally, missing: Tally) => Promise<string[]>;

const TRIALS: Record<RaceName, Trial> = {
  // A nightly confirms a regression, the app dispatches its bisection, and
  // the bisection's completion arrives twice under different ids (the run
  // and its re-run attempt), one to each replica at once.
  async bisect(fleet, prs, { to: [a, b], waitMs }, duplicate, missing) {
    const finding = JSON.parse(scanJson()).findings[0];
    const seriesOf = (pr: number) => `${finding.series} race ${pr}`;
    const markerOf = (pr: number) => regressionMarker(seriesOf(pr), `${finding.last_good.sha}..${finding.first_bad.sha}`);
    const bisectsOf = (e: Effects, pr: number) => e.dispatches.filter((d) => d.workflowId === BISECT_WORKFLOW && d.inputs.series === seriesOf(pr));
    const problems: string[] = [];
    for (const pr of prs) {
      const r = await fleet.send(await fleet.nightly(80_000_000 + pr, seriesOf(pr)), pr % 2 === 0 ? a : b);
      if (!accepted(r)) problems.push(`#${pr}: the nightly was answered ${r.status} ${r.error ?? ''}`);
    }
    const dispatched = await until(fleet, (e) => prs.every((pr) => bisectsOf(e, pr).length > 0), waitMs);
    await Promise.all(prs.map(async (pr) => {
      const run = bisectsOf(dispatched.e, pr)[0];
      if (run === undefined) return;
      const [first, again] = [await fleet.completeBisect(run.runId), await fleet.completeBisect(run.runId, 2)];
      const [x, y] = await Promise.all([fleet.send(first, a), fleet.send(again, b)]);
      if (!accepted(x) || !accepted(y)) problems.push(`#${pr}: the completions were answered ${x.status} and ${y.status}`);
    }));
    await until(fleet, (e) => prs.every((pr) => bisectsOf(e, pr).length === 0 || e.issues.some((issue) => issue.marker === markerOf(pr))), waitMs);
    const e = await settle(fleet);
    for (const pr of prs) {
      const issues = e.issues.filter((issue) => issue.marker === markerOf(pr)).length;
      const bisects = bisectsOf(e, pr).length;
      duplicate('regression issues', issues - 1);
      duplicate('bisect dispatches', bisects - 1);
      missing('regression issues', 1 - issues);
      missing('bisect dispatches', 1 - bisects);
      if (issues !== 1 || bisects !== 1) problems.push(`#${pr}: ${issues} issues, ${bisects} bisect dispatches`);
    }
    return problems;
  },

  // Two maintainers' /bench on one pull request, one to each replica at
  // once; both are dispatched (the later replaces the earlier) and both
  // runs complete with their artifacts, each completion to a replica.
  async bench(fleet, prs, { to: [a, b], waitMs }, duplicate, missing) {
    const problems: string[] = [];
    await Promise.all(prs.map(async (pr) => {
      const [first, second] = [await fleet.command(pr, 'maintainer', '/bench'), await fleet.command(pr, 'admin', '/bench')];
      const [x, y] = await Promise.all([fleet.send(first, a), fleet.send(second, b)]);
      if (!accepted(x) || !accepted(y)) problems.push(`#${pr}: the commands were answered ${x.status} and ${y.status}`);
    }));
    const dispatchesOf = (e: Effects, pr: number) => e.dispatches.filter((d) => d.workflowId === BENCH_WORKFLOW && d.inputs['pr-number'] === String(pr));
    const completed = new Set<number>();
    const completions: Promise<unknown>[] = [];
    const complete = (e: Effects) => {
      for (const d of e.dispatches) {
        if (d.workflowId !== BENCH_WORKFLOW || completed.has(d.runId) || !prs.includes(Number(d.inputs['pr-number']))) continue;
        completed.add(d.runId);
        completions.push(fleet.completeBench(d.runId).then((c) => fleet.send(c, d.runId % 2 === 0 ? a : b)));
      }
    };
    await until(fleet, (e) => prs.every((pr) => dispatchesOf(e, pr).length >= 2), waitMs);
    const reported = (e: Effects, pr: number) => e.checkRuns.some((c) => c.headSha === headOf(pr) && c.status === 'completed' && c.conclusion !== 'cancelled')
      && e.comments.some((c) => c.pr === pr && c.marker === REPORT_MARKER);
    await until(fleet, (e) => {
      complete(e);
      return prs.every((pr) => reported(e, pr));
    }, waitMs);
    await Promise.all(completions);
    const e = await settle(fleet);
    for (const pr of prs) {
      const dispatches = dispatchesOf(e, pr).length;
      const checks = e.checkRuns.filter((c) => c.headSha === headOf(pr));
      const open = checks.filter((c) => c.status !== 'completed').length;
      const reports = e.comments.filter((c) => c.pr === pr && c.marker === REPORT_MARKER);
      const real = reports.filter((c) => c.body.includes('BM_Parse/64')).length;
      duplicate('workflow dispatches', dispatches - 2);
      duplicate('check runs', checks.length - 1);
      duplicate('check runs left in progress', open);
      duplicate('report comments', reports.length - 1);
      missing('workflow dispatches', 2 - dispatches);
      missing('check runs completed', checks.some((c) => c.status === 'completed' && c.conclusion !== 'cancelled') ? 0 : 1);
      missing('report comments', real === 0 ? 1 : 0);
      const ok = dispatches === 2 && checks.length === 1 && open === 0 && checks[0].conclusion !== 'cancelled' && reports.length === 1 && real === 1;
      if (!ok) problems.push(`#${pr}: ${dispatches} dispatches, check runs [${checks.map((c) => `${c.status}/${c.conclusion}`).join(', ')}], ${reports.length} report comments (${real} with the report)`);
    }
    return problems;
  },

  // Two people without write access say /bench (a refusal each) or /bench
  // help, one to each replica at once: one reply answers both.
  async reply(fleet, prs, { to: [a, b], waitMs }, duplicate, missing) {
    const problems: string[] = [];
    const kindOf = (pr: number) => (pr % 4 < 2 ? 'refusals' : 'help');
    await Promise.all(prs.map(async (pr) => {
      const body = kindOf(pr) === 'refusals' ? '/bench' : '/bench help';
      const [first, second] = [await fleet.command(pr, 'reader', body), await fleet.command(pr, 'triager', body)];
      const [x, y] = await Promise.all([fleet.send(first, a), fleet.send(second, b)]);
      if (!accepted(x) || !accepted(y)) problems.push(`#${pr}: the commands were answered ${x.status} and ${y.status}`);
    }));
    await until(fleet, (e) => prs.every((pr) => e.comments.some((c) => c.pr === pr && c.marker === REPLY_MARKER)), waitMs);
    const e = await settle(fleet);
    for (const pr of prs) {
      const replies = e.comments.filter((c) => c.pr === pr && c.marker === REPLY_MARKER).length;
      duplicate(`reply comments (${kindOf(pr)})`, replies - 1);
      missing(`reply comments (${kindOf(pr)})`, 1 - replies);
      if (replies !== 1) problems.push(`#${pr}: ${replies} reply comments (${kindOf(pr)})`);
    }
    return problems;
  },
};

/** CrashOptions say how to run one crash: a burst of /bench, one per pull request, at two replicas, and when to kill -9 the victim. */
export interface CrashOptions {
  victim: ServeProcess;
  survivor: ServeProcess;
  prs: number[];
  burstMs: number;
  /** killAtMs is when, from the first delivery of the burst, the victim is killed (0: with the first delivery in flight). */
  killAtMs?: number;
  /** afterDispatches, when set, kills the victim instead of at killAtMs as soon as the stand-in has seen this many of the burst's workflows dispatched (polled every 10 ms): in the middle of the dispatches. */
  afterDispatches?: number;
  /** deadlineMs bounds the wait, from the crash, for every command's report. */
  deadlineMs: number;
}

/** CrashResult is how a crash went, as the stand-in and the burst's answers saw it. */
export interface CrashResult {
  /** killAtMs is when, from the first delivery of the burst, the victim was killed. */
  killAtMs: number;
  /** sentToVictim counts the deliveries sent to the victim before it died, answeredByVictim those it answered 2xx. */
  sentToVictim: number;
  answeredByVictim: number;
  /** redelivered counts the deliveries not answered 2xx (the kill cut them), sent again to the survivor under their id. */
  redelivered: number;
  /** dispatchesAtKill is how many workflows the stand-in had seen dispatched just after the kill, leasedAtKill how many jobs were leased then (both replicas'; null if /healthz did not answer). */
  dispatchesAtKill: number;
  leasedAtKill: number | null;
  /** reportedAfterS is the time from the crash until every command was reported, null if not within deadlineMs. */
  reportedAfterS: number | null;
  /** dispatchedTwice, notDispatched and notReported count pull requests; wrong describes the first few. */
  dispatchedTwice: number;
  notDispatched: number;
  notReported: number;
  wrong: string[];
  invalid: number;
}

/**
 * crash sends a burst of maintainers' /bench, one per pull request, spread
 * over burstMs and alternating between the victim and the survivor until
 * the victim is killed (kill -9) at killAtMs, then all to the survivor.
 * What the kill left unanswered is redelivered under its id to the
 * survivor, as GitHub's redelivery would; what was answered 2xx is GitHub's
 * no more, so the app must finish it alone. Every dispatched run completes
 * with its artifact (sent to the survivor), and each command must end
 * dispatched exactly once with its check run completed and one report.
 */
export async function crash(fleet: Fleet, options: CrashOptions): Promise<CrashResult> {
  const { victim, survivor, prs } = options;
  const deliveries: Delivery[] = [];
  for (const pr of prs) deliveries.push(await fleet.command(pr, 'maintainer', '/bench'));
  const before = (await fleet.stand.effects()).dispatches.length;
  const ours = (e: Effects) => e.dispatches.filter((d) => d.workflowId === BENCH_WORKFLOW && prs.includes(Number(d.inputs['pr-number'])));

  const answers: Promise<{ d: Delivery; r: DeliveryResult; toVictim: boolean }>[] = [];
  const started = performance.now();
  let crashedAt = 0;
  let atKill: Promise<[number, number | null]> | undefined;
  let killedAtMs = 0;
  const killing = new Promise<void>((resolve) => {
    const kill = () => {
      crashedAt = Date.now();
      killedAtMs = performance.now() - started;
      void victim.kill('SIGKILL').then(() => {
        // What the victim left behind, as the stand-in and the store saw it the moment it was gone.
        atKill = Promise.all([
          fleet.stand.effects().then((e) => e.dispatches.length - before),
          fetch(`${survivor.url}/healthz`).then(async (res) => ((await res.json()) as { queue?: { leased?: number } }).queue?.leased ?? null).catch(() => null),
        ]);
        resolve();
      });
    };
    if (options.afterDispatches === undefined) setTimeout(kill, options.killAtMs ?? 0);
    else {
      void (async () => {
        while ((await fleet.stand.runsSince(before)).length < options.afterDispatches!) await pause(10);
        kill();
      })();
    }
  });
  for (const [i, d] of deliveries.entries()) {
    const wait = started + (i * options.burstMs) / prs.length - performance.now();
    if (wait > 0) await pause(wait);
    const toVictim = crashedAt === 0 && i % 2 === 0;
    answers.push(fleet.send(d, toVictim ? victim : survivor).then((r) => ({ d, r, toVictim })));
  }
  await killing;
  const answered = await Promise.all(answers);
  const failed = answered.filter((a) => !accepted(a.r));
  const refused: string[] = [];
  for (const a of failed) {
    const again = await fleet.send(a.d, survivor);
    if (!accepted(again)) refused.push(`the redelivery of ${a.d.id} was answered ${again.status} ${again.error ?? ''}`);
  }
  const [dispatchesAtKill, leasedAtKill] = await atKill!;

  const completed = new Set<number>();
  const completions: Promise<unknown>[] = [];
  const reported = (e: Effects, pr: number) => {
    const checks = e.checkRuns.filter((c) => c.headSha === headOf(pr));
    return checks.length === 1 && checks[0].status === 'completed' && checks[0].conclusion !== 'cancelled' && e.comments.filter((c) => c.pr === pr && c.marker === REPORT_MARKER).length === 1;
  };
  const all = await until(fleet, (e) => {
    for (const d of ours(e)) {
      if (completed.has(d.runId)) continue;
      completed.add(d.runId);
      completions.push(fleet.completeBench(d.runId).then((c) => fleet.send(c, survivor)));
    }
    return prs.every((pr) => reported(e, pr));
  }, crashedAt + options.deadlineMs - Date.now());
  const reportedAfterS = all.done ? (Date.now() - crashedAt) / 1000 : null;
  await Promise.all(completions);

  // Nothing more comes: a second look after a pause finds every command dispatched exactly once.
  const e = await settle(fleet, 3000);
  const dispatchesOf = (pr: number) => ours(e).filter((d) => d.inputs['pr-number'] === String(pr)).length;
  const notReported = prs.filter((pr) => !reported(e, pr) || !e.comments.some((c) => c.pr === pr && c.marker === REPORT_MARKER && c.body.includes('BM_Parse/64')));
  const wrong = [...refused, ...prs.filter((pr) => dispatchesOf(pr) !== 1 || notReported.includes(pr)).map((pr) => {
    const checks = e.checkRuns.filter((c) => c.headSha === headOf(pr)).map((c) => `${c.status}/${c.conclusion}`);
    return `#${pr}: ${dispatchesOf(pr)} dispatches, check runs [${checks.join(', ')}], ${e.comments.filter((c) => c.pr === pr && c.marker === REPORT_MARKER).length} report comments`;
  })];
  return {
    killAtMs: Math.round(killedAtMs),
    sentToVictim: answered.filter((a) => a.toVictim).length,
    answeredByVictim: answered.filter((a) => a.toVictim && accepted(a.r)).length,
    redelivered: failed.length,
    dispatchesAtKill,
    leasedAtKill,
    reportedAfterS,
    dispatchedTwice: prs.filter((pr) => dispatchesOf(pr) > 1).length,
    notDispatched: prs.filter((pr) => dispatchesOf(pr) === 0).length,
    notReported: notReported.length,
    wrong,
    invalid: e.invalidCount,
  };
}
