// Bundles the entry points into dist/ (committed; CI checks it is current),
// or into the directory given by --outdir (the install tests build a package there).
import { build } from 'esbuild';
import { parseArgs } from 'node:util';
import { bundleDashboard } from './dashboard-bundle.ts';
import { NODE_BUNDLE_ENTRIES, NODE_BUNDLE_OPTIONS } from './bundle-options.ts';

const { values } = parseArgs({ options: { outdir: { type: 'string', default: 'dist' } } });

await build({ ...NODE_BUNDLE_OPTIONS, entryPoints: NODE_BUNDLE_ENTRIES, outdir: values.outdir });

// The dashboard's pages, for the browser (dist/dashboard.js, dist/dashboard.css).
await bundleDashboard(values.outdir);
