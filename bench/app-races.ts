// The duplicate races and the crash of issue 24, measured through the
// shipped binary (npm run bench:app-races): `benchbot serve` replicas as
// processes of their own on one store, the GitHub API stand-in in another
// process (it validates every request against GitHub's OpenAPI description
// and is where the effects are counted), driven from this process.
//
// Races (test/app/fleet-races.ts), each --trials times, --batch trials at
// once, the stand-in answering with a random 0..--jitter ms delay so the
// two handlers of a trial interleave in every order:
//   bisect  a bisect completion delivered twice under different ids (the
//           run and its re-run attempt), one to each replica: one issue;
//   bench   two maintainers' /bench on one pull request, one to each
//           replica, both runs completed with their artifacts: one check
//           run, completed, and one report comment;
//   reply   two refusals or two /bench help, one to each replica: one reply.
// Each shape (--shapes) is a fleet: `2xpostgres` is two replicas on one
// PostgreSQL database (the deployment for more than one replica), `1xsqlite`
// one replica on SQLite (the deployment for one: both deliveries of a trial
// go to that one process, as effect-races.ts does in-process).
//
// Crash sweep (--crashes K, on two replicas on PostgreSQL): K bursts of
// --commands maintainers' /bench over --burst-ms, each to both replicas
// until one is killed (kill -9) at a moment swept from the first delivery
// in flight (0 ms) to --tail-ms after the last was sent; the stand-in
// answers with 0..--crash-jitter ms, as GitHub's API takes tens to hundreds
// of milliseconds, so the victim's jobs are in flight across the burst.
// What the kill left unanswered is redelivered to the survivor under its
// id; every dispatched run completes. Each command must end dispatched
// exactly once with its check run completed and one report, within 2
// minutes of the crash. After each crash a new replica takes the dead one's
// place. --kill-after-dispatches adds kills at the moment the stand-in has
// seen the n-th of the burst's dispatches (in the middle of dispatching).
// The write pacing is off throughout (BENCHBOT_WRITE_INTERVAL_MS=0):
// it spaces writes a second apart per installation, which hides races and
// would make 300 trials take hours; what is measured is exactness.
//
//   node bench/app-races.ts [--trials 300] [--batch 20] [--races bisect,bench,reply]
//                           [--shapes 2xpostgres,1xsqlite] [--jitter 15]
//                           [--crashes 10] [--commands 40] [--burst-ms 2000] [--tail-ms 1500]
//                           [--crash-jitter 100] [--kill-after-dispatches 1,20,39] [--json FILE]
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { parseArgs } from 'node:util';
import { crash, RACES, runRace, type CrashResult, type RaceName, type RaceResult } from '../test/app/fleet-races.ts';
import { startFleet } from '../test/app/serve-fleet.ts';

/** TARGET_S is issue 24's bound on the time from a crash to the last report. */
const TARGET_S = 120;
/** WAIT_MS bounds the wait for a batch's effects; what is not there by then counts as missing. */
const WAIT_MS = 60_000;

const { values } = parseArgs({
  options: {
    trials: { type: 'string', default: '300' },
    batch: { type: 'string', default: '20' },
    races: { type: 'string', default: 'bisect,bench,reply' },
    shapes: { type: 'string', default: '2xpostgres,1xsqlite' },
    jitter: { type: 'string', default: '15' },
    crashes: { type: 'string', default: '10' },
    commands: { type: 'string', default: '40' },
    'burst-ms': { type: 'string', default: '2000' },
    'tail-ms': { type: 'string', default: '1500' },
    'crash-jitter': { type: 'string', default: '100' },
    'kill-after-dispatches': { type: 'string', default: '1,20,39' },
    json: { type: 'string' },
  },
});

