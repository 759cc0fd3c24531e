// The action bundle's size and start-up time: the action's entry bundled
// as `npm run build` bundles it (into a temporary folder, so dist/ is left
// alone), then `node action.js` timed with no inputs, where it reads its
// inputs, finds `bench` missing and exits 2: what every workflow step pays
// before it does any work. Run alone with `npm run bench:action`.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { NODE_BUNDLE_OPTIONS } from '../scripts/bundle-options.ts';

/** benchActionBundle bundles src/action/main.ts and times `runs` cold starts of it. */
export async function benchActionBundle(runs = 15): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-action-bundle-'));
  try {
    await build({ ...NODE_BUNDLE_OPTIONS, entryPoints: { action: 'src/action/main.ts' }, outdir: dir });
    const file = join(dir, 'action.js');
    const bytes = statSync(file).size;
    const gzipped = gzipSync(readFileSync(file)).length;
    // Inputs cleared: the step stops at the first missing input.
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(process.env)) if (value !== undefined && !key.startsWith('BENCHBOT_INPUT_') && !key.startsWith('INPUT_') && !key.startsWith('GITHUB_')) env[key] = value;
    const times: number[] = [];
    let code: number | null = null;
    for (let i = 0; i < runs + 2; i++) {
      const started = performance.now();
      const run = spawnSync(process.execPath, [file], { env, encoding: 'utf8' });
      const ms = performance.now() - started;
      code = run.status;
      if (i >= 2) times.push(ms); // two warm-ups fill the page cache
    }
    const node = (() => {
      const started = performance.now();
      for (let i = 0; i < runs; i++) spawnSync(process.execPath, ['-e', '0']);
      return (performance.now() - started) / runs;
    })();
    times.sort((a, b) => a - b);
    const median = times[Math.floor(times.length / 2)];
    return [
      '## Action bundle',
      '',
      '| what | value |',
      '| --- | --- |',
      `| dist/action.js size | ${(bytes / 1024).toFixed(0)} KiB (${(gzipped / 1024).toFixed(0)} KiB gzipped) |`,
      `| start-up: \`node action.js\` with no inputs (exits ${code}), median of ${runs} | ${median.toFixed(0)} ms |`,
      `| the same node running nothing (\`node -e 0\`), mean of ${runs} | ${node.toFixed(0)} ms |`,
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.main) console.log((await benchActionBundle()).join('\n'));
