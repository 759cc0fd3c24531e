#!/usr/bin/env node
// Entry point only: the CLI lives in src/cli. Node >= 22.18 runs the
// TypeScript sources directly; older Node gets a clear message instead of a
// syntax error.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`benchbot needs Node.js 24 (found ${process.version}); run it through npx or npm scripts, which use the pinned node@24.\n`);
  process.exit(2);
}
// Node keeps the compiled (and type-stripped) modules in its compile cache
// (in the temp directory): a later start skips stripping the TypeScript
// sources, 0.6 s -> 0.25 s. Where the cache cannot be written, Node runs on
// without it.
const { enableCompileCache } = await import('node:module');
enableCompileCache?.();
await import('../src/cli/benchbot.ts');
