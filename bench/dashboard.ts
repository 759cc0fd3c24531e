// `npm run bench:dashboard`: issue 15's targets, each beside what
// github-action-benchmark does with the same data.
//
// History at scale (committed generator: bench/history-generator.ts):
// 10,000 series x 365 nights x 10 samples (+ the A/B of the newest 40
// nights), imported, scanned and turned into the dashboard, on SQLite and
// on PostgreSQL; every step in a process of its own (bench/scale-task.ts)
// for its wall time, CPU time and peak memory. Targets: import < 60 s, scan
// < 30 s, each < 1 GB; site generation < 10 s.
//
// Pages, in Debian's chromium: time to first chart of the overview and of a
// series page, and the bytes the overview transfers (targets: < 1 s, < 5 MB),
// beside github-action-benchmark's page: one data.js with every point,
// loaded whole, then a chart per benchmark. And the chart library choice:
// uPlot and Apache ECharts drawing the same series page chart.
//
//   npm run bench:dashboard -- [--series 10000] [--nights 365] [--no-sqlite] [--no-postgres] [--no-pages] [--work DIR]
import { spawnSync } from 'node:child_process';
import { createReadStream, existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { plannedSteps, writeHistory, type HistoryShape } from './history-generator.ts';
import { bundleDashboard } from '../scripts/dashboard-bundle.ts';
import { splitLines } from '../src/store/import-ndjson.ts';
import { dashboardSeriesId } from '../src/model/series-id.ts';
import { hostKey } from '../src/model/fingerprint.ts';
import { launch, serveDirectory, watch } from '../test/dashboard/browser.ts';
import { postgresUnavailable, startPostgres } from '../test/support/postgres-server.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const { values: v } = parseArgs({ options: { series: { type: 'string' }, nights: { type: 'string' }, 'no-postgres': { type: 'boolean' }, 'no-sqlite': { type: 'boolean' }, 'no-pages': { type: 'boolean' }, work: { type: 'string' }, runs: { type: 'string' } } });
const shape: HistoryShape = { series: Number(v.series ?? 10_000), nights: Number(v.nights ?? 365), samples: 10, steps: 10, seed: 1 };
const work = v.work ?? '/tmp/benchbot-bench-dashboard';
const looks = Number(v.runs ?? 5);
mkdirSync(work, { recursive: true });

interface Measured {
  code: number;
  seconds: number;
  cpuSeconds: number;
  maxRssMB: number;
  /** load is the 1-minute load average when the step ended: others' work on the same cores stretches the wall time. */
  load: number;
}

function task(args: string[], output?: string): Measured {
  const run = spawnSync(process.execPath, [join(ROOT, 'bench/scale-task.ts'), ...args], { encoding: 'utf8', maxBuffer: 64 << 20, env: { ...process.env, BENCHBOT_DATABASE_URL: '', ...(output ? { SCALE_TASK_OUTPUT: output } : {}) } });
  const last = run.stdout.trim().split('\n').pop() ?? '';
  try {
    return { ...(JSON.parse(last) as Omit<Measured, 'load'>), load: loadavg()[0] };
  } catch {
    throw new Error(`benchbot ${args[0]} failed: ${run.stderr.slice(-2000)}`);
  }
}

const fmt = (m: Measured) => `${m.seconds.toFixed(1)} s (CPU ${m.cpuSeconds.toFixed(1)} s, load ${m.load.toFixed(1)}), ${Math.round(m.maxRssMB)} MB`;
const lines: string[] = [];
const say = (line: string) => {
  console.log(line);
  lines.push(line);
};

// 1. The history.
const history = join(work, `history-${shape.series}x${shape.nights}x${shape.samples}.ndjson`);
if (!existsSync(history)) {
  const t = performance.now();
  await writeHistory(shape, history);
  console.log(`generated ${history} in ${((performance.now() - t) / 1000).toFixed(1)} s`);
}
const steps = plannedSteps(shape);
say(`## History at scale: ${shape.series.toLocaleString('en-US')} series x ${shape.nights} nights x ${shape.samples} samples (${(statSync(history).size / 1e6).toFixed(0)} MB of NDJSON, ${steps.length} steps)`);
say('');
say('| store | import | scan | steps found | false findings | dashboard | site |');
say('| --- | --- | --- | --- | --- | --- | --- |');

await bundleDashboard();
const stores: { name: string; url: string; stop?: () => void }[] = v['no-sqlite'] ? [] : [{ name: 'SQLite', url: join(work, 'history.db') }];
if (!v['no-postgres'] && postgresUnavailable() === undefined) {
  const server = await startPostgres();
  stores.push({ name: 'PostgreSQL 15', url: server.createDatabase('history'), stop: () => server.stop() });
}
let siteDir = '';
for (const store of stores) {
  if (store.name === 'SQLite') for (const f of ['', '-wal', '-shm']) rmSync(`${store.url}${f}`, { force: true });
  const imported = task(['import', history, '--store', store.url]);
  const scanFile = join(work, `scan-${store.name.split(' ')[0]}.json`);
  const scanned = task(['scan', '--store', store.url, '--output', 'json'], scanFile);
  const scan = JSON.parse(readFileSync(scanFile, 'utf8')) as { findings: { benchmark: string; kind: string; first_bad: { sha: string } }[] };
  const confirmed = scan.findings.filter((f) => f.kind !== 'watch');
  const found = steps.filter((s) => confirmed.some((f) => f.benchmark === s.benchmark)).length;
  const falses = confirmed.filter((f) => !steps.some((s) => s.benchmark === f.benchmark)).length;
  const out = join(work, `site-${store.name.split(' ')[0]}`);
  rmSync(out, { recursive: true, force: true });
  const site = task(['dashboard', '--store', store.url, '--out', out, '--title', 'benchbot bench']);
  const bytes = spawnSync('du', ['-sb', out], { encoding: 'utf8' }).stdout.split('\t')[0];
  say(`| ${store.name} | ${fmt(imported)} | ${fmt(scanned)} | ${found} of ${steps.length} | ${falses} | ${fmt(site)} | ${(Number(bytes) / 1e6).toFixed(0)} MB |`);
  // The dashboard shows the scan's decisions: its regressions must be the scan's confirmed ones (docs/dashboard.md).
  const rows = (JSON.parse(readFileSync(join(out, 'data', 'overview.json'), 'utf8')) as { rows: unknown[][] }).rows;
  const badged = rows.filter((r) => r[11] === 'regression').map((r) => String(r[3])).sort();
  const scanConfirmed = scan.findings.filter((f) => f.kind !== 'watch' && (f as { direction?: string }).direction === 'regression').map((f) => f.benchmark).sort();
  if (badged.join('\n') !== scanConfirmed.join('\n')) throw new Error(`${store.name}: the overview badges ${badged.length} regressions, the scan confirmed ${scanConfirmed.length}`);
  console.log(`${store.name}: the overview's ${badged.length} regressions are the scan's ${scanConfirmed.length} confirmed ones`);
  if (!siteDir) siteDir = out;
  store.stop?.();
}
if (v['no-pages'] || !siteDir) {
  writeFileSync(join(work, 'results.md'), `${lines.join('\n')}\n`);
  process.exit(0);
}

// 2. github-action-benchmark's data.js from the same nights: one entry per commit, every benchmark's value in it.
const gab = join(work, 'gab');
mkdirSync(gab, { recursive: true });
{
  const started = performance.now();
  const entries: unknown[] = [];
  let header = true;
  for await (const line of splitLines(createReadStream(history, { highWaterMark: 1 << 20 }), history)) {
    if (header || line === '') {
      header = false;
      continue;
    }
    const run = JSON.parse(line) as { sha: string; role: string; time: string; measurements: { benchmark: string; unit: string; values: number[] }[] };
    if (run.role !== 'nightly') continue;
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
    entries.push({
      commit: { author: { name: 'bench', email: 'bench@example.com', username: 'bench' }, committer: { name: 'bench', email: 'bench@example.com', username: 'bench' }, distinct: true, id: run.sha, message: 'nightly', timestamp: run.time, tree_id: run.sha, url: `https://github.com/example/suite/commit/${run.sha}` },
      date: Date.parse(run.time), tool: 'googlecpp',
      benches: run.measurements.map((m) => ({ name: m.benchmark, value: median(m.values), unit: `${m.unit}/iter`, extra: `iterations: 1000\ncpu: ${median(m.values)} ${m.unit}\nthreads: 1` })),
    });
  }
  // The action writes it indented (JSON.stringify(data, null, 2)); at this size that string is longer than V8 allows, so the smaller unindented form is measured.
  const data = { lastUpdate: Date.now(), repoUrl: 'https://github.com/example/suite', entries: { Benchmark: entries } };
  let indentedFits = true;
  try {
    JSON.stringify(data, null, 2);
  } catch {
    indentedFits = false;
  }
  writeFileSync(join(gab, 'data.js'), `window.BENCHMARK_DATA = ${JSON.stringify(data)}`);
  if (!indentedFits) say('(github-action-benchmark writes data.js indented; for this history that text exceeds V8\'s longest string, so the action could not write it at all: the unindented file is measured.)');
  say('');
  say(`github-action-benchmark's data.js for the same nights: ${(statSync(join(gab, 'data.js')).size / 1e6).toFixed(0)} MB, written in ${((performance.now() - started) / 1000).toFixed(1)} s (it is rewritten whole on every push).`);
}
await build({
  stdin: { contents: GAB_PAGE(), resolveDir: ROOT, loader: 'ts' }, bundle: true, format: 'esm', outfile: join(gab, 'gab.js'), minify: true, logLevel: 'warning',
});
writeFileSync(join(gab, 'index.html'), '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script src="data.js"></script><script type="module" src="gab.js"></script><body></body>');

/** GAB_PAGE is github-action-benchmark's index.html logic (collectBenchesPerTestCase, then a chart per benchmark), drawn with uPlot. */
function GAB_PAGE(): string {
  return `import uPlot from 'uplot';
const data = (window as any).BENCHMARK_DATA;
const map = new Map();
for (const entry of data.entries.Benchmark) {
  for (const bench of entry.benches) {
    const result = { commit: entry.commit, date: entry.date, tool: entry.tool, bench };
    const arr = map.get(bench.name);
    if (arr === undefined) map.set(bench.name, [result]); else arr.push(result);
  }
}
const [name, points] = map.entries().next().value;
const title = document.createElement('h2'); title.textContent = name; document.body.appendChild(title);
new uPlot({ width: 1000, height: 300, scales: { x: { time: true } }, legend: { show: false }, series: [{}, { stroke: '#0072B2' }] },
  [points.map((p: any) => p.date / 1000), points.map((p: any) => p.bench.value)], document.body);
performance.mark('first-chart');
(window as any).benchCount = map.size;
`;
}

// 3. Chart libraries on the same series page data.
const charts = join(siteDir, 'bench');
mkdirSync(charts, { recursive: true });
const librarySizes: Record<string, number> = {};
for (const lib of ['uplot', 'echarts']) {
  await build({ entryPoints: [join(ROOT, `bench/dashboard-charts/${lib}.ts`)], bundle: true, format: 'esm', outfile: join(siteDir, `bench-${lib}.js`), minify: true, logLevel: 'warning', loader: { '.css': 'css' } });
  librarySizes[lib] = statSync(join(siteDir, `bench-${lib}.js`)).size;
  writeFileSync(join(siteDir, `bench-${lib}.html`), `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,">${existsSync(join(siteDir, `bench-${lib}.css`)) ? `<link rel="stylesheet" href="bench-${lib}.css">` : ''}<body><script type="module" src="bench-${lib}.js"></script></body>`);
}

// 4. In chromium.
const fixtureFp = { cpuModel: 'AMD EPYC 7543P 32-Core Processor', cores: 32, governor: 'performance', turbo: false, smt: false, kernel: '6.1.0-28-amd64', memoryBytes: 270_000_000_000, hostName: 'bench-1', virtualization: 'bare-metal' };
const stepId = dashboardSeriesId('example/suite', `main:${steps[0].benchmark}:real_time:${hostKey(fixtureFp)}`);
const browser = await launch();
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
/** firstChart loads a page and returns its first chart's time from navigation start; `ready` is a data-ready value, or '' for a page that marks first-chart. */
async function firstChart(url: string, ready: string, timeout = 120_000): Promise<number> {
  const w = await watch(browser);
  try {
    await w.page.goto(url, { timeout });
    // A function, not a string: the dashboard's CSP forbids eval.
    await w.page.waitForFunction((r) => (r === '' ? performance.getEntriesByName('first-chart').length > 0 : document.body.dataset.ready === r), ready, { timeout });
    const t = await w.page.evaluate(() => performance.getEntriesByName('benchbot:first-chart').concat(performance.getEntriesByName('first-chart'))[0]?.startTime ?? NaN);
    if (w.problems.length > 0) throw new Error(`${url}: ${w.problems.join('; ')}`);
    return t;
  } finally {
    await w.page.close();
  }
}
const site = await serveDirectory(siteDir);
const gabSite = await serveDirectory(gab);
try {
  const overview: number[] = [];
  const seriesPage: number[] = [];
  for (let i = 0; i < looks; i++) {
    overview.push(await firstChart(site.url, 'overview'));
    seriesPage.push(await firstChart(`${site.url}#/series/${stepId}`, 'series'));
  }
  site.bytes.clear();
  await firstChart(site.url, 'overview');
  const overviewBytes = [...site.bytes.values()].reduce((a, b) => a + b, 0);
  site.bytes.clear();
  await firstChart(`${site.url}#/series/${stepId}`, 'series');
  const seriesBytes = [...site.bytes.values()].reduce((a, b) => a + b, 0);
  const gabTimes: number[] = [];
  for (let i = 0; i < Math.min(looks, 3); i++) gabTimes.push(await firstChart(gabSite.url, '', 600_000));
  const library: Record<string, number[]> = { uplot: [], echarts: [] };
  for (let i = 0; i < looks; i++) for (const lib of ['uplot', 'echarts']) library[lib].push(await firstChart(`${site.url}bench-${lib}.html#${stepId}`, ''));

  say('');
  say(`## Pages in Chromium (${browser.version()}), median of ${looks} loads`);
  say('');
  say('| page | time to first chart | transferred |');
  say('| --- | --- | --- |');
  say(`| benchbot overview (${shape.series.toLocaleString('en-US')} series) | ${median(overview).toFixed(0)} ms | ${(overviewBytes / 1e6).toFixed(2)} MB |`);
  say(`| benchbot series page (${shape.nights} nights) | ${median(seriesPage).toFixed(0)} ms | ${(seriesBytes / 1e6).toFixed(2)} MB |`);
  say(`| github-action-benchmark (data.js loaded whole, then a chart per benchmark) | ${median(gabTimes).toFixed(0)} ms to the first of ${shape.series.toLocaleString('en-US')} charts | ${(statSync(join(gab, 'data.js')).size / 1e6).toFixed(1)} MB |`);
  say('');
  say('## Chart library: the same series chart (median, CI band), bundled by esbuild');
  say('');
  say('| library | bundle (minified) | time to first chart |');
  say('| --- | --- | --- |');
  for (const lib of ['uplot', 'echarts']) say(`| ${lib === 'uplot' ? 'uPlot 1.6.32' : 'Apache ECharts 6.0.0'} | ${(librarySizes[lib] / 1024).toFixed(0)} KiB | ${median(library[lib]).toFixed(0)} ms |`);
} finally {
  await browser.close();
  await site.close();
  await gabSite.close();
}
writeFileSync(join(work, 'results.md'), `${lines.join('\n')}\n`);
console.log(`\n(written to ${join(work, 'results.md')})`);
