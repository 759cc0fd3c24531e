// A bench command that leaves daemons behind, through `benchbot run`: one
// in the round's process group (`sleep 1000 &`, disowned), one moved to
// another group of the round's session (setpgrp), one in a session of its
// own (setsid, escaping both). After every round benchbot kills all three and
// says so in the report, and the build and bench commands never see
// benchbot's own secrets in their environment (issue 22, accepted risks).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { COMMAND_MARKER_ENV } from '../../src/runner/stray-processes.ts';
import { makeFixtureRepo } from '../support/fixture-repo.ts';

const BIN = fileURLToPath(new URL('../../bin/benchbot.js', import.meta.url));

/** alive tells whether pid is a live process (not gone, not a zombie waiting for its parent). */
function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\S+ \(.*\) [ZX] /.test(stat);
  } catch {
    return false;
  }
}

test('daemons a bench command leaves (in its group, in another group, in their own session) are killed after each round, with a warning', { skip: process.platform !== 'linux' ? 'needs /proc (Linux)' : false }, (t) => {
  const repo = makeFixtureRepo({ headFactor: 1.001 });
  const pids = mkdtempSync(join(tmpdir(), 'benchbot-strays-'));
  // Should the test fail, the daemons it made must not outlive it: each recorded pid still a sleep of this test is killed.
  t.after(() => {
    for (const kind of ['group', 'other-group', 'own-session']) {
      if (!existsSync(join(pids, kind))) continue;
      for (const pid of readFileSync(join(pids, kind), 'utf8').trim().split('\n').map(Number)) {
        if (alive(pid) && readFileSync(`/proc/${pid}/environ`, 'latin1').includes(`PIDS=${pids}\0`)) process.kill(pid, 'SIGKILL');
      }
    }
  });
  const quiet = '</dev/null >/dev/null 2>&1';
  const bench = [
    './bench.sh',
    `sleep 1000 ${quiet} & echo $! >> "$PIDS/group"`,
    `perl -e 'setpgrp(0,0); exec @ARGV' sleep 1000 ${quiet} & echo $! >> "$PIDS/other-group"`,
    `setsid sh -c 'echo $$ >> "$PIDS/own-session"; exec sleep 1000' ${quiet} &`,
    'env > "$PIDS/bench-env"',
  ].join('\n');
  const build = './build.sh; env > "$PIDS/build-env"';
  const secrets = {
    BENCHBOT_DATABASE_URL: 'postgres://bench:SECRET-DB-PASSWORD@127.0.0.1:1/history',
    GITHUB_TOKEN: 'ghp_SECRETTOKEN000000000000000000000000',
    GH_TOKEN: 'ghp_SECRETTOKEN111111111111111111111111',
    BENCHBOT_INPUT_STORE: 'postgres://bench:SECRET-DB-PASSWORD@127.0.0.1:1/history',
    BENCHBOT_INPUT_GITHUB_TOKEN: 'ghs_SECRETTOKEN',
  };
  const env = { ...process.env, ...secrets, PIDS: pids, BENCHBOT_LOCK: join(repo.dir, 'machine.lock'), GITHUB_ACTIONS: '' };
  const run = spawnSync(process.execPath, [BIN, 'run', '--base', 'base', '--head', 'head', '--bench', bench, '--build', build, '--max-load', '1000', '--max-runs', '10', '--no-store', '--output', 'markdown'], { cwd: repo.dir, encoding: 'utf8', env, timeout: 110_000 });
  assert.ok(run.status === 0 || run.status === 1, `${run.status}: ${run.stderr}`);

  const read = (name: string) => readFileSync(join(pids, name), 'utf8').trim().split('\n').map(Number);
  const rounds = read('group').length;
  t.diagnostic(`${rounds} rounds, each leaving 3 sleeps behind`);
  assert.ok(rounds >= 20, `${rounds} rounds ran`);
  for (const kind of ['group', 'other-group', 'own-session']) {
    const left = read(kind).filter(alive);
    assert.deepEqual(left, [], `no ${kind} daemon outlives benchbot`);
  }
  assert.match(run.stdout, /the bench command left processes running after its round \(sleep\), outside its process group; benchbot killed them/);

  for (const file of ['bench-env', 'build-env']) {
    const seen = readFileSync(join(pids, file), 'utf8');
    assert.match(seen, /^PIDS=/m, `${file}: the caller's own variables still reach the command (the control)`);
    for (const name of Object.keys(secrets)) assert.doesNotMatch(seen, new RegExp(`^${name}=`, 'm'), `${file}: ${name} is not in the command's environment`);
    assert.doesNotMatch(seen, /SECRET/, `${file}: no secret value under another name`);
  }
  assert.match(readFileSync(join(pids, 'bench-env'), 'utf8'), new RegExp(`^${COMMAND_MARKER_ENV}=[0-9a-f-]{36}$`, 'm'), 'each round carries its marker');
  assert.ok(existsSync(join(pids, 'own-session')) && readdirSync(pids).length === 5);
});
