import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ActionInputError, inputEnvName, readActionInputs } from '../../src/action/action-inputs.ts';
import { DEFAULT_WORK_THRESHOLD, defaultWorkThreshold } from '../../src/compare/compare-runs.ts';
import { mergedReportContext, mergeShards } from '../../src/jobs/merge-shards.ts';
import { samplesJson } from '../../src/jobs/results-artifact.ts';
import { renderReport } from '../../src/report/report-renderers.ts';
import { actionSetting } from '../../src/jobs/setting-names.ts';

// The action's `work-threshold` input: read as every threshold is, given to
// the measuring run and to the report job, whose recomputed verdicts on the
// raw results (here the real callgrind counts of fixtures/work-metrics/,
// hash +1.00%, just under: 393,226 -> 397,156) follow it; left empty, they
// follow the harness the results name (1% for pytest-benchmark).

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function env(inputs: Record<string, string>): Record<string, string> {
  const result: Record<string, string> = { GITHUB_WORKSPACE: '/work/space', HOME: '/home/runner' };
  for (const [name, value] of Object.entries(inputs)) result[inputEnvName(name)] = value;
  return result;
}

test('work-threshold: empty is none (the harness\'s default applies where the results are judged), a percentage like every threshold, a bad one names the input', () => {
  assert.equal(readActionInputs(env({ bench: './bench' })).workThreshold, undefined);
  assert.equal(readActionInputs(env({ bench: './bench', 'work-threshold': '' })).workThreshold, undefined);
  assert.equal(readActionInputs(env({ bench: './bench', 'work-threshold': '1%' })).workThreshold, 0.01);
  for (const bad of ['0.5', '0%', 'x']) {
    assert.throws(() => readActionInputs(env({ bench: './bench', 'work-threshold': bad })), (e: Error) => e instanceof ActionInputError && e.message.startsWith('work-threshold: '));
  }
});

/** resultsOf writes the fixture's time and counts as a measuring job's results artifact (samplesJson), its samples naming `harness`. */
function resultsOf(t: { after: (f: () => void) => void }, harness?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-work-threshold-'));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  for (const side of ['base', 'head']) {
    const measurements = ['time', 'work'].flatMap((kind) => JSON.parse(readFileSync(join(ROOT, `fixtures/work-metrics/${kind}-${side}.json`), 'utf8')).benchmarks)
      .map((b: { benchmark: string; metric?: string; unit: string; values: number[] }) => ({ better: 'lower' as const, ...b, metric: b.metric ?? 'time' }));
    writeFileSync(join(dir, `${side}.json`), samplesJson({ measurements, warnings: [], hints: {}, ...(harness !== undefined ? { harness } : {}) }));
  }
  return dir;
}

test('the report job recomputes counted work at the work-threshold it is given', (t) => {
  const dir = resultsOf(t);
  const verdict = (workThreshold: number) => {
    const merged = mergeShards({ dir, trusted: {}, threshold: 0.02, workThreshold, alpha: 0.05, rules: [], minRuns: 5, maxRuns: 5, nameSetting: actionSetting });
    assert.equal(merged.report.workThreshold, workThreshold);
    return merged.report.comparisons.find((c) => c.benchmark === 'hash' && c.metric === 'instructions')?.verdict;
  };
  assert.equal(verdict(0.005), 'regressed');
  assert.equal(verdict(0.02), 'unchanged');
});

test('without work-threshold the report job judges counted work at the default of the harness: the format input, else the one the samples name', (t) => {
  const report = (dir: string, settings: { workThreshold?: number; format?: string } = {}) => {
    const merged = mergeShards({ dir, trusted: {}, threshold: 0.02, ...settings, alpha: 0.05, rules: [], minRuns: 5, maxRuns: 5, nameSetting: actionSetting });
    // The report.json the report job publishes (and the app's /bench reads the threshold from).
    const json = JSON.parse(renderReport('json', merged.report, mergedReportContext(merged))) as { work_threshold?: number; comparisons: { benchmark: string; metric: string; verdict: string }[] };
    return [json.work_threshold, json.comparisons.find((c) => c.benchmark === 'hash' && c.metric === 'instructions')?.verdict];
  };
  const pytest = resultsOf(t, 'pytest-benchmark');
  assert.deepEqual(report(pytest), [defaultWorkThreshold('pytest-benchmark'), 'unchanged'], '+1.00% (just under) is within pytest-benchmark\'s 1%');
  assert.deepEqual(report(pytest, { workThreshold: 0.005 }), [0.005, 'regressed'], 'an explicit 0.5% wins');
  assert.deepEqual(report(resultsOf(t, 'google-benchmark')), [DEFAULT_WORK_THRESHOLD, 'regressed']);
  assert.deepEqual(report(resultsOf(t)), [DEFAULT_WORK_THRESHOLD, 'regressed'], 'samples that name no harness: 0.5%');
  // The format the workflow gives is the report job's own word; it wins over the name in the artifact.
  assert.deepEqual(report(pytest, { format: 'google-benchmark' }), [DEFAULT_WORK_THRESHOLD, 'regressed']);
  assert.deepEqual(report(resultsOf(t), { format: 'pytest-benchmark' }), [defaultWorkThreshold('pytest-benchmark'), 'unchanged']);
});
