// The README's test command is the one CI runs, and it prepares what the
// tests need itself: on a fresh machine `npm ci && npm test` must pass
// without .ci/run having installed anything first.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');

/** readmeTestCommand is the command of the README's first code block whose comment says it runs the tests. */
function readmeTestCommand(): string {
  const block = /^```sh\n([\s\S]*?)^```/m.exec(read('README.md'));
  assert.ok(block, 'README.md starts with a sh block of the newcomer commands');
  const line = block[1].split('\n').find((l) => /#.*\btests?\b/.test(l));
  assert.ok(line, 'the README\'s first block has a test command');
  return line.replace(/#.*$/, '').trim();
}

test('.ci/run runs exactly the README\'s test command, and npm test runs the preparation first', () => {
  const command = readmeTestCommand();
  assert.equal(command, 'npm ci && npm test');
  const ci = read('.ci/run').split('\n').map((l) => l.trim());
  assert.ok(ci.includes(command), `.ci/run runs "${command}" as written`);
  const ciBeforeTests = ci.slice(0, ci.indexOf(command)).join('\n');
  assert.doesNotMatch(ciBeforeTests, /apt-get|pip install|go install/, '.ci/run installs nothing before the README command: the command itself must');
  const pkg = JSON.parse(read('package.json'));
  assert.equal(pkg.scripts.pretest, 'bash scripts/prepare-tests.sh');
});

test('the preparation installs every tool a test looks for', () => {
  const script = read('scripts/prepare-tests.sh');
  // Each tool the suite runs, with the name under which the script installs it.
  for (const installed of ['hyperfine', 'libbenchmark-tools', 'libbenchmark-dev', 'g++', 'openssh-server', 'openssh-client', 'busybox', 'postgresql-15', 'chromium', 'scipy', 'actionlint@', 'nektos/act@', 'zizmor==']) {
    assert.ok(script.includes(installed), `scripts/prepare-tests.sh installs ${installed}`);
  }
});

test('without root or sudo the preparation names the missing packages and stops, instead of failing later in a test', () => {
  const bin = mkdtempSync(join(tmpdir(), 'benchbot-prepare-'));
  // A machine where nothing is installed: PATH holds only what the script's own lines need.
  for (const tool of ['dirname']) symlinkSync(`/usr/bin/${tool}`, join(bin, tool));
  writeFileSync(join(bin, 'id'), '#!/bin/sh\necho 1000\n');
  writeFileSync(join(bin, 'sudo'), '#!/bin/sh\nexit 1\n');
  chmodSync(join(bin, 'id'), 0o755);
  chmodSync(join(bin, 'sudo'), 0o755);
  const run = spawnSync('/bin/bash', [join(ROOT, 'scripts/prepare-tests.sh')], { encoding: 'utf8', env: { PATH: bin, HOME: bin } });
  assert.equal(run.status, 1, run.stderr + run.stdout);
  assert.match(run.stdout, /prepare-tests: missing Debian packages: hyperfine .*busybox/);
  assert.match(run.stdout, /sudo apt-get install hyperfine/);
});
