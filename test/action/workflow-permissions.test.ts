/**
 * The workflows, read as GitHub reads them (YAML), against the rule of the
 * security model: a job that builds or runs repository code holds no write
 * scope and hands the benchbot action no token or secret; a job that holds
 * a write scope runs no repository code. Also: every `uses:` is pinned to a
 * commit (or is one of benchbot's own, released together and marked for
 * zizmor), no checkout of another repository names a movable ref, and no
 * `${{ }}` sits inside a `run:` script.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const WORKFLOW_DIRS = ['.github/workflows', 'workflows'];
const FILES = WORKFLOW_DIRS.flatMap((dir) => readdirSync(join(ROOT, dir)).filter((f) => /\.ya?ml$/.test(f)).map((f) => `${dir}/${f}`));

/** ALLOWED_SECRETS are secrets a code-running job may see, each with the reason. */
const ALLOWED_SECRETS: Record<string, string> = {
  // The nightly's history store is written by the job on the bench machine by design; it grants no access to GitHub.
  'database-url': 'the postgres:// URL of the history store',
};

interface Step {
  name?: string;
  id?: string;
  uses?: string;
  run?: string;
  if?: string;
  with?: Record<string, unknown>;
  env?: Record<string, unknown>;
}

interface Job {
  name?: string;
  'runs-on'?: unknown;
  uses?: string;
  with?: Record<string, unknown>;
  secrets?: unknown;
  permissions?: unknown;
  env?: Record<string, unknown>;
  steps?: Step[];
  needs?: string | string[];
}

interface Workflow {
  permissions?: unknown;
  on?: { workflow_call?: { inputs?: Record<string, { default?: unknown }> } };
  jobs: Record<string, Job>;
}

const workflows = new Map(FILES.map((file) => [file, parse(readFileSync(join(ROOT, file), 'utf8')) as Workflow]));

const isCheckout = (s: Step) => /^actions\/checkout@/.test(s.uses ?? '');
const isBenchbotAction = (s: Step) => /^benchbot\/benchbot@/.test(s.uses ?? '');
/** A checkout of the repository under test (not of the benchbot tool). */
const checksOutRepository = (s: Step) => isCheckout(s) && (s.with?.repository === undefined || s.with.repository === '${{ github.repository }}');

/** runsRepositoryCode: the job checks out the repository and then runs something there, or measures with the benchbot action. */
function runsRepositoryCode(job: Job): boolean {
  const steps = job.steps ?? [];
  if (steps.some((s) => isBenchbotAction(s) && !s.with?.merge)) return true;
  const checkout = steps.findIndex(checksOutRepository);
  return checkout !== -1 && steps.slice(checkout + 1).some((s) => s.run !== undefined || (s.uses !== undefined && s.uses.startsWith('./')));
}

function effectivePermissions(workflow: Workflow, job: Job): unknown {
  return job.permissions ?? workflow.permissions;
}

function writeScopes(permissions: unknown): string[] {
  if (permissions === 'write-all') return ['write-all'];
  if (permissions === undefined) return ['(none given: the repository default, which may be write)'];
  if (typeof permissions !== 'object' || permissions === null) return [];
  return Object.entries(permissions as Record<string, unknown>).filter(([, v]) => v === 'write').map(([k]) => k);
}

/** tokenReferences lists the expressions in `value` that would hand over a token or a secret. */
function tokenReferences(value: unknown): string[] {
  const text = JSON.stringify(value ?? null);
  const found = [...text.matchAll(/\$\{\{([^}]*)\}\}/g)].flatMap((m) => {
    const expression = m[1];
    const refs: string[] = [];
    if (/\bgithub\.token\b/.test(expression)) refs.push('github.token');
    for (const secret of expression.matchAll(/\bsecrets\.([\w-]+)/g)) if (!(secret[1] in ALLOWED_SECRETS)) refs.push(`secrets.${secret[1]}`);
    return refs;
  });
  return found;
}

test('every workflow file parses and has jobs', () => {
  assert.ok(FILES.length >= 6, FILES.join(', '));
  for (const [file, workflow] of workflows) assert.ok(workflow.jobs && Object.keys(workflow.jobs).length > 0, file);
});

