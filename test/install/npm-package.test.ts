// The npm package as a user gets it: `npm pack` of this checkout (with the
// bundle built from the current sources), installed with `npm install -g`
// into a scratch prefix by the npm on PATH, run from an empty directory with
// a PATH that holds no Node 24 (the system Node here is 20). The command
// re-runs itself under the Node 24 npm installed with it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { once } from 'node:events';
import { progress, ROOT, userSession } from './user-session.ts';

const PACKAGE = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; files: string[]; dependencies?: Record<string, string>; optionalDependencies?: Record<string, string> };

/** nodeMajor is the major version of the `node` in dir, or undefined where there is none. */
function nodeMajor(dir: string): number | undefined {
  const node = join(dir, 'node');
  if (!existsSync(node)) return undefined;
  const probe = spawnSync(node, ['-p', 'process.versions.node'], { encoding: 'utf8' });
  return probe.status === 0 ? Number(probe.stdout.split('.')[0]) : undefined;
}

/**
 * olderNodePath is PATH without the directories whose `node` is 24 or newer
 * (npm puts this checkout's node_modules/.bin first), so `#!/usr/bin/env node`
 * finds the system Node, as it would for a user. Undefined when no older Node
 * is left on it.
 */
function olderNodePath(): { path: string; major: number } | undefined {
  const dirs = (process.env.PATH ?? '').split(delimiter).filter((dir) => dir && (nodeMajor(dir) ?? 0) < 24);
  const major = dirs.map(nodeMajor).find((m) => m !== undefined);
  return major === undefined ? undefined : { path: dirs.join(delimiter), major };
}

function sh(command: string, args: string[], options: { cwd: string; env: NodeJS.ProcessEnv; input?: string }): SpawnSyncReturns<string> {
  return spawnSync(command, args, { ...options, encoding: 'utf8', timeout: 120_000 });
}

function quiet(output: string): string[] {
  return output.split('\n').filter((line) => /EBADENGINE|npm warn/i.test(line));
}

