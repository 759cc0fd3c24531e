// The duplicate races of issue 24 from outside: two replicas of `benchbot
// serve` (processes, on one store), the GitHub stand-in in a process of its
// own answering with jitter, and the same effect asked of both replicas at
// once, TRIALS times each, BATCH trials at a time (fleet-races.ts runs them;
// `npm run bench:app-races` runs 300 of each). Where effect-races.ts checks
// the handlers in one process over 300 trials, this checks the deployment:
// the CLI's configuration, the store shared across processes, and the whole
// loop (a bisection dispatched by a nightly, a /bench run completed with its
// real artifact) before counting at the stand-in.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { RACES, runRace, type RaceName } from './fleet-races.ts';
import { startFleet, type Fleet } from './serve-fleet.ts';

const TRIALS = 30;
const BATCH = 10;
const JITTER_MS = 15;
/** WAIT_MS bounds the wait for a batch's effects. */
const WAIT_MS = 30_000;
const RACE_NAMES = Object.keys(RACES) as RaceName[];
/** prsOf gives each race pull requests of its own. */
const prsOf = (race: RaceName) => Array.from({ length: TRIALS }, (_, i) => 5001 + RACE_NAMES.indexOf(race) * TRIALS + i);

let fleet: Fleet;
before(async () => {
  fleet = await startFleet({ replicas: 2, pulls: RACE_NAMES.flatMap(prsOf) });
  await fleet.stand.setJitter(JITTER_MS);
});
after(() => fleet?.close());

for (const race of RACE_NAMES) {
  test(`${RACES[race]}, asked of two replicas at once (${TRIALS} trials)`, async (t) => {
    const [a, b] = fleet.replicas;
    const r = await runRace(fleet, race, { trials: TRIALS, batch: BATCH, prs: prsOf(race), to: [a, b], waitMs: WAIT_MS, progress: (m) => t.diagnostic(m) });
    t.diagnostic(`${fleet.store}: ${TRIALS} trials, ${r.wrong.length} wrong in ${r.seconds.toFixed(1)} s`);
    assert.deepEqual(r.wrong.slice(0, 5), [], `${r.wrong.length} of ${TRIALS} trials went wrong (duplicates ${JSON.stringify(r.duplicates)}, missing ${JSON.stringify(r.missing)}); the first 5 are shown`);
    assert.equal(r.invalid, 0, 'every request valid against GitHub\'s OpenAPI description');
  });
}