test('a job that runs repository code has no write scope and gives the benchbot action no token or secret', () => {
  let codeJobs = 0;
  for (const [file, workflow] of workflows) {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      if (!runsRepositoryCode(job)) continue;
      codeJobs += 1;
      const where = `${file} job ${id}`;
      assert.notEqual(effectivePermissions(workflow, job), undefined, `${where}: give permissions explicitly (contents: read)`);
      assert.deepEqual(writeScopes(effectivePermissions(workflow, job)), [], `${where} runs repository code and must hold no write scope`);
      assert.notEqual(effectivePermissions(workflow, job), 'read-all', `${where}: name the read scopes it needs instead of read-all`);
      assert.deepEqual(tokenReferences(job.env), [], `${where}: the job's env reaches every step, the build and bench commands included`);
      for (const step of job.steps ?? []) {
        if (!isBenchbotAction(step)) continue;
        assert.ok(!('github-token' in (step.with ?? {})), `${where}: the measuring benchbot step must not be given github-token`);
        assert.deepEqual(tokenReferences(step.with), [], `${where}: the measuring benchbot step's with:`);
        assert.deepEqual(tokenReferences(step.env), [], `${where}: the measuring benchbot step's env:`);
      }
    }
  }
  // pr.yml bench, nightly.yml nightly, bisect.yml bisect.
  assert.ok(codeJobs >= 3, `found ${codeJobs} jobs that run repository code`);
});

test('a job with a write scope runs no repository code and, by default, not on the benchmark runner', () => {
  let writers = 0;
  for (const [file, workflow] of workflows) {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      if (job.uses !== undefined) continue; // a call: the called workflow's own jobs are checked
      if (writeScopes(effectivePermissions(workflow, job)).length === 0) continue;
      writers += 1;
      const where = `${file} job ${id}`;
      const steps = job.steps ?? [];
      assert.equal(steps.filter(isCheckout).length, 0, `${where} holds a write scope, so it checks out nothing`);
      if (workflow.on?.workflow_call === undefined) {
        // This repository's own release: its publish job attaches the files the build job made, with gh release only.
        for (const step of steps.filter((s) => s.run !== undefined)) {
          for (const line of (step.run as string).split('\n').filter((l) => l.trim() !== '')) assert.match(line, /^gh release (view|create|upload) /, `${where} holds a write scope, so its scripts are gh release commands only`);
        }
        assert.ok(job.needs !== undefined, `${where} publishes what another job built (needs:)`);
        continue;
      }
      assert.equal(steps.filter((s) => s.run !== undefined).length, 0, `${where} holds a write scope, so it runs no script`);
      for (const step of steps.filter(isBenchbotAction)) {
        assert.ok(step.with?.merge, `${where}: its benchbot step must be the report step (merge:)`);
        for (const key of ['bench', 'build']) assert.ok(!(key in (step.with ?? {})), `${where}: the report step takes no ${key}`);
      }
      assert.ok(job.needs !== undefined, `${where} reports on a measuring job's results (needs:)`);
      const runsOn = JSON.stringify(job['runs-on']);
      assert.match(runsOn, /inputs\.report-runs-on/, `${where} runs on report-runs-on`);
      assert.doesNotMatch(runsOn, /inputs\.runs-on\b/, `${where} must not fall back to the benchmark runner`);
      assert.equal(workflow.on?.workflow_call?.inputs?.['report-runs-on']?.default, '["ubuntu-latest"]', `${file}: report-runs-on defaults to a GitHub-hosted runner`);
    }
  }
  assert.ok(writers >= 2, `found ${writers} report jobs`);
});

test('calls of reusable workflows pass no secrets wholesale and call the workflows checked here', () => {
  for (const [file, workflow] of workflows) {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      if (job.uses === undefined) continue;
      assert.notEqual(job.secrets, 'inherit', `${file} job ${id}: secrets: inherit hands every secret to the called workflow`);
      const called = /^benchbot\/benchbot\/(\.github\/workflows\/[\w.-]+)@/.exec(job.uses);
      assert.ok(called && workflows.has(called[1]), `${file} job ${id} calls ${job.uses}, which this test does not check`);
    }
  }
});

