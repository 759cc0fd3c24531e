// The duplicate races of issue 24 from outside: two replicas of `benchbot
// serve` (processes, on one store), the GitHub stand-in in a process of its
// own answering with jitter, and the same effect asked of both replicas at
// once, TRIALS times each, BATCH trials at a time. Where effect-races.ts
// checks the handlers in one process over 300 trials, this checks the
// deployment: the CLI's configuration, the store shared across processes,
// and the whole loop (a bisection dispatched by a nightly, a /bench run
// completed with its real artifact) before counting at the stand-in.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { REPLY_MARKER } from '../../src/app/handler-deps.ts';
import { REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { regressionMarker } from '../../src/report/regression-issue.ts';
import type { Effects } from '../support/stand-in-process.ts';
import type { DeliveryResult } from '../support/webhook-traffic.ts';
import { BENCH_WORKFLOW, scanJson } from './app-harness.ts';
import { BISECT_WORKFLOW, headOf, startFleet, type Fleet } from './serve-fleet.ts';

const TRIALS = 30;
const BATCH = 10;
const JITTER_MS = 15;
/** WAIT_MS bounds the wait for a batch's effects. */
const WAIT_MS = 30_000;
const PRS = Array.from({ length: 2 * TRIALS }, (_, i) => 5001 + i);

let fleet: Fleet;
before(async () => {
  fleet = await startFleet({ replicas: 2, pulls: PRS });
  await fleet.stand.setJitter(JITTER_MS);
});
after(() => fleet?.close());

const accepted = (r: DeliveryResult) => assert.ok(r.status >= 200 && r.status < 300, `answered ${r.status} ${r.error ?? ''}`);

/** batches runs `trial` over TRIALS trial numbers, BATCH at once, and reports progress. */
async function batches(t: { diagnostic(message: string): void }, trial: (trials: number[]) => Promise<string[]>): Promise<void> {
  const started = performance.now();
  const wrong: string[] = [];
  for (let first = 0; first < TRIALS; first += BATCH) {
    wrong.push(...(await trial(Array.from({ length: Math.min(BATCH, TRIALS - first) }, (_, k) => first + k))));
    t.diagnostic(`${first + BATCH} trials in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  }
  t.diagnostic(`${fleet.store}: ${TRIALS} trials, ${wrong.length} wrong`);
  assert.deepEqual(wrong.slice(0, 5), [], `${wrong.length} of ${TRIALS} trials went wrong; the first 5 are shown`);
}

test(`a bisect completion delivered twice under different ids, to two replicas at once, files one regression issue (${TRIALS} trials)`, async (t) => {
  const finding = JSON.parse(scanJson()).findings[0];
  const seriesOf = (i: number) => `${finding.series} race ${i}`;
  const markerOf = (i: number) => regressionMarker(seriesOf(i), `${finding.last_good.sha}..${finding.first_bad.sha}`);
  const [a, b] = fleet.replicas;
  await batches(t, async (trials) => {
    // Each trial's nightly confirms its own regression; the app dispatches its bisection.
    for (const i of trials) accepted(await fleet.send(await fleet.nightly(80_000_000 + i, seriesOf(i)), i % 2 === 0 ? a : b));
    const dispatched = await fleet.waitFor((e) => trials.every((i) => e.dispatches.some((d) => d.workflowId === BISECT_WORKFLOW && d.inputs.series === seriesOf(i))), WAIT_MS, () => 'bisect dispatches missing');
    await Promise.all(trials.map(async (i) => {
      const run = dispatched.dispatches.find((d) => d.workflowId === BISECT_WORKFLOW && d.inputs.series === seriesOf(i))!;
      // The run's completion, and its re-run attempt, delivered at once to the two replicas.
      const [x, y] = await Promise.all([fleet.send(fleet.completeBisect(run.runId), a), fleet.send(fleet.completeBisect(run.runId, 2), b)]);
      accepted(x);
      accepted(y);
    }));
    await fleet.waitFor((e) => trials.every((i) => e.issues.some((issue) => issue.marker === markerOf(i))), WAIT_MS, () => 'regression issues missing');
    const e = await fleet.settle();
    return trials.flatMap((i) => {
      const issues = e.issues.filter((issue) => issue.marker === markerOf(i)).length;
      const bisects = e.dispatches.filter((d) => d.workflowId === BISECT_WORKFLOW && d.inputs.series === seriesOf(i)).length;
      return issues === 1 && bisects === 1 ? [] : [`trial ${i}: ${issues} issues, ${bisects} bisect dispatches`];
    });
  });
});

test(`two /bench on one pull request at once, on two replicas: one check run, completed with the report, and one report comment (${TRIALS} trials)`, async (t) => {
  const [a, b] = fleet.replicas;
  const completed = new Set<number>();
  const complete = (e: Effects) => {
    for (const d of e.dispatches) {
      if (d.workflowId !== BENCH_WORKFLOW || completed.has(d.runId)) continue;
      completed.add(d.runId);
      void fleet.completeBench(d.runId).then((c) => fleet.send(c, d.runId % 2 === 0 ? a : b));
    }
  };
  await batches(t, async (trials) => {
    const prOf = (i: number) => PRS[i];
    await Promise.all(trials.map(async (i) => {
      const [first, second] = [await fleet.command(prOf(i), 'maintainer', '/bench'), await fleet.command(prOf(i), 'admin', '/bench')];
      const [x, y] = await Promise.all([fleet.send(first, a), fleet.send(second, b)]);
      accepted(x);
      accepted(y);
    }));
    const dispatchesOf = (e: Effects, i: number) => e.dispatches.filter((d) => d.workflowId === BENCH_WORKFLOW && d.inputs['pr-number'] === String(prOf(i))).length;
    await fleet.waitFor((e) => trials.every((i) => dispatchesOf(e, i) === 2), WAIT_MS, (e) => `dispatches: ${trials.map((i) => dispatchesOf(e, i)).join(' ')}`);
    // Both runs complete with their artifacts; the later /bench's report wins.
    const reported = (e: Effects, i: number) => e.checkRuns.some((c) => c.headSha === headOf(prOf(i)) && c.status === 'completed' && c.conclusion !== 'cancelled')
      && e.comments.some((c) => c.pr === prOf(i) && c.marker === REPORT_MARKER && c.body.includes('BM_Parse/64'));
    await fleet.waitFor((e) => {
      complete(e);
      return trials.every((i) => reported(e, i));
    }, WAIT_MS, () => 'reports missing');
    const e = await fleet.settle();
    return trials.flatMap((i) => {
      const checks = e.checkRuns.filter((c) => c.headSha === headOf(prOf(i)));
      const reports = e.comments.filter((c) => c.pr === prOf(i) && c.marker === REPORT_MARKER).length;
      const ok = checks.length === 1 && checks[0].status === 'completed' && checks[0].conclusion !== 'cancelled' && reports === 1 && dispatchesOf(e, i) === 2;
      return ok ? [] : [`trial ${i}: ${dispatchesOf(e, i)} dispatches, check runs [${checks.map((c) => `${c.status}/${c.conclusion}`).join(', ')}], ${reports} report comments`];
    });
  });
});

test(`two refusals or two help requests at once on one pull request, on two replicas: one reply comment (${TRIALS} trials)`, async (t) => {
  const [a, b] = fleet.replicas;
  await batches(t, async (trials) => {
    const prOf = (i: number) => PRS[TRIALS + i];
    await Promise.all(trials.map(async (i) => {
      const body = i % 4 < 2 ? '/bench' : '/bench help';
      const [first, second] = [await fleet.command(prOf(i), 'reader', body), await fleet.command(prOf(i), 'triager', body)];
      const [x, y] = await Promise.all([fleet.send(first, a), fleet.send(second, b)]);
      accepted(x);
      accepted(y);
    }));
    await fleet.waitFor((e) => trials.every((i) => e.comments.some((c) => c.pr === prOf(i) && c.marker === REPLY_MARKER)), WAIT_MS, () => 'replies missing');
    const e = await fleet.settle();
    return trials.flatMap((i) => {
      const replies = e.comments.filter((c) => c.pr === prOf(i) && c.marker === REPLY_MARKER).length;
      return replies === 1 ? [] : [`trial ${i}: ${replies} reply comments (${i % 4 < 2 ? 'refusals' : 'help'})`];
    });
  });
});
