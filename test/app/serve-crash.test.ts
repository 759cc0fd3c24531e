// kill -9 of a replica in a burst of /bench (issue 24, item 5 and its
// target): two replicas of `benchbot serve` on one store, 40 maintainers'
// /bench on 40 pull requests arriving over 2 s at both; one replica is
// killed at a random moment of the burst. Whatever the killed replica had
// taken, every command must be dispatched exactly once and reported (its
// run's completion becomes the check run and the report comment) within
// 2 minutes of the crash. A delivery the kill left unanswered is redelivered
// (same id) to the survivor, as GitHub's redelivery would; one answered 2xx
// is GitHub's no more, so the app must finish it alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { seededRandom } from '../support/random.ts';
import type { Effects } from '../support/stand-in-process.ts';
import type { Delivery } from '../support/webhook-traffic.ts';
import { BENCH_WORKFLOW } from './app-harness.ts';
import { headOf, startFleet, type Fleet } from './serve-fleet.ts';

const COMMANDS = 40;
const BURST_MS = 2000;
/**
 * DEADLINE_MS is how long after the crash every command must be reported:
 * less than the target's 2 minutes, so that the test file (a PostgreSQL
 * server and two replicas to start on a busy machine) stays under 2 minutes
 * itself. A dead replica's jobs wait out their lease (30 s by default) first.
 */
const DEADLINE_MS = 75_000;
const PRS = Array.from({ length: COMMANDS }, (_, i) => 3001 + i);

let fleet: Fleet;
before(async () => {
  fleet = await startFleet({ replicas: 2, pulls: PRS });
});
after(() => fleet?.close());

test('kill -9 of a replica at a random moment in a burst of /bench: every command dispatched exactly once and reported within 2 minutes', async (t) => {
  // A new moment each run; BENCHBOT_CRASH_SEED repeats one.
  const seed = Number(process.env.BENCHBOT_CRASH_SEED ?? Date.now() % 100_000);
  const random = seededRandom(seed);
  const [victim, survivor] = fleet.replicas;
  const killAt = 100 + random() * (BURST_MS - 100);
  t.diagnostic(`${fleet.store}; killing replica ${victim.pid} ${Math.round(killAt)} ms into the burst of ${COMMANDS} /bench (BENCHBOT_CRASH_SEED=${seed})`);
  const deliveries: Delivery[] = [];
  for (const pr of PRS) deliveries.push(await fleet.command(pr, 'maintainer', '/bench'));

  const answers: Promise<{ d: Delivery; status: number }>[] = [];
  const started = performance.now();
  let crashedAt = 0;
  const killing = new Promise<void>((resolve) => setTimeout(() => {
    crashedAt = Date.now();
    void victim.kill('SIGKILL').then(resolve);
  }, killAt));
  for (const [i, d] of deliveries.entries()) {
    const wait = started + (i * BURST_MS) / COMMANDS - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const to = crashedAt === 0 && i % 2 === 0 ? victim : survivor;
    answers.push(fleet.send(d, to).then((r) => ({ d, status: r.status })));
  }
  await killing;
  const answered = await Promise.all(answers);
  // What GitHub saw fail is redelivered under the same id, to the replica still up.
  const failed = answered.filter((a) => a.status < 200 || a.status >= 300);
  t.diagnostic(`${answered.length - failed.length} answered 2xx, ${failed.length} failed (redelivered to the survivor)`);
  for (const a of failed) {
    const again = await fleet.send(a.d, survivor);
    assert.ok(again.status >= 200 && again.status < 300, `the redelivery of ${a.d.id} was answered ${again.status}`);
  }

  // Each dispatched run completes with its report artifact, once, as GitHub would send it.
  const completed = new Set<number>();
  const dispatchesOf = (e: Effects, pr: number) => e.dispatches.filter((d) => d.workflowId === BENCH_WORKFLOW && d.inputs['pr-number'] === String(pr));
  const reported = (e: Effects, pr: number) => {
    const checks = e.checkRuns.filter((c) => c.headSha === headOf(pr));
    const reports = e.comments.filter((c) => c.pr === pr && c.marker === REPORT_MARKER);
    return checks.length === 1 && checks[0].status === 'completed' && checks[0].conclusion !== 'cancelled' && reports.length === 1 && reports[0].body.includes('BM_Parse/64');
  };
  const account = (e: Effects) => PRS.map((pr) => ({ pr, dispatches: dispatchesOf(e, pr).length, checks: e.checkRuns.filter((c) => c.headSha === headOf(pr)).map((c) => `${c.status}/${c.conclusion}`), reports: e.comments.filter((c) => c.pr === pr && c.marker === REPORT_MARKER).length }))
    .filter((x) => x.dispatches !== 1 || !reported(e, x.pr))
    .slice(0, 8).map((x) => `#${x.pr}: ${x.dispatches} dispatches, check runs [${x.checks.join(', ')}], ${x.reports} report comments`).join('; ');
  const effects = await fleet.waitFor((e) => {
    for (const d of e.dispatches) {
      if (d.workflowId !== BENCH_WORKFLOW || completed.has(d.runId)) continue;
      completed.add(d.runId);
      void fleet.completeBench(d.runId).then((c) => fleet.send(c, survivor));
    }
    return PRS.every((pr) => reported(e, pr));
  }, crashedAt + DEADLINE_MS - Date.now(), (e) => `not every command reported: ${account(e)}`);
  t.diagnostic(`every command reported ${((Date.now() - crashedAt) / 1000).toFixed(1)} s after the crash`);

  // Nothing more comes: a second look after a pause finds every command dispatched exactly once.
  const settled = await fleet.settle(3000);
  const twice = PRS.filter((pr) => dispatchesOf(settled, pr).length !== 1);
  assert.deepEqual(twice.map((pr) => `#${pr}: ${dispatchesOf(settled, pr).length} dispatches`), [], 'every command dispatched exactly once');
  assert.equal(settled.invalidCount, 0, settled.invalid.join('\n'));
  assert.ok(effects.dispatches.length >= COMMANDS);
});
