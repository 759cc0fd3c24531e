// Inside a checkout on a machine whose system Node is older than 24: npx
// benchbot and node bin/benchbot.js run benchbot without engine warnings,
// and the bundle run directly by the older Node says in one line what to do.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { ROOT } from './user-session.ts';

/** olderNode is a `node` on PATH older than 24 and PATH without the newer ones, if the machine has one. */
function olderNode(): { node: string; path: string } | undefined {
  const major = (dir: string) => {
    if (!existsSync(join(dir, 'node'))) return undefined;
    const probe = spawnSync(join(dir, 'node'), ['-p', 'process.versions.node'], { encoding: 'utf8' });
    return probe.status === 0 ? Number(probe.stdout.split('.')[0]) : undefined;
  };
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && (major(dir) ?? 0) < 24);
  const dir = dirs.find((d) => major(d) !== undefined);
  return dir === undefined ? undefined : { node: join(dir, 'node'), path: dirs.join(delimiter) };
}

test('in the checkout, a system Node older than 24 runs benchbot through npx and bin/benchbot.js, without EBADENGINE', (t) => {
  const older = olderNode();
  if (!older) {
    t.skip('every node on PATH is 24 or newer: nothing older to run under');
    return;
  }
  const env: NodeJS.ProcessEnv = { ...process.env, PATH: older.path, npm_config_update_notifier: 'false' };
  for (const key of Object.keys(env)) if (key.startsWith('npm_') && key !== 'npm_config_update_notifier') delete env[key];
  const npx = spawnSync('npx', ['benchbot', '--help'], { cwd: ROOT, env, encoding: 'utf8' });
  assert.equal(npx.status, 0, npx.stderr);
  assert.match(npx.stdout, /^usage: benchbot <command>/);
  assert.doesNotMatch(npx.stderr, /EBADENGINE|npm warn/);
  const direct = spawnSync(older.node, [join(ROOT, 'bin/benchbot.js'), '--help'], { cwd: ROOT, env, encoding: 'utf8' });
  assert.equal(direct.status, 0, direct.stderr);
  assert.match(direct.stdout, /^usage: benchbot <command>/);
  const bundle = spawnSync(older.node, [join(ROOT, 'dist/benchbot.js'), '--help'], { cwd: ROOT, env, encoding: 'utf8' });
  assert.equal(bundle.status, 2);
  assert.match(bundle.stderr, /^benchbot needs Node\.js 24 \(found v\d+[^\n]*\n$/, 'one line, no ERR_UNKNOWN_BUILTIN_MODULE stack trace');
});
