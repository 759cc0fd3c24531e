/**
 * The measuring step as the runner runs it: action.yml's step environment
 * (inputs substituted the way the runner does, with a token-shaped
 * `github-token` as a workflow that still passed one would give), the
 * step's bash, the action's node process, and a bench command that dumps
 * everything it can read: its own environment (printenv) and, walking up
 * the process tree, each ancestor's environment and command line from
 * /proc. No token and no BENCHBOT_INPUT_GITHUB_TOKEN may show up anywhere.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parse } from 'yaml';
import { makeFixtureRepo } from '../support/fixture-repo.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const FAKE_TOKEN = 'ghs_' + 'Fak3T0ken'.repeat(4);
const TOKEN_SHAPED = /\bgh[pousr]_[A-Za-z0-9]{20,}|github_pat_\w{20,}|Fak3T0ken/;

interface ActionStep {
  id?: string;
  name?: string;
  if?: string;
  run?: string;
  env?: Record<string, string>;
}

interface ActionFile {
  inputs: Record<string, { default?: string }>;
  runs: { steps: ActionStep[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as ActionFile;

/**
 * evaluate substitutes the expressions a step's env uses, as the runner
 * would: `inputs.NAME` (the value given, else the input's default),
 * `github.token`, and `a || b` between them. Anything else fails the test,
 * so that a new kind of expression is looked at, not passed over.
 */
function evaluate(value: string, inputs: Record<string, string>): string {
  return value.replace(/\$\{\{\s*(.*?)\s*\}\}/g, (_, expression: string) => {
    for (const operand of expression.split(/\s*\|\|\s*/)) {
      let result: string;
      const input = /^inputs\.([\w-]+)$/.exec(operand);
      if (input) result = inputs[input[1]] ?? evaluate(action.inputs[input[1]]?.default ?? '', inputs);
      else if (operand === 'github.token') result = FAKE_TOKEN;
      else throw new Error(`action.yml: this test does not know how the runner evaluates ${JSON.stringify(operand)}`);
      if (result !== '') return result;
    }
    return '';
  });
}

/** measuringSteps are the steps that run a program when `merge` is empty: no `if`, or one that requires `inputs.merge == ''`. */
function measuringSteps(): ActionStep[] {
  return action.runs.steps.filter((s) => /dist\/(action|benchbot)\.js/.test(s.run ?? '') && (s.if === undefined || s.if.replace(/\s+/g, ' ').startsWith("inputs.merge == ''")));
}

/** actionPath is a stand-in for $GITHUB_ACTION_PATH whose dist/action.js runs this checkout's source. */
function actionPath(): string {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-action-'));
  mkdirSync(join(dir, 'dist'));
  writeFileSync(join(dir, 'dist/action.js'), `import ${JSON.stringify(pathToFileURL(join(ROOT, 'src/action/main.ts')).href)};\n`);
  return dir;
}

// Appends, for the bench process and each ancestor up to the test, the environment and the command line.
const DUMP = [
  '{ echo "== self $$"; printenv;',
  'p=$PPID; while [ "$p" -gt 1 ] && [ "$p" != "$BENCHBOT_TEST_PID" ]; do',
  'echo "== ancestor $p"; tr "\\000" "\\n" < /proc/$p/environ; echo; echo "cmdline: $(tr "\\000" " " < /proc/$p/cmdline)";',
  'p=$(sed "s/.*) //" /proc/$p/stat | cut -d" " -f2); done; } >> "$BENCHBOT_TEST_DUMP" 2>&1',
].join(' ');

