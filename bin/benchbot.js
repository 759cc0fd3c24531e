#!/usr/bin/env node
// Entry point only: the CLI lives in src/cli. Node >= 22.18 runs the
// TypeScript sources directly; older Node gets a clear message instead of a
// syntax error.
const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 22 || (major === 22 && minor < 18)) {
  process.stderr.write(`benchbot needs Node.js 24 (found ${process.version}); run it through npx or npm scripts, which use the pinned node@24.\n`);
  process.exit(2);
}
await import('../src/cli/benchbot.ts');
