import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ActionInputError, inputEnvName, readActionInputs } from '../../src/action/action-inputs.ts';
import { mergeShards } from '../../src/jobs/merge-shards.ts';
import { actionSetting } from '../../src/jobs/setting-names.ts';

// The action's `work-threshold` input: read as every threshold is, given to
// the measuring run and to the report job, whose recomputed verdicts on the
// raw results (here the real callgrind counts of fixtures/work-metrics/,
// hash +1.00%) follow it.

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function env(inputs: Record<string, string>): Record<string, string> {
  const result: Record<string, string> = { GITHUB_WORKSPACE: '/work/space', HOME: '/home/runner' };
  for (const [name, value] of Object.entries(inputs)) result[inputEnvName(name)] = value;
  return result;
}

test('work-threshold: default 0.5%, a percentage like every threshold, a bad one names the input', () => {
  assert.equal(readActionInputs(env({ bench: './bench' })).workThreshold, 0.005);
  assert.equal(readActionInputs(env({ bench: './bench', 'work-threshold': '1%' })).workThreshold, 0.01);
  for (const bad of ['0.5', '0%', 'x']) {
    assert.throws(() => readActionInputs(env({ bench: './bench', 'work-threshold': bad })), (e: Error) => e instanceof ActionInputError && e.message.startsWith('work-threshold: '));
  }
});

test('the report job recomputes counted work at the work-threshold it is given', (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-work-threshold-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const side of ['base', 'head']) {
    const entries = ['time', 'work'].flatMap((kind) => JSON.parse(readFileSync(join(ROOT, `fixtures/work-metrics/${kind}-${side}.json`), 'utf8')).benchmarks);
    writeFileSync(join(dir, `${side}.json`), JSON.stringify({ $schema: 'benchbot-json/1', version: 1, benchmarks: entries }));
  }
  const verdict = (workThreshold: number) => {
    const merged = mergeShards({ dir, trusted: {}, threshold: 0.02, workThreshold, alpha: 0.05, rules: [], minRuns: 5, maxRuns: 5, nameSetting: actionSetting });
    assert.equal(merged.report.workThreshold, workThreshold);
    return merged.report.comparisons.find((c) => c.benchmark === 'hash' && c.metric === 'instructions')?.verdict;
  };
  assert.equal(verdict(0.005), 'regressed');
  assert.equal(verdict(0.02), 'unchanged');
});
