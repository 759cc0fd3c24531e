// The ways docs/nightly-and-bisect.md gives to run `benchbot nightly` on a
// bench box: the systemd service and timer (docs/deploy/benchbot-nightly.*)
// pass `systemd-analyze verify` where systemd is installed, and the command
// lines of the unit, the crontab line and the CI examples are flags that
// `benchbot nightly` accepts.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseNightlyArgs } from '../../src/cli/nightly-command.ts';
import { makeNightlyRepo } from './nightly-repo.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const SERVICE = readFileSync(join(ROOT, 'docs/deploy/benchbot-nightly.service'), 'utf8');
const TIMER = readFileSync(join(ROOT, 'docs/deploy/benchbot-nightly.timer'), 'utf8');
const DOC = readFileSync(join(ROOT, 'docs/nightly-and-bisect.md'), 'utf8');

/** words splits a command line as sh would for these examples: quotes kept together, "$VAR" left as written. */
function words(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2] ?? m[3]);
}

/** nightlyArgs are the arguments after `benchbot nightly` in a line, up to a shell operator. */
function nightlyArgs(line: string): string[] {
  const w = words(line);
  const at = w.findIndex((x, i) => /(^|\/)benchbot$/.test(x) && w[i + 1] === 'nightly');
  assert.ok(at !== -1, `no benchbot nightly in: ${line}`);
  const rest = w.slice(at + 2);
  const end = rest.findIndex((x) => ['&&', '||', '>>', '>', '|', ';'].includes(x) || x.startsWith('2>'));
  return end === -1 ? rest : rest.slice(0, end);
}

function key(unit: string, name: string): string {
  const line = unit.split('\n').find((l) => l.startsWith(`${name}=`));
  assert.ok(line, `${name}= in the unit`);
  return line.slice(name.length + 1);
}

test('the nightly service and timer pass systemd-analyze verify (pointed at this checkout)', (t) => {
  assert.equal(key(SERVICE, 'Type'), 'oneshot');
  assert.equal(key(TIMER, 'Unit'), 'benchbot-nightly.service');
  assert.match(key(TIMER, 'OnCalendar'), /^\*-\*-\* \d\d:\d\d:\d\d$/);
  assert.equal(key(SERVICE, 'SuccessExitStatus'), '1', 'a confirmed regression is the job done, not a failed unit');
  const probe = spawnSync('systemd-analyze', ['--version'], { encoding: 'utf8' });
  if (probe.error) {
    t.diagnostic('systemd-analyze is not installed; the units were parsed only');
    return;
  }
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-nightly-unit-'));
  const local = SERVICE.replace('ExecStart=/usr/local/bin/benchbot ', `ExecStart=${process.execPath} ${join(ROOT, 'bin/benchbot.js')} `);
  assert.notEqual(local, SERVICE, 'the test points ExecStart at this checkout');
  writeFileSync(join(dir, 'benchbot-nightly.service'), local);
  writeFileSync(join(dir, 'benchbot-nightly.timer'), TIMER);
  const verify = spawnSync('systemd-analyze', ['verify', join(dir, 'benchbot-nightly.service'), join(dir, 'benchbot-nightly.timer')], { encoding: 'utf8' });
  const output = `${verify.stdout}${verify.stderr}`;
  assert.equal(verify.status, 0, output);
  assert.deepEqual(output.split('\n').filter((l) => l.includes('benchbot-nightly')), [], 'no warning about either unit');
  // The check would see a mistake.
  writeFileSync(join(dir, 'benchbot-nightly.timer'), TIMER.replace('OnCalendar=', 'OnCalender='));
  const bad = spawnSync('systemd-analyze', ['verify', join(dir, 'benchbot-nightly.service'), join(dir, 'benchbot-nightly.timer')], { encoding: 'utf8' });
  assert.match(`${bad.stdout}${bad.stderr}`, /Unknown key 'OnCalender'/);
});

test('the service, the crontab line and the CI examples give benchbot nightly flags it accepts', () => {
  const repo = makeNightlyRepo(1000);
  const env = { GITHUB_TOKEN: 'ghs_x', CI_COMMIT_BRANCH: 'main' };
  const lines = [key(SERVICE, 'ExecStart')];
  const cron = /```crontab\n([\s\S]*?)```/.exec(DOC);
  assert.ok(cron, 'the docs give a crontab line');
  const entry = cron[1].trim();
  assert.match(entry, /^(\S+\s+){5}cd /, 'five time fields, then the command');
  lines.push(entry);
  for (const block of DOC.matchAll(/```(yaml|groovy)\n([\s\S]*?)```/g)) {
    for (const l of block[2].split('\n')) if (/benchbot nightly --/.test(l)) lines.push(l.replace(/^\s*(- |command: |sh ')/, '').replace(/'$/, ''));
  }
  assert.ok(lines.length >= 5, `service, cron, GitLab, Jenkins, Buildkite: ${lines.length}`);
  for (const line of lines) {
    // CI variables stand for a branch and a commit that exist.
    const args = nightlyArgs(line).map((a) => (/^\$\w+$/.test(a) ? (/(SHA|COMMIT)$/.test(a) ? 'HEAD' : 'main') : a));
    const settings = parseNightlyArgs(args, repo.dir, env);
    assert.ok(settings.bench.length > 0, line);
  }
});
