import { test } from 'node:test';
import assert from 'node:assert/strict';
import { inputEnvName, readActionInputs } from '../../src/action/action-inputs.ts';
import { benchSettings, ReportShapeError } from '../../src/app/bench-report.ts';
import { parseReportSettings } from '../../src/jobs/report-settings.ts';
import { cliSetting } from '../../src/jobs/setting-names.ts';

function actionEnv(inputs: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = { GITHUB_WORKSPACE: '/work/space', HOME: '/home/runner' };
  for (const [name, value] of Object.entries(inputs)) env[inputEnvName(name)] = value;
  return env;
}

const pick = (s: { threshold: number; alpha: number; rules: unknown; minRuns: number; maxRuns: number; filter?: { pattern: string } }) =>
  ({ threshold: s.threshold, alpha: s.alpha, rules: s.rules, minRuns: s.minRuns, maxRuns: s.maxRuns, filter: s.filter?.pattern });

test('benchSettings: a /bench report is recomputed with the settings the report job parsed from the same inputs', () => {
  const args = { threshold: '5%', thresholds: 'BM_Net*=10%\nBM_Net/64=15%', runs: '20', filter: '^BM_Parse' };
  const app = benchSettings(args);
  const action = readActionInputs(actionEnv({ merge: '.', threshold: '5%', thresholds: args.thresholds, 'min-runs': '20', 'max-runs': '20', filter: '^BM_Parse' }));
  assert.deepEqual(pick(app), pick(action));
  assert.deepEqual(pick(app), { threshold: 0.05, alpha: 0.05, rules: [{ glob: 'BM_Net*', threshold: 0.1 }, { glob: 'BM_Net/64', threshold: 0.15 }], minRuns: 20, maxRuns: 20, filter: '^BM_Parse' });
  // Nothing given: the starter workflow's 2% and 10..40 rounds.
  assert.deepEqual(pick(benchSettings({})), { threshold: 0.02, alpha: 0.05, rules: [], minRuns: 10, maxRuns: 40, filter: undefined });
});

test('benchSettings: inputs that do not parse are a ReportShapeError naming the workflow input', () => {
  assert.throws(() => benchSettings({ thresholds: 'BM_Net*' }), (e: unknown) => e instanceof ReportShapeError && /do not parse: thresholds: "BM_Net\*" is not GLOB=PERCENT/.test(e.message));
  assert.throws(() => benchSettings({ runs: '1' }), (e: unknown) => e instanceof ReportShapeError && /min-runs: "1" is not a whole number of at least 2/.test(e.message));
});

test('parseReportSettings names a bad setting as the adapter spells it', () => {
  assert.throws(() => parseReportSettings({ 'threshold-for': 'x' }, cliSetting), /^SettingError: --threshold-for: "x" is not GLOB=PERCENT/);
  assert.throws(() => parseReportSettings({ 'min-runs': '20', 'max-runs': '10' }, cliSetting), /--max-runs: 10 is below --min-runs 20/);
  assert.throws(() => parseReportSettings({ alpha: '0.7' }, cliSetting), /--alpha: "0.7" is not a number between 0 and 0.5/);
});