const fail = (message: string): never => {
  process.stderr.write(`bench/app-races: ${message} (see the usage at the top of bench/app-races.ts)\n`);
  process.exit(2);
};
const count = (name: string, min: number) => {
  const n = Number(values[name as keyof typeof values]);
  return Number.isInteger(n) && n >= min ? n : fail(`--${name} must be a whole number >= ${min}`);
};
const trials = count('trials', 0);
const batch = count('batch', 1);
const jitter = count('jitter', 0);
const crashes = count('crashes', 0);
const commands = count('commands', 2);
const burstMs = count('burst-ms', 0);
const tailMs = count('tail-ms', 0);
const crashJitter = count('crash-jitter', 0);
const afterDispatches = (values['kill-after-dispatches'] ?? '').split(',').filter(Boolean).map((n) => (Number.isInteger(Number(n)) && Number(n) >= 1 && Number(n) <= commands ? Number(n) : fail(`--kill-after-dispatches: ${n} is not a count of dispatches from 1 to --commands`)));
const races = (values.races ?? '').split(',').filter(Boolean).map((r) => (r in RACES ? r as RaceName : fail(`--races: no race ${r}; there are ${Object.keys(RACES).join(', ')}`)));
const shapes = (values.shapes ?? '').split(',').filter(Boolean).map((s) => {
  const m = /^([12])x(postgres|sqlite)$/.exec(s);
  return m ? { replicas: Number(m[1]), store: m[2] as 'postgres' | 'sqlite' } : fail(`--shapes: ${s} is not 1xsqlite, 2xpostgres, ...`);
});

const load = () => Math.round(loadavg()[0] * 10) / 10;
const log = (line: string) => process.stdout.write(`${line}\n`);
const raceRows: (RaceResult & { shape: string; load: [number, number] })[] = [];
const crashRows: (CrashResult & { afterDispatches: number | null })[] = [];
let crashLoad: [number, number] = [0, 0];

if (trials > 0) {
  for (const shape of shapes) {
    const label = `${shape.replicas}x${shape.store}`;
    // Each race its own pull requests: one a trial.
    const prsOf = (race: RaceName) => Array.from({ length: trials }, (_, i) => 10_001 + races.indexOf(race) * trials + i);
    log(`bench/app-races: ${label}, ${trials} trials a race, ${batch} at once, stand-in jitter 0-${jitter} ms (load average ${load()})`);
    const fleet = await startFleet({ replicas: shape.replicas, store: shape.store, pulls: races.flatMap(prsOf) });
    try {
      await fleet.stand.setJitter(jitter);
      const [a, b = a] = fleet.replicas;
      for (const race of races) {
        const before = load();
        const r = await runRace(fleet, race, { trials, batch, prs: prsOf(race), to: [a, b], waitMs: WAIT_MS, progress: (m) => log(`  ${m}`) });
        raceRows.push({ ...r, shape: label, load: [before, load()] });
        log(raceLine(raceRows.at(-1)!));
        for (const w of r.wrong.slice(0, 5)) log(`    ${w}`);
      }
    } finally {
      await fleet.close();
    }
  }
}

if (crashes + afterDispatches.length > 0) {
  const prsOf = (k: number) => Array.from({ length: commands }, (_, i) => 50_001 + k * commands + i);
  const span = burstMs + tailMs;
  // The moments: spread from the first delivery in flight to --tail-ms after the last, then at the n-th dispatch seen.
  const moments: { killAtMs?: number; afterDispatches?: number }[] = [
    ...Array.from({ length: crashes }, (_, k) => ({ killAtMs: Math.round(crashes === 1 ? burstMs / 2 : (k * span) / (crashes - 1)) })),
    ...afterDispatches.map((n) => ({ afterDispatches: n })),
  ];
  const described = moments.map((m) => (m.afterDispatches === undefined ? `${m.killAtMs} ms` : `dispatch ${m.afterDispatches}`)).join(', ');
  log(`bench/app-races: crash sweep on 2xpostgres, ${moments.length} kills (at ${described}) in bursts of ${commands} /bench over ${burstMs} ms, stand-in jitter 0-${crashJitter} ms (load average ${load()})`);
  crashLoad = [load(), 0];
  const fleet = await startFleet({ replicas: 2, store: 'postgres', pulls: moments.flatMap((_, k) => prsOf(k)) });
  try {
    await fleet.stand.setJitter(crashJitter);
    let [victim, survivor] = fleet.replicas;
    for (const [k, moment] of moments.entries()) {
      const r = await crash(fleet, { victim, survivor, prs: prsOf(k), burstMs, ...moment, deadlineMs: 3 * TARGET_S * 1000 });
      crashRows.push({ ...r, afterDispatches: moment.afterDispatches ?? null });
      log(crashLine(crashRows.at(-1)!));
      for (const w of r.wrong.slice(0, 5)) log(`    ${w}`);
      // The next crash kills the survivor; a new replica takes the dead one's place.
      [victim, survivor] = [survivor, await fleet.startReplica()];
    }
  } finally {
    await fleet.close();
  }
  crashLoad[1] = load();
}