test('the measuring step holds no token: not in the bench command\'s environment, its parent\'s, or any ancestor\'s', { timeout: 120_000 }, () => {
  const steps = measuringSteps();
  for (const step of steps) assert.ok(!JSON.stringify(step.env ?? {}).match(/github-token|github\.token|secrets\./), `${step.name} takes no token`);
  const measure = steps.filter((s) => s.run?.includes('dist/action.js'));
  assert.equal(measure.length, 1, 'action.yml has one step that measures base against head');
  const repo = makeFixtureRepo({ headFactor: 1.001 });
  const work = mkdtempSync(join(tmpdir(), 'benchbot-token-'));
  const dump = join(work, 'dump.txt');
  const inputs = { bench: `${DUMP}; ./bench.sh`, build: './build.sh', format: 'plain', base: 'base', head: 'head', 'min-runs': '2', 'max-runs': '2', store: 'none', 'max-load': '1000', 'github-token': FAKE_TOKEN };
  const stepEnv = Object.fromEntries(Object.entries(measure[0].env ?? {}).map(([name, value]) => [name, evaluate(String(value), inputs)]));
  const env = {
    PATH: `${dirname(process.execPath)}${delimiter}${process.env.PATH ?? ''}`,
    HOME: work,
    GITHUB_WORKSPACE: repo.dir,
    GITHUB_ACTION_PATH: actionPath(),
    RUNNER_TEMP: work,
    GITHUB_OUTPUT: join(work, 'output'),
    BENCHBOT_LOCK: join(work, 'lock'),
    BENCHBOT_TEST_DUMP: dump,
    BENCHBOT_TEST_PID: String(process.pid),
    ...stepEnv,
  };
  // As the runner does for a `shell: bash` step: $GITHUB_OUTPUT made empty beforehand, the script in a file, run by bash (which so stays the node process's parent).
  writeFileSync(env.GITHUB_OUTPUT, '');
  const script = join(work, 'step.sh');
  writeFileSync(script, measure[0].run as string);
  const run = spawnSync('bash', ['--noprofile', '--norc', '-eo', 'pipefail', script], { env, encoding: 'utf8', timeout: 110_000 });
  assert.equal(run.status, 0, `the measuring step failed:\n${run.stdout}\n${run.stderr}`);
  assert.ok(existsSync(dump), 'the bench command ran and wrote its dump');
  const text = readFileSync(dump, 'utf8');
  // The walk really went up: the action's node process, then the step's bash.
  const has = (pattern: RegExp, what: string) => assert.ok(pattern.test(text), `${what}; see ${dump}`);
  has(/cmdline: \S*node\S* \S*dist\/action\.js/, 'the dump has the node process (the parent)');
  has(/cmdline: bash --noprofile --norc -eo pipefail \S*step\.sh/, 'the dump has the step\'s shell (the grandparent)');
  has(/BENCHBOT_INPUT_BENCH=/, 'the dump has the environments');
  assert.ok(!/BENCHBOT_INPUT_GITHUB_TOKEN/.test(text), `BENCHBOT_INPUT_GITHUB_TOKEN is readable by the bench command; see ${dump}`);
  assert.ok(!TOKEN_SHAPED.test(text), `a token is readable by the bench command: ${TOKEN_SHAPED.exec(text)?.[0]}; see ${dump}`);
  assert.ok(!text.includes(FAKE_TOKEN));
});

test('the action refuses to measure with a token in its environment, before it builds or runs anything', () => {
  const repo = makeFixtureRepo({ headFactor: 1.001 });
  const work = mkdtempSync(join(tmpdir(), 'benchbot-token-'));
  const marker = join(work, 'ran');
  for (const [name, value] of [['BENCHBOT_INPUT_GITHUB_TOKEN', FAKE_TOKEN], ['GITHUB_TOKEN', FAKE_TOKEN]]) {
    // As if an older action.yml, or the workflow's env:, still put a token there.
    const env = { PATH: process.env.PATH ?? '', HOME: work, GITHUB_WORKSPACE: repo.dir, RUNNER_TEMP: work, BENCHBOT_LOCK: join(work, 'lock'), BENCHBOT_INPUT_BENCH: `touch ${marker}; ./bench.sh`, BENCHBOT_INPUT_BUILD: `touch ${marker}`, BENCHBOT_INPUT_BASE: 'base', BENCHBOT_INPUT_HEAD: 'head', BENCHBOT_INPUT_STORE: 'none', [name]: value };
    const run = spawnSync(process.execPath, [join(ROOT, 'src/action/main.ts')], { env, encoding: 'utf8', timeout: 60_000 });
    assert.equal(run.status, 2, `${name}: ${run.stdout}${run.stderr}`);
    assert.match(run.stdout, new RegExp(`::error title=benchbot::${name === 'GITHUB_TOKEN' ? 'GITHUB_TOKEN is set in the measuring step' : 'github-token: the measuring step'}`));
    assert.ok(!run.stdout.includes(FAKE_TOKEN), 'the error does not print the token');
    assert.equal(existsSync(marker), false, `${name}: nothing was built or run`);
  }
});

test('action.yml stops a workflow that gives the measuring step a token, and hands the token only to the report step', () => {
  const refuse = action.runs.steps.find((s) => s.if?.replace(/\s+/g, ' ') === "inputs.merge == '' && inputs.github-token != ''");
  assert.ok(refuse?.run?.includes('exit 1'), 'a step fails when the measuring step is given github-token');
  assert.ok(!JSON.stringify(refuse?.env ?? {}).includes('github-token'), 'the refusing step itself does not take the token');
  const withToken = action.runs.steps.filter((s) => JSON.stringify(s.env ?? {}).match(/github-token|github\.token/));
  assert.ok(withToken.length > 0, 'the report step has the token');
  for (const step of withToken) assert.match(step.if ?? '', /^inputs\.merge != ''/, `only report steps (merge set) have the token in their environment: ${step.name}`);
});
