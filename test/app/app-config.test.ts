import { test } from 'node:test';
import assert from 'node:assert/strict';
import { defaultConfig, formatConfigProblems, parseAppConfig } from '../../src/app/app-config.ts';

test('no file or an empty file gives the defaults', () => {
  assert.deepEqual(parseAppConfig(null), { config: defaultConfig(), problems: [] });
  assert.deepEqual(parseAppConfig(''), { config: defaultConfig(), problems: [] });
  assert.deepEqual(parseAppConfig('# only a comment\n'), { config: defaultConfig(), problems: [] });
});

test('a complete file is read', () => {
  const { config, problems } = parseAppConfig([
    'bench:',
    '  workflow: bench.yml',
    '  allow: [octocat, Mona-Lisa]',
    '  runners: [bench, pixel-7]',
    '  max-runs: 60',
    '  fail-on: never',
    'thresholds:',
    "  '*': 2%",
    "  'BM_Network/*': 10",
    '  BM_Tiny: 0.5%',
    'issues:',
    '  labels: [performance, "needs triage"]',
    '  assignees: octocat',
    "  cc: '@hubot'",
    'nightly:',
    '  workflow: nightly.yaml',
    '  bisect-workflow: "1234"',
  ].join('\n'));
  assert.deepEqual(problems, []);
  assert.deepEqual(config.bench, { workflow: 'bench.yml', allow: ['octocat', 'Mona-Lisa'], runners: ['bench', 'pixel-7'], maxRuns: 60, failOn: 'never' });
  assert.deepEqual(config.thresholds, [{ glob: '*', threshold: 0.02 }, { glob: 'BM_Network/*', threshold: 0.1 }, { glob: 'BM_Tiny', threshold: 0.005 }]);
  assert.deepEqual(config.issues, { labels: ['performance', 'needs triage'], assignees: ['octocat'], cc: ['hubot'] });
  assert.deepEqual(config.nightly, { workflow: 'nightly.yaml', bisectWorkflow: '1234' });
});

test('each bad key is named with its problem and keeps its default; good keys still apply', () => {
  const { config, problems } = parseAppConfig([
    'bench:',
    '  allow: 5',
    '  runners: [bench, "bad label"]',
    '  max-runs: 1',
    '  fail-on: sometimes',
    '  workflow: ../../evil.sh',
    '  runers: [x]',
    'thresholds:',
    '  BM_A: lots',
    '  BM_C: 0.1',
    '  BM_B: 5%',
    'issues: [a]',
    'nightly:',
    '  workflow: nightly.yml',
    'extra: 1',
  ].join('\n'));
  const byKey = Object.fromEntries(problems.map((p) => [p.key, p.message]));
  assert.deepEqual(Object.keys(byKey).sort(), ['bench.allow', 'bench.fail-on', 'bench.max-runs', 'bench.runers', 'bench.runners', 'bench.workflow', 'extra', 'issues', 'thresholds.BM_A', 'thresholds.BM_C'].sort());
  assert.match(byKey['thresholds.BM_C'], /ambiguous: write 0\.1% or 10%/);
  assert.match(byKey['bench.allow'], /list of at most 100 GitHub logins/);
  assert.match(byKey['bench.runners'], /`"bad label"` is not one/);
  assert.match(byKey['bench.runers'], /did you mean `bench.runners`/);
  assert.match(byKey['bench.fail-on'], /`regression` or `never`/);
  assert.equal(config.bench.allow.length, 0);
  assert.equal(config.bench.workflow, defaultConfig().bench.workflow);
  assert.deepEqual(config.thresholds, [{ glob: 'BM_B', threshold: 0.05 }]);
  assert.equal(config.nightly.workflow, 'nightly.yml');
  assert.match(formatConfigProblems(problems), /`bench.allow`: must be/);
});

test('a file that is not YAML, not a mapping, or too big falls back to the defaults, with the line', () => {
  const yaml = parseAppConfig('bench:\n  allow: [a\n');
  assert.deepEqual(yaml.config, defaultConfig());
  assert.match(yaml.problems[0].message, /not valid YAML \(line \d+, column \d+: /);
  assert.match(parseAppConfig('bench: 1\nbench: 2\n').problems[0].message, /unique/);
  assert.match(parseAppConfig('- a\n- b\n').problems[0].message, /must be a mapping/);
  assert.match(parseAppConfig(`x: "${'a'.repeat(70_000)}"`).problems[0].message, /the limit is 65536/);
  // An alias bomb stays bounded.
  const bomb = ['a: &a ["x","x","x","x","x","x","x","x","x"]', ...Array.from({ length: 9 }, (_, i) => `${String.fromCharCode(98 + i)}: &${String.fromCharCode(98 + i)} [${Array(9).fill(`*${String.fromCharCode(97 + i)}`).join(',')}]`)].join('\n');
  const parsed = parseAppConfig(bomb);
  assert.deepEqual(parsed.config, defaultConfig());
  assert.ok(parsed.problems.length > 0);
});