log('');
if (raceRows.length > 0) log(raceTable());
if (crashRows.length > 0) log(`\n${crashTable()}`);
if (values.json) writeFileSync(values.json, `${JSON.stringify({ races: raceRows, crashes: crashRows, crashLoad }, null, 2)}\n`);
const wrong = raceRows.some((r) => r.wrong.length > 0 || r.invalid > 0) || crashRows.some((r) => r.wrong.length > 0 || r.invalid > 0 || r.reportedAfterS === null || r.reportedAfterS > TARGET_S);
process.exitCode = wrong ? 1 : 0;

function kinds(o: Record<string, number>): string {
  return Object.entries(o).filter(([, n]) => n > 0).map(([k, n]) => `${k} ${n}`).join(', ') || '0';
}

function raceLine(r: (typeof raceRows)[number]): string {
  return `${r.shape} ${r.race}: ${r.trials} trials, ${r.wrong.length} wrong; duplicates: ${kinds(r.duplicates)}; missing: ${kinds(r.missing)}; ${r.seconds.toFixed(0)} s; invalid requests ${r.invalid}; load ${r.load[0]}-${r.load[1]}`;
}

function crashLine(r: (typeof crashRows)[number]): string {
  return `kill at ${r.killAtMs} ms${r.afterDispatches === null ? '' : ` (dispatch ${r.afterDispatches} seen)`}: victim answered ${r.answeredByVictim} of ${r.sentToVictim}, ${r.redelivered} redelivered; at the kill ${r.dispatchesAtKill} dispatched, ${r.leasedAtKill ?? '?'} leased; `
    + `${r.reportedAfterS === null ? 'NOT all reported' : `all reported ${r.reportedAfterS.toFixed(1)} s after the crash`}; dispatched twice ${r.dispatchedTwice}, never ${r.notDispatched}, not reported ${r.notReported}; load ${load()}`;
}

function raceTable(): string {
  const rows = raceRows.map((r) => `| ${r.shape} | ${r.race} | ${r.trials} | ${r.wrong.length} | ${kinds(r.duplicates)} | ${kinds(r.missing)} | ${r.seconds.toFixed(0)} | ${r.load[0]}-${r.load[1]} |`);
  return ['| shape | race | trials | wrong | duplicates | missing | s | load avg |', '| --- | --- | ---: | ---: | --- | --- | ---: | --- |', ...rows].join('\n');
}

function crashTable(): string {
  const rows = crashRows.map((r) => `| ${r.killAtMs}${r.afterDispatches === null ? '' : ` (dispatch ${r.afterDispatches})`} | ${r.answeredByVictim} / ${r.sentToVictim} | ${r.redelivered} | ${r.dispatchesAtKill} | ${r.leasedAtKill ?? '?'} | ${r.reportedAfterS === null ? 'not all' : r.reportedAfterS.toFixed(1)} | ${r.dispatchedTwice} | ${r.notDispatched} | ${r.notReported} |`);
  return [
    `Crash sweep, 2xpostgres, ${commands} /bench a burst (load average ${crashLoad[0]}-${crashLoad[1]}):`,
    '| kill at ms | victim answered / sent | redelivered | dispatched at the kill | jobs leased at the kill | all reported, s after the crash | dispatched twice | never dispatched | not reported |',
    '| ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows,
  ].join('\n');
}
