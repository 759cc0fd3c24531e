// Bundles the entry points into dist/ (committed; CI checks it is current).
import { build } from 'esbuild';
import { bundleDashboard } from './dashboard-bundle.ts';
import { NODE_BUNDLE_OPTIONS } from './bundle-options.ts';

const ENTRIES = { benchbot: 'src/cli/benchbot.ts', action: 'src/action/main.ts' };

await build({ ...NODE_BUNDLE_OPTIONS, entryPoints: ENTRIES, outdir: 'dist' });

// The dashboard's pages, for the browser (dist/dashboard.js, dist/dashboard.css).
await bundleDashboard();
