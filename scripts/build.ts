// Bundles the entry points into dist/ (committed; CI checks it is current),
// or into the directory given by --outdir (the install tests build a package there).
import { build } from 'esbuild';
import { parseArgs } from 'node:util';
import { bundleDashboard } from './dashboard-bundle.ts';
import { NODE_BUNDLE_OPTIONS } from './bundle-options.ts';

const ENTRIES = { benchbot: 'src/cli/benchbot.ts', action: 'src/action/main.ts' };
const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' } } });

await build({ ...NODE_BUNDLE_OPTIONS, entryPoints: ENTRIES, outdir: values.outdir });

// The dashboard's pages, for the browser (dist/dashboard.js, dist/dashboard.css).
await bundleDashboard(values.outdir);
