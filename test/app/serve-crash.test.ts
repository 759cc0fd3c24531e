// kill -9 of a replica in a burst of /bench (issue 24, item 5 and its
// target): two replicas of `benchbot serve` on one store, 40 maintainers'
// /bench on 40 pull requests arriving over 2 s at both; one replica is
// killed at a random moment of the burst (fleet-races.ts's crash; `npm run
// bench:app-races` sweeps the moment). Whatever the killed replica had
// taken, every command must be dispatched exactly once and reported (its
// run's completion becomes the check run and the report comment) within
// 2 minutes of the crash. A delivery the kill left unanswered is redelivered
// (same id) to the survivor, as GitHub's redelivery would; one answered 2xx
// is GitHub's no more, so the app must finish it alone.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { seededRandom } from '../support/random.ts';
import { crash } from './fleet-races.ts';
import { startFleet, type Fleet } from './serve-fleet.ts';

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
  const [victim, survivor] = fleet.replicas;
  const killAtMs = Math.round(100 + seededRandom(seed)() * (BURST_MS - 100));
  t.diagnostic(`${fleet.store}; killing replica ${victim.pid} ${killAtMs} ms into the burst of ${COMMANDS} /bench (BENCHBOT_CRASH_SEED=${seed})`);
  const r = await crash(fleet, { victim, survivor, prs: PRS, burstMs: BURST_MS, killAtMs, deadlineMs: DEADLINE_MS });
  t.diagnostic(`the victim answered ${r.answeredByVictim} of ${r.sentToVictim}; ${r.redelivered} redelivered to the survivor; at the kill ${r.dispatchesAtKill} dispatched, ${r.leasedAtKill} jobs leased`);
  t.diagnostic(r.reportedAfterS === null ? 'not every command reported' : `every command reported ${r.reportedAfterS.toFixed(1)} s after the crash`);
  assert.deepEqual(r.wrong.slice(0, 8), [], `${r.wrong.length} commands not dispatched exactly once and reported within ${DEADLINE_MS / 1000} s of the crash; the first 8 are shown`);
  assert.ok(r.reportedAfterS !== null);
  assert.equal(r.invalid, 0, 'every request valid against GitHub\'s OpenAPI description');
});