test('every action and workflow reference is pinned: a full commit SHA, or benchbot\'s own release marked for zizmor', () => {
  for (const file of [...FILES, 'action.yml']) {
    const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
    lines.forEach((line, i) => {
      const use = /^\s*(?:-\s+)?uses:\s*(\S+)/.exec(line);
      if (!use || use[1].startsWith('./')) return;
      const ref = use[1].split('@')[1] ?? '';
      if (/^[0-9a-f]{40}$/.test(ref)) {
        assert.match(line, /#\s*\S/, `${file}:${i + 1}: say which release the SHA is in a comment`);
        return;
      }
      assert.match(use[1], /^benchbot\/benchbot(\/|@)/, `${file}:${i + 1}: ${use[1]} is not pinned to a full commit SHA`);
      assert.match(line, /# zizmor: ignore\[unpinned-uses\] \S/, `${file}:${i + 1}: benchbot's own reference needs the zizmor ignore with its reason`);
    });
  }
});

test('a checkout of another repository (the benchbot tool) names a full commit SHA, never a tag or branch', () => {
  for (const [file, workflow] of workflows) {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      for (const step of (job.steps ?? []).filter((s) => isCheckout(s) && !checksOutRepository(s))) {
        assert.match(String(step.with?.ref ?? ''), /^[0-9a-f]{40}$/, `${file} job ${id}: checkout of ${String(step.with?.repository)} at ${String(step.with?.ref)}; a tag can be moved to other code`);
      }
    }
  }
});

test('every starter is a short caller of a reusable workflow: no steps of its own, least permissions, nothing checked out', () => {
  const starters = [...workflows].filter(([file]) => file.startsWith('workflows/'));
  assert.equal(starters.length, 4);
  for (const [file, workflow] of starters) {
    assert.deepEqual(workflow.permissions, {}, `${file}: permissions: {} at the top`);
    for (const [id, job] of Object.entries(workflow.jobs)) {
      if (job.uses === undefined) {
        // Only a job that prints the called workflow's outputs would be allowed; the starters have none.
        assert.fail(`${file} job ${id} has steps of its own; call a reusable workflow instead`);
      }
      assert.match(job.uses, /^benchbot\/benchbot\/\.github\/workflows\/(pr|nightly|bisect)\.yml@/, `${file} job ${id}`);
    }
  }
});

test('bisect.yml splits as pr.yml and nightly.yml do: the bisect job reads only; the report job runs no code and holds nothing', () => {
  const workflow = workflows.get('.github/workflows/bisect.yml');
  assert.ok(workflow, 'the reusable bisect workflow exists');
  assert.deepEqual(workflow.permissions, {});
  const { bisect, report } = workflow.jobs;
  assert.deepEqual(bisect.permissions, { contents: 'read' });
  assert.ok(runsRepositoryCode(bisect), 'the bisect job measures with the benchbot action');
  assert.equal(bisect.steps?.find(isBenchbotAction)?.with?.mode, 'bisect');
  assert.deepEqual(report.permissions, {}, 'the app files the issue: the report job needs no scope');
  assert.equal(report.needs, 'bisect');
  assert.ok(!runsRepositoryCode(report));
  assert.equal((report.steps ?? []).filter((s) => isCheckout(s) || s.run !== undefined).length, 0);
  assert.ok(report.steps?.find(isBenchbotAction)?.with?.merge, 'the report step reads the artifact (merge:)');
  assert.match(JSON.stringify(report['runs-on']), /inputs\.report-runs-on/);
  const starter = workflows.get('workflows/benchbot-bisect.yml');
  assert.deepEqual(starter?.jobs.bisect.permissions, { contents: 'read' }, 'the starter grants what the called jobs may have: contents: read');
});

test('no ${{ }} expression inside a run: script (inputs reach scripts through env:)', () => {
  const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as { runs: { steps: Step[] } };
  const scripts: [string, string][] = action.runs.steps.filter((s) => s.run !== undefined).map((s) => [`action.yml step ${s.name}`, s.run as string]);
  for (const [file, workflow] of workflows) {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      for (const step of job.steps ?? []) if (step.run !== undefined) scripts.push([`${file} job ${id} step ${step.name ?? '?'}`, step.run]);
    }
  }
  assert.ok(scripts.length >= 5);
  for (const [where, script] of scripts) assert.doesNotMatch(script, /\$\{\{/, where);
});

test('the dashboard: built by a job with no permissions that runs only benchbot, deployed by the only job with Pages rights, which runs nothing else', () => {
  const nightly = workflows.get('.github/workflows/nightly.yml') as Workflow;
  const build = nightly.jobs.dashboard;
  const deploy = nightly.jobs.pages;
  assert.deepEqual(build.permissions, {}, 'the build job holds nothing');
  assert.deepEqual((build.steps ?? []).map((s) => s.uses?.split('@')[0]), ['benchbot/benchbot', 'actions/upload-pages-artifact']);
  assert.equal(build.steps?.[0].with?.mode, 'dashboard');
  assert.ok((build.steps ?? []).every((s) => s.run === undefined && !isCheckout(s)), 'no checkout, no script');
  assert.deepEqual(deploy.permissions, { pages: 'write', 'id-token': 'write' });
  assert.deepEqual((deploy.steps ?? []).map((s) => s.uses?.split('@')[0]), ['actions/deploy-pages']);
  assert.equal(deploy.needs, 'dashboard');
  for (const [file, workflow] of workflows) {
    for (const [id, job] of Object.entries(workflow.jobs)) {
      if (job.uses !== undefined || (file === '.github/workflows/nightly.yml' && id === 'pages')) continue;
      const scopes = JSON.stringify(effectivePermissions(workflow, job) ?? {});
      assert.doesNotMatch(scopes, /pages|id-token/, `${file} job ${id}: only the deploy job may hold pages or id-token`);
    }
  }
});
