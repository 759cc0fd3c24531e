// A /bench comment the app posts says where the regressions live: the
// artifact's callgrind files (profiles.json, profiles/N.{base,head}.callgrind)
// are read from the zip and diffed again, only for what the app's own
// recomputation finds regressed, with the SHAs the app dispatched.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { runRecomputeTask } from '../../src/app/bench-recompute.ts';
import { samplesJson } from '../../src/jobs/results-artifact.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import { lognormalSamples } from '../support/samples.ts';
import { makeZip } from './app-harness.ts';

const FIXTURES = fileURLToPath(new URL('../../fixtures/callgrind/', import.meta.url));
const m = (benchmark: string, values: number[]): Measurement => ({ benchmark, metric: 'real_time', unit: 'ns', better: 'lower', values });
const side = (factor: number, seed: number) => samplesJson({ measurements: [m('BM_Mix', lognormalSamples(15, 100 * factor, 0.01, seed)), m('BM_Same', lognormalSamples(15, 50, 0.01, seed + 1))], warnings: [], hints: {} });
const meta = { requestedBy: 'octocat', commentUrl: 'https://github.com/o/r/pull/1#issuecomment-1', base: 'a'.repeat(40), head: 'b'.repeat(40), runUrl: 'https://github.com/o/r/actions/runs/5' };

function recompute(files: Record<string, string>) {
  const reply = runRecomputeTask({ zip: makeZip({ 'base.json': side(1, 1), 'head.json': side(1.1, 3), ...files }), args: {}, meta, maxSeries: 1000 });
  assert.ok(reply.ok, JSON.stringify(reply));
  return (reply as { result: { body: string } }).result.body;
}

test('the /bench comment folds the profile of each benchmark the app finds regressed', () => {
  const profiles = {
    'profiles.json': JSON.stringify([{ benchmark: 'BM_Mix', base_iterations: 20, head_iterations: 30 }, { benchmark: 'BM_Same', base_iterations: 20, head_iterations: 30 }]),
    'profiles/0.base.callgrind': readFileSync(`${FIXTURES}base.out`, 'utf8'),
    'profiles/0.head.callgrind': readFileSync(`${FIXTURES}head.out`, 'utf8'),
    'profiles/1.base.callgrind': readFileSync(`${FIXTURES}base.out`, 'utf8'),
    'profiles/1.head.callgrind': readFileSync(`${FIXTURES}head.out`, 'utf8'),
  };
  const body = recompute(profiles);
  assert.match(body, /<details><summary>Where <code>BM_Mix<\/code> changed: \+777 instructions per iteration \(\+7\.58%\), 98\.8% of it in <code>mix_bits\(unsigned long\)<\/code><\/summary>/);
  assert.match(body, /base aaaaaaaaaaaa 10,253 per iteration/, 'the dispatched SHAs');
  // BM_Same is unchanged in the app's recomputation: its profile is not shown, whatever the artifact holds.
  assert.doesNotMatch(body, /Where <code>BM_Same/);
});

test('without profiles the comment is as before, and a broken profile is a note', () => {
  assert.doesNotMatch(recompute({}), /<summary>Where/);
  const body = recompute({ 'profiles.json': JSON.stringify([{ benchmark: 'BM_Mix', base_iterations: 20, head_iterations: 30 }]), 'profiles/0.base.callgrind': 'not a profile' });
  assert.match(body, /<sub>the profile of BM_Mix cannot be read: profiles\/0\.base\.callgrind:1: /);
});
