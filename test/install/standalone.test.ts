// The standalone executable as a user gets it: `npm run build:sea` for this
// machine's platform (into a temporary directory, ~15 s: part of this test),
// the executable copied alone into an empty directory and run there with a
// PATH that holds every tool of this machine except Node and npm.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { progress, ROOT, userSession } from './user-session.ts';

const NODE_TOOLS = new Set(['node', 'nodejs', 'npm', 'npx', 'corepack']);

/** toolsWithoutNode is a directory of links to every command on PATH but Node's, the first of each name as PATH would find it. */
function toolsWithoutNode(dir: string): string {
  mkdirSync(dir);
  const seen = new Set<string>();
  for (const from of (process.env.PATH ?? '').split(delimiter)) {
    if (!from || !existsSync(from) || !statSync(from).isDirectory()) continue;
    for (const name of readdirSync(from)) {
      if (seen.has(name) || NODE_TOOLS.has(name)) continue;
      seen.add(name);
      symlinkSync(join(from, name), join(dir, name));
    }
  }
  return dir;
}

test('the standalone executable, alone in an empty directory with no Node on PATH, runs a first session', { timeout: 120_000 }, (t) => {
  const say = progress(t, 'standalone');
  const target = `${process.platform}-${process.arch}`;
  if (!['linux-x64', 'linux-arm64'].includes(target)) {
    t.skip(`standalone executables are built for linux-x64 and linux-arm64, not for this ${target}`);
    return;
  }
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-sea-test-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));
  const buildEnv = { ...process.env };
  try {
    createRequire(import.meta.url).resolve('postject');
  } catch {
    // A node_modules from before postject was a devDependency: fetch the locked version beside it.
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version: string }> };
    const version = lock.packages['node_modules/postject'].version;
    const installed = spawnSync('npm', ['install', '--no-save', '--no-package-lock', '--prefix', join(scratch, 'postject'), `postject@${version}`], { encoding: 'utf8' });
    assert.equal(installed.status, 0, installed.stderr);
    buildEnv.NODE_PATH = join(scratch, 'postject/node_modules');
    say(`postject was not installed (npm ci installs it): fetched postject@${version} for this test`);
  }

  const built = spawnSync(process.execPath, [join(ROOT, 'scripts/build-sea.ts'), '--target', target, '--out', join(scratch, 'release')], { cwd: ROOT, encoding: 'utf8', timeout: 90_000, env: buildEnv });
  assert.equal(built.status, 0, `${built.stdout}\n${built.stderr}`);
  const exe = join(scratch, 'release', `benchbot-${target}`);
  say(`built ${exe} (${(statSync(exe).size / 1e6).toFixed(0)} MB)`);

  const home = mkdtempSync(join(scratch, 'home-'));
  const alone = join(home, 'benchbot');
  copyFileSync(exe, alone);
  spawnSync('chmod', ['755', alone]);
  const tools = toolsWithoutNode(join(scratch, 'tools'));
  const env = { PATH: tools, HOME: home, LANG: 'C.UTF-8', TMPDIR: process.env.TMPDIR ?? tmpdir() };
  assert.equal(spawnSync('sh', ['-c', 'command -v node npm'], { env, encoding: 'utf8' }).stdout, '', 'no node on the PATH the executable runs with');

  const benchbot = (cwd: string, args: string[], input?: string) => spawnSync(alone, args, { cwd, env, input, encoding: 'utf8', timeout: 60_000 });
  // The assets the dashboard ships are the ones the build bundled: the same as `npm run build` makes from these sources.
  const reference = join(scratch, 'dist');
  const dist = spawnSync(process.execPath, [join(ROOT, 'scripts/build.ts'), '--outdir', reference], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(dist.status, 0, dist.stderr);
  userSession(say, benchbot, readFileSync(join(reference, 'dashboard.js'), 'utf8'));
});
