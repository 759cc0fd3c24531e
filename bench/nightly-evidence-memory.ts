// The nightly action's evidence step (src/jobs/nightly.ts nightlyEvidence:
// scan the branch's stored history, confirm what awaits an A/B, write
// history.json for the report job) on a store of the committed generator's
// history, in a process of its own so that its peak memory is its own. The
// A/B confirmations cannot be measured here: each pair fails as on a runner
// whose checkout cannot build it (RunnerError), which still costs the scan
// after the round, as on a runner. Prints, as its last line, JSON with the
// wall time, CPU time, peak resident memory (getrusage's maxrss), pairs
// tried, series and findings, and history.json's size; history.json and
// scan.json are left in --out.
//
//   node bench/history-generator.ts --series 10000 --nights 365 --out /tmp/h.ndjson
//   node bin/benchbot.js import /tmp/h.ndjson --store /tmp/h.db
//   node bench/nightly-evidence-memory.ts --store /tmp/h.db [--out DIR] [--batch 500]
import { mkdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { nightlyEvidence } from '../src/jobs/nightly.ts';
import { RunnerError } from '../src/runner/git-checkout.ts';
import { openStore } from '../src/store/open-store.ts';

const { values: v } = parseArgs({ options: { store: { type: 'string' }, out: { type: 'string' }, batch: { type: 'string' }, repository: { type: 'string' }, branch: { type: 'string' } } });
if (!v.store) throw new Error('give --store FILE (a store of bench/history-generator.ts\'s history, imported with benchbot import)');
const out = v.out ?? '/tmp/benchbot-nightly-evidence';
mkdirSync(out, { recursive: true });
const started = performance.now();
const store = await openStore(v.store, { cwd: out, env: {} });
let tried = 0;
const evidence = await nightlyEvidence(store, {
  branch: v.branch ?? 'main', repository: v.repository ?? 'example/suite', threshold: 0.02, minRuns: 10, maxRuns: 40,
  repoDir: out, headSha: 'HEAD', historyFile: join(out, 'history.json'), ...(v.batch ? { batch: Number(v.batch) } : {}),
}, async () => {
  tried++;
  throw new RunnerError('bench: no checkout to measure in');
});
await store.close();
writeFileSync(join(out, 'scan.json'), evidence.scan.json);
const usage = process.resourceUsage();
const scan = JSON.parse(evidence.scan.json) as { series?: number; findings?: unknown[] };
console.log(JSON.stringify({
  seconds: (performance.now() - started) / 1000, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6, maxRssMB: usage.maxRSS / 1024,
  pairsTried: tried, series: scan.series, findings: scan.findings?.length, historyMB: statSync(evidence.historyFile).size / 1e6,
}));