test('the packed npm package, installed with npm install -g on a system Node older than 24, runs a first session from an empty directory', { timeout: 120_000 }, async (t) => {
  const say = progress(t, 'npm package');
  const older = olderNodePath();
  if (!older) {
    // Every node on this machine is 24 or newer: nothing to re-run under. Still install and run.
    say('no Node older than 24 on PATH: the package runs on the Node it finds; the re-run under the shipped Node 24 is not exercised');
  }
  const PATH = older?.path ?? process.env.PATH ?? '';
  const env: NodeJS.ProcessEnv = { ...process.env, PATH, npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  for (const key of Object.keys(env)) if (key.startsWith('npm_') && !/^npm_config_(update_notifier|fund|audit)$/.test(key)) delete env[key];
  const scratch = mkdtempSync(join(tmpdir(), 'benchbot-npm-'));
  t.after(() => rmSync(scratch, { recursive: true, force: true }));

  // The package's contents: what `files` lists, with dist/ built from these sources.
  assert.equal(PACKAGE.dependencies, undefined, 'the package needs no dependency at run time (the bundle carries them): list libraries under devDependencies');
  const stage = join(scratch, 'stage');
  mkdirSync(stage);
  for (const file of ['package.json', 'README.md', ...PACKAGE.files.filter((f) => !f.startsWith('dist/'))]) cpSync(join(ROOT, file), join(stage, file), { recursive: true });
  const built = sh(process.execPath, [join(ROOT, 'scripts/build.ts'), '--outdir', join(stage, 'dist')], { cwd: ROOT, env: process.env });
  assert.equal(built.status, 0, built.stderr);
  say(`staged the package, dist/ built (npm on PATH runs on Node ${older?.major ?? 'of PATH'})`);

  const pack = sh('npm', ['pack', '--json', '--pack-destination', scratch], { cwd: stage, env });
  assert.equal(pack.status, 0, pack.stderr);
  const [packed] = JSON.parse(pack.stdout) as { filename: string; size: number; files: { path: string }[] }[];
  const files = packed.files.map((f) => f.path).sort();
  assert.ok(files.includes('dist/benchbot.js') && files.includes('bin/benchbot.js') && files.includes('dist/dashboard.js'), files.join(' '));
  assert.deepEqual(files.filter((f) => /^(src|test|fixtures|bench|scripts|node_modules)\//.test(f)), [], 'the tarball carries no sources, tests or fixtures');
  const tarball = join(scratch, packed.filename);
  say(`packed ${packed.filename}: ${files.length} files, ${(packed.size / 1e6).toFixed(2)} MB`);

  const prefix = join(scratch, 'prefix');
  const install = sh('npm', ['install', '-g', '--prefix', prefix, tarball], { cwd: scratch, env });
  assert.equal(install.status, 0, install.stderr);
  assert.deepEqual(quiet(install.stdout + install.stderr), [], 'npm install -g prints no engine or install-script warning');
  say('installed with npm install -g --prefix');

  const bin = join(prefix, 'bin');
  const benchbot = (cwd: string, args: string[], input?: string) => sh(join(bin, 'benchbot'), args, { cwd, env: { ...env, PATH: `${bin}${delimiter}${PATH}`, GITHUB_ACTIONS: '' }, input });
  const dashboardJs = readFileSync(join(stage, 'dist/dashboard.js'), 'utf8');
  userSession(say, benchbot, dashboardJs);

  if (older) {
    // The bundle run directly by the older Node: one line, no stack trace.
    const direct = sh('node', [join(prefix, 'lib/node_modules/benchbot/dist/benchbot.js'), '--help'], { cwd: scratch, env });
    assert.equal(direct.status, 2);
    assert.match(direct.stderr, /^benchbot needs Node\.js 24 \(found v\d+[^\n]*\n$/);

    // Signals reach the Node 24 process: SIGTERM to the command ends both.
    const child = spawn(join(bin, 'benchbot'), ['import', '-', '--store', join(scratch, 'wait.db')], { cwd: scratch, env: { ...env, PATH: `${bin}${delimiter}${PATH}` }, stdio: ['pipe', 'ignore', 'ignore'] });
    const inner = await waitForShippedNode(child.pid!);
    child.kill('SIGTERM');
    const [code, signal] = await once(child, 'exit');
    assert.equal(signal, 'SIGTERM', `exited ${code}`);
    assert.ok(!existsSync(`/proc/${inner}`) || readFileSync(`/proc/${inner}/stat`, 'utf8').split(' ')[2] === 'Z', 'the Node 24 process is gone too');
    say('node dist/benchbot.js on the older Node: one line; SIGTERM: forwarded');

    // Ctrl-C in a terminal (util-linux script makes the pseudo-terminal): the terminal's SIGINT ends both, exit 130.
    if (spawnSync('script', ['--version']).status === 0) {
      const terminal = spawn('script', ['-qec', `benchbot import - --store '${join(scratch, 'ctrl-c.db')}'`, '/dev/null'], { cwd: scratch, env: { ...env, PATH: `${bin}${delimiter}${PATH}` }, stdio: ['pipe', 'pipe', 'pipe'] });
      const inner = await waitForShippedNode(terminal.pid!);
      terminal.stdin.write('\x03');
      const [code] = await once(terminal, 'exit');
      assert.equal(code, 130, 'script -e exits as the command did: killed by SIGINT');
      assert.ok(!existsSync(`/proc/${inner}`) || readFileSync(`/proc/${inner}/stat`, 'utf8').split(' ')[2] === 'Z', 'the Node 24 process is gone too');
      say('Ctrl-C in a terminal: exit 130');
    } else {
      say('util-linux script is not installed: Ctrl-C in a terminal not tried');
    }
  }

  // npx from the tarball: the same package, its Node 24 on the PATH npx makes.
  const npxCache = join(scratch, 'npx-cache');
  const npx = sh('npx', ['--yes', '--cache', npxCache, '--package', tarball, 'benchbot', '--help'], { cwd: mkdtempSync(join(scratch, 'npx-')), env });
  assert.equal(npx.status, 0, npx.stderr);
  assert.match(npx.stdout, /^usage: benchbot <command>/);
  assert.deepEqual(quiet(npx.stderr), [], 'npx prints no engine or install-script warning');
  say('npx --package TARBALL benchbot --help: ok');

  // On a platform npm has no Node package for (npm's --cpu stands in for one): one line on what to do.
  if (older) {
    const bare = join(scratch, 'bare');
    const omitted = sh('npm', ['install', '-g', '--cpu=s390x', '--prefix', bare, tarball], { cwd: scratch, env });
    assert.equal(omitted.status, 0, omitted.stderr);
    const without = sh(join(bare, 'bin/benchbot'), ['--help'], { cwd: scratch, env });
    assert.equal(without.status, 2);
    assert.match(without.stderr, /^benchbot needs Node\.js 24 \(found v[^\n]*put a Node 24 first on PATH[^\n]*\n$/);
    say('without the shipped Node and none on PATH: one line, exit 2');
  }
});

/** descendants lists the pids under `pid`, children first. */
function descendants(pid: number): number[] {
  let children: number[] = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(' ').filter(Boolean).map(Number);
  } catch {
    return [];
  }
  return [...children, ...children.flatMap(descendants)];
}

/** waitForShippedNode waits until a process under `pid` runs on the shipped Node (the re-run) and returns its pid. */
async function waitForShippedNode(pid: number): Promise<number> {
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    for (const inner of descendants(pid)) {
      try {
        if (readlinkSync(`/proc/${inner}/exe`).includes('node-linux-')) return inner;
      } catch {
        // gone or not ours to read
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`benchbot (under pid ${pid}) started no Node 24 process within 30 s`);
}
