import { test } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { createExecutor } from '../../src/runner/executor.ts';
import { measureRound } from '../../src/runner/measure-round.ts';
import { loadFixture } from '../support/fixtures.ts';

// README: `--counters` adds perf counters "where the machine has them". A
// machine without them (a VM, a container, no perf installed) measures the
// times and says why there are no counters; it used to refuse the run.

const work = mkdtempSync(join(tmpdir(), 'benchbot-counters-'));
const bench = 'echo "parse: 100 us"';

/** binDir makes a PATH of the few tools a round needs, optionally with a perf that prints `csv`. */
function binDir(name: string, csv?: string): string {
  const dir = join(work, name);
  mkdirSync(dir);
  for (const tool of ['sh', 'cat', 'echo']) {
    const found = spawnSync('sh', ['-c', `command -v ${tool}`], { encoding: 'utf8' }).stdout.trim();
    if (found.startsWith('/')) symlinkSync(found, join(dir, tool));
  }
  if (csv !== undefined) {
    writeFileSync(join(dir, 'perf.csv'), csv);
    // perf stat -x, -e EVENTS -o FILE -- CMD...: writes what a VM's perf wrote, then runs the command.
    writeFileSync(join(dir, 'perf'), `#!/bin/sh\nwhile [ "$1" != "--" ]; do if [ "$1" = "-o" ]; then out="$2"; fi; shift; done; shift\ncat "${join(dir, 'perf.csv')}" > "$out"\nexec "$@"\n`);
    chmodSync(join(dir, 'perf'), 0o755);
  }
  return dir;
}

test('--counters where perf cannot read the counters (captured on a VM): the round is measured, with a warning', async () => {
  const path = binDir('vm', loadFixture('perf/not-supported.csv').text);
  const outcome = await measureRound({ bench, format: 'plain', roundTimeoutMs: 10_000, counters: true, env: { PATH: path } }, createExecutor({ kind: 'local' }), work, work, 'round 1');
  assert.ok(!('failure' in outcome), JSON.stringify(outcome));
  assert.deepEqual(outcome.measurements.map((m) => `${m.benchmark} ${m.metric}`), ['parse time']);
  assert.equal(outcome.warnings.length, 1);
  assert.match(outcome.warnings[0].message, /^--counters: perf stat cannot read instructions, cycles, branch-misses, cache-misses on this machine .*measured without counters/);
});

test('--counters without perf installed: the round is measured, with a warning that says what to install', async () => {
  const path = binDir('no-perf');
  const outcome = await measureRound({ bench, format: 'plain', roundTimeoutMs: 10_000, counters: true, env: { PATH: path } }, createExecutor({ kind: 'local' }), work, work, 'round 1');
  assert.ok(!('failure' in outcome), JSON.stringify(outcome));
  assert.deepEqual(outcome.measurements.map((m) => m.metric), ['time']);
  assert.match(outcome.warnings[0]?.message ?? '', /perf is not installed .*linux-perf.*measured without counters/);
});

test('--counters where perf reads them: the counters join the round', async () => {
  const path = binDir('metal', loadFixture('perf/counters-handwritten.csv').text);
  const outcome = await measureRound({ bench, format: 'plain', roundTimeoutMs: 10_000, counters: true, env: { PATH: path } }, createExecutor({ kind: 'local' }), work, work, 'round 1');
  assert.ok(!('failure' in outcome), JSON.stringify(outcome));
  assert.deepEqual(outcome.measurements.map((m) => m.metric), ['time', 'instructions', 'cycles', 'branch-misses', 'cache-misses']);
  assert.deepEqual(outcome.warnings, []);
});
