import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { readActionMetadata, renderReadme } from '../../scripts/action-docs.ts';
import { inputEnvName } from '../../src/action/action-inputs.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const ACTION = readFileSync(join(ROOT, 'action.yml'), 'utf8');
const metadata = readActionMetadata(ACTION);

test('the README shows the inputs, outputs and starter workflows as action.yml and workflows/ have them (npm run docs:action)', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.ok(renderReadme(ROOT) === readme, 'README.md is out of date with action.yml or workflows/: run `npm run docs:action`');
});

test('action.yml declares the inputs and outputs the issue asks for, each documented', () => {
  const inputs = metadata.inputs.map((f) => f.name);
  for (const name of ['bench', 'build', 'format', 'base', 'head', 'min-runs', 'max-runs', 'threshold', 'alpha', 'executor', 'store', 'counters', 'comment', 'fail-on', 'github-token']) {
    assert.ok(inputs.includes(name), `input ${name}`);
  }
  assert.deepEqual(metadata.outputs.map((f) => f.name).slice(0, 5), ['verdict', 'regressions', 'improvements', 'report-markdown', 'report-json']);
  for (const field of [...metadata.inputs, ...metadata.outputs]) assert.ok(field.description.length > 10, `${field.name} has a description`);
  assert.equal(metadata.inputs.find((f) => f.name === 'bench')?.required, true);
});

test('every input reaches the program through its own environment variable, and the program reads each', () => {
  const steps = (parse(ACTION) as { runs: { steps: { id?: string; env?: Record<string, string>; run?: string }[] } }).runs.steps;
  const envNames: [string, string][] = [];
  for (const step of steps.filter((s) => ['measure', 'report', 'bisect', 'bisect-report', 'dashboard'].includes(s.id ?? ''))) {
    for (const [name, value] of Object.entries(step.env ?? {})) {
      const input = /^\$\{\{ inputs\.([\w-]+)(?: \|\| github\.token)? \}\}$/.exec(String(value));
      if (input) envNames.push([name, input[1]]);
    }
  }
  assert.deepEqual([...new Set(envNames.map(([, input]) => input))].sort(), metadata.inputs.map((f) => f.name).sort());
  for (const [envName, input] of envNames) assert.equal(envName, inputEnvName(input));
  const source = readFileSync(join(ROOT, 'src/action/action-inputs.ts'), 'utf8');
  // mode: bisect runs the CLI from its own step: the inputs only it takes are read by that step's script.
  const bisectStep = steps.find((s) => s.id === 'bisect');
  const bisectOnly = new Set(Object.entries(bisectStep?.env ?? {}).map(([, v]) => /inputs\.([\w-]+)/.exec(String(v))?.[1]).filter((n) => n !== undefined && !source.includes(`'${n}'`)));
  assert.deepEqual([...bisectOnly].sort(), ['bad', 'benchmark', 'good', 'metric', 'series']);
  for (const name of bisectOnly) assert.ok(bisectStep?.run?.includes(`$${inputEnvName(name as string)}`), `the bisect step's script reads input ${name}`);
  // So does mode: dashboard.
  const dashboardStep = steps.find((s) => s.id === 'dashboard');
  const dashboardOnly = new Set(Object.entries(dashboardStep?.env ?? {}).map(([, v]) => /inputs\.([\w-]+)/.exec(String(v))?.[1]).filter((n) => n !== undefined && !source.includes(`'${n}'`)));
  assert.deepEqual([...dashboardOnly].sort(), ['max-items-in-chart']);
  for (const name of dashboardOnly) assert.ok(dashboardStep?.run?.includes(`$${inputEnvName(name as string)}`), `the dashboard step's script reads input ${name}`);
  for (const { name } of metadata.inputs) if (!bisectOnly.has(name) && !dashboardOnly.has(name)) assert.ok(source.includes(`'${name}'`), `src/action/action-inputs.ts reads input ${name}`);
  // No expression inside a run: script; the only ${{ }} in action.yml are in env:, with:, if: and outputs.
  for (const block of ACTION.matchAll(/^\s+run: \|?\n?([\s\S]*?)(?=^\s+- name:|(?![\s\S]))/gm)) assert.doesNotMatch(block[1], /\$\{\{/);
});

test('the reusable workflows pass the action only inputs it has', () => {
  const known = new Set(metadata.inputs.map((f) => f.name));
  const dir = join(ROOT, '.github/workflows');
  for (const file of readdirSync(dir)) {
    const text = readFileSync(join(dir, file), 'utf8');
    for (const use of text.matchAll(/uses: benchbot\/benchbot@\S+.*\n(\s+)with:\n((?:\1 {2}[\w-]+:.*\n)+)/g)) {
      for (const key of use[2].matchAll(/^\s+([\w-]+):/gm)) assert.ok(known.has(key[1]), `${file} passes ${key[1]}, which action.yml does not declare`);
    }
  }
});
