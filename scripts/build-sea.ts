// npm run build:sea [-- --target linux-x64,linux-arm64] [--out release]
//
// Builds benchbot as standalone executables, one per platform, each carrying
// its own Node 24: Node's single executable applications. Node 24 runs the
// embedded script as CommonJS (ESM entries came in Node 25.8), so the CLI is
// bundled again as CommonJS from src/cli/standalone.ts; the dashboard's pages
// ride along as SEA assets (src/dashboard/write-site.ts reads them there).
// The blob is made by this Node (`--experimental-sea-config`) and injected
// with postject (nodejs/postject) into a copy of the target's Node binary,
// which must be the same Node version: this Node for the host's platform,
// for another one the node-<platform> package from the npm registry (the
// one package.json names), checked against package-lock.json's integrity.
//
// macOS is not built: its Node must be re-signed after injection (codesign,
// macOS only), and the registry has no node-darwin package at every version.
import { build } from 'esbuild';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { bundleDashboard } from './dashboard-bundle.ts';
import { NODE_BUNDLE_OPTIONS } from './bundle-options.ts';

const ROOT = fileURLToPath(new URL('../', import.meta.url));
/** TARGETS are the platforms built by default: the ones npm has a Node package for. */
const TARGETS = ['linux-x64', 'linux-arm64'];
/** The fuse Node looks for to know a blob was injected (Node's SEA docs). */
const SENTINEL_FUSE = 'NODE_SEA_FUSE_fce680ab2cc467b6e072b8b5df1996b2';

interface Postject {
  inject(file: string, resource: string, data: Buffer, options: { sentinelFuse: string; overwrite?: boolean }): Promise<void>;
}

/** fail stops the build with one line that says what to do. */
function fail(message: string): never {
  process.stderr.write(`build:sea: ${message}\n`);
  process.exit(2);
}

/** nodeVersion is the Node version package.json pins for the platform packages (one version for every platform). */
function nodeVersion(): string {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { optionalDependencies?: Record<string, string> };
  const versions = new Set(Object.entries(pkg.optionalDependencies ?? {}).filter(([name]) => name.startsWith('node-')).map(([, v]) => v));
  if (versions.size !== 1) fail(`package.json's optionalDependencies must name one Node version for every node-<platform> package (found ${[...versions].join(', ') || 'none'})`);
  return [...versions][0];
}

/** lockedIntegrity is package-lock.json's integrity of a package, to check what the registry gave us. */
function lockedIntegrity(name: string, version: string): string {
  const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { version?: string; integrity?: string }> };
  const entry = lock.packages[`node_modules/${name}`];
  if (!entry?.integrity || entry.version !== version) fail(`package-lock.json has no ${name}@${version}: run npm install --package-lock-only`);
  return entry.integrity;
}

/** nodeBinary is the Node binary for `target`: this one when it is the host's, else the registry's package. */
function nodeBinary(target: string, version: string, work: string): string {
  if (target === `${process.platform}-${process.arch}`) return process.execPath;
  const name = `node-${target}`;
  const packed = spawnSync('npm', ['pack', `${name}@${version}`, '--json', '--pack-destination', work], { cwd: work, encoding: 'utf8' });
  if (packed.status !== 0) fail(`npm pack ${name}@${version} failed: ${packed.stderr.trim().split('\n').pop()}`);
  const [info] = JSON.parse(packed.stdout) as { filename: string; integrity: string }[];
  const locked = lockedIntegrity(name, version);
  if (info.integrity !== locked) fail(`${name}@${version} from the registry has integrity ${info.integrity}, package-lock.json says ${locked}`);
  const dir = join(work, name);
  mkdirSync(dir);
  const untar = spawnSync('tar', ['-xzf', join(work, info.filename), '-C', dir, 'package/bin/node'], { encoding: 'utf8' });
  if (untar.status !== 0) fail(`cannot unpack ${info.filename}: ${untar.stderr.trim()}`);
  return join(dir, 'package/bin/node');
}

const { values } = parseArgs({ options: { target: { type: 'string', default: TARGETS.join(',') }, out: { type: 'string', default: 'release' } } });
const targets = values.target.split(',').map((t) => t.trim()).filter(Boolean);
for (const target of targets) if (!TARGETS.includes(target)) fail(`--target ${target}: use ${TARGETS.join(' or ')} (macOS needs codesign, which runs on macOS only)`);
const out = resolve(values.out);
const version = nodeVersion();
if (process.version !== `v${version}`) fail(`this is Node ${process.version}; the blob must be made by the Node it is injected into, v${version} (package.json): run it as npm run build:sea`);
let postject: Postject;
try {
  postject = createRequire(import.meta.url)('postject') as Postject;
} catch {
  fail('postject is not installed: run npm ci');
}

const work = mkdtempSync(join(tmpdir(), 'benchbot-sea-'));
try {
  // The CLI as one CommonJS script; a single executable's require() loads built-ins only.
  const main = join(work, 'benchbot.cjs');
  const bundled = await build({
    ...NODE_BUNDLE_OPTIONS,
    format: 'cjs',
    // CommonJS has no import.meta: a module's URL is the executable's, so files
    // looked for beside it (the /bench recompute worker) are found missing and
    // their fallback applies; the dashboard's assets come from the executable.
    banner: { js: "// Generated by `npm run build:sea` from src/; do not edit.\nconst __benchbotModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
    define: { 'import.meta.url': '__benchbotModuleUrl' },
    entryPoints: [join(ROOT, 'src/cli/standalone.ts')],
    outfile: main,
  });
  if (bundled.errors.length > 0) fail('esbuild failed');
  await bundleDashboard(work);

  mkdirSync(out, { recursive: true });
  for (const target of targets) {
    const native = target === `${process.platform}-${process.arch}`;
    const blob = join(work, `${target}.blob`);
    const config = join(work, `${target}.sea-config.json`);
    writeFileSync(config, JSON.stringify({
      main,
      output: blob,
      disableExperimentalSEAWarning: true,
      // V8's code cache is made by this Node and holds for its own architecture only.
      useCodeCache: native,
      assets: { 'dashboard.js': join(work, 'dashboard.js'), 'dashboard.css': join(work, 'dashboard.css') },
    }));
    const made = spawnSync(process.execPath, ['--experimental-sea-config', config], { encoding: 'utf8' });
    if (made.status !== 0) fail(`the SEA blob for ${target}: ${made.stderr.trim()}`);
    const exe = join(out, `benchbot-${target}`);
    rmSync(exe, { force: true });
    copyFileSync(nodeBinary(target, version, work), exe);
    chmodSync(exe, 0o755);
    await postject.inject(exe, 'NODE_SEA_BLOB', readFileSync(blob), { sentinelFuse: SENTINEL_FUSE });
    process.stdout.write(`build:sea: ${exe} (Node ${version}, ${(statSync(exe).size / 1e6).toFixed(0)} MB)\n`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}
