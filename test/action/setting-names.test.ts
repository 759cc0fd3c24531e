import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { ACTION_INPUT_NAMES, actionSetting, cliSetting } from '../../src/jobs/setting-names.ts';
import { runStep } from './run-step.ts';

test('ACTION_INPUT_NAMES is the list of action.yml inputs', () => {
  const action = parse(readFileSync(new URL('../../action.yml', import.meta.url), 'utf8')) as { inputs: Record<string, unknown> };
  assert.deepEqual([...ACTION_INPUT_NAMES].sort(), Object.keys(action.inputs).sort());
});

test('a setting is named as the CLI flag, the action input, or as fixed where the action has no input', () => {
  assert.equal(cliSetting('round-timeout'), '--round-timeout');
  assert.equal(actionSetting('max-load'), 'max-load');
  assert.equal(actionSetting('repo'), 'working-directory');
  assert.equal(actionSetting('threshold-for'), 'thresholds');
  assert.match(actionSetting('round-timeout'), /^round-timeout \(fixed by the action, not an input/);
});

test('through the action, a runner error names the input to change, not the CLI flag', async () => {
  const work = mkdtempSync(join(tmpdir(), 'benchbot-not-a-repo-'));
  const run = await runStep({ bench: 'true', base: 'HEAD~1', head: 'HEAD', 'working-directory': work }, { HOME: work, RUNNER_TEMP: work });
  assert.equal(run.code, 2);
  const error = run.lines.find((l) => l.startsWith('::error')) ?? '';
  assert.match(error, /working-directory .*not a git repository/);
  assert.doesNotMatch(error, /--repo/);
});
