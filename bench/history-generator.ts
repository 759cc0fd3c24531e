// The committed generator of nightly histories for the scale benchmarks
// (bench/history-scale.ts, bench/dashboard.ts) and the dashboard's test
// store (test/dashboard/fixture-store.ts). A history is a benchbot NDJSON
// export: one nightly run per night holding every series, and for the
// newest `abNights` nights the base run the nightly job stores beside it
// (last night's commit measured in the same session, ABBA), as
// src/action/run-action.ts stores them.
//
// Noise follows what the nightly bench measured on real machines: each night
// carries a machine-wide offset (sd 0.6% of log) and a per-series one (sd
// 0.4%), samples scatter around the night's level (sd 1.5%, lognormal). A
// planned step multiplies a series from its first bad night on; everything
// is drawn from one seed, so the same shape always yields the same bytes.
//
//   node bench/history-generator.ts --series 10000 --nights 365 --samples 10 --out history.ndjson
import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import { parseArgs } from 'node:util';
import { fileURLToPath } from 'node:url';

/** HistoryShape says what to generate; every field but the counts has a default. */
export interface HistoryShape {
  series: number;
  nights: number;
  samples: number;
  /** steps: series that change (+/-10%..25%) in the newest `stepWithin` nights (default 10). */
  steps?: number;
  /** stepWithin: the newest nights the steps land in, at least 3 nights before the end (default 20). */
  stepWithin?: number;
  /** abNights: the newest nights that also store the interleaved A/B base run (default 40). */
  abNights?: number;
  seed?: number;
  repo?: string;
  branch?: string;
  /** start: the first night, ISO (default 2025-01-01T03:17:00Z); one night per day after it. */
  start?: string;
}

/** PlannedStep is one generated change: the series, its first bad night (0-based) and commit, and after/before. */
export interface PlannedStep {
  benchmark: string;
  metric: string;
  night: number;
  sha: string;
  ratio: number;
}

const FAMILIES = ['Sort', 'Hash', 'Parse', 'Encode', 'Decode', 'Compress', 'Inflate', 'Regex', 'Alloc', 'Copy', 'Format', 'Scan', 'Lookup', 'Insert', 'Merge', 'Render', 'Layout', 'Serialize', 'Tokenize', 'Checksum'];
const VARIANTS = ['small', 'medium', 'large', 'random', 'sorted', 'reversed', 'ascii', 'utf8', 'cold', 'warm'];

/** mulberry32: a seeded 32-bit generator; enough for test data, and the same everywhere. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function gaussian(rng: () => number): number {
  let u = 0;
  while (u === 0) u = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng());
}

/** benchmarkName is series i's benchmark: Google Benchmark style, family/variant/size. */
export function benchmarkName(i: number): string {
  const family = FAMILIES[i % FAMILIES.length];
  const variant = VARIANTS[Math.floor(i / FAMILIES.length) % VARIANTS.length];
  const size = 2 ** (4 + (Math.floor(i / (FAMILIES.length * VARIANTS.length)) % 16));
  const group = Math.floor(i / (FAMILIES.length * VARIANTS.length * 16));
  return `BM_${family}${group === 0 ? '' : group}/${variant}/${size}`;
}

/** nightSha is the commit of night `night`: 40 hex digits from the seed. */
export function nightSha(seed: number, night: number): string {
  return createHash('sha1').update(`benchbot-history ${seed} ${night}`).digest('hex');
}

/** nightTime is night `night`'s ISO time. */
export function nightTime(shape: HistoryShape, night: number): string {
  return new Date(Date.parse(shape.start ?? '2025-01-01T03:17:00Z') + night * 86_400_000).toISOString();
}

/** plannedSteps lists the steps a shape generates, oldest first. */
export function plannedSteps(shape: HistoryShape): PlannedStep[] {
  const seed = shape.seed ?? 1;
  const rng = seeded(seed ^ 0x5eed);
  const count = Math.min(shape.steps ?? 10, shape.series);
  const within = Math.min(shape.stepWithin ?? 20, shape.nights - 3);
  const chosen = new Set<number>();
  const steps: PlannedStep[] = [];
  while (steps.length < count) {
    const i = Math.floor(rng() * shape.series);
    if (chosen.has(i)) continue;
    chosen.add(i);
    const night = shape.nights - 3 - Math.floor(rng() * Math.max(1, within - 2));
    const size = 0.1 + rng() * 0.15;
    const ratio = rng() < 0.7 ? 1 + size : 1 / (1 + size);
    steps.push({ benchmark: benchmarkName(i), metric: 'real_time', night, sha: nightSha(seed, night), ratio });
  }
  return steps.sort((a, b) => a.night - b.night || a.benchmark.localeCompare(b.benchmark));
}

const HEADER = JSON.stringify({ format: 'benchbot-history', version: 1 });

/**
 * historyLines yields the export line by line (header first, each line
 * without its newline), one night at a time, so a 10,000-series history
 * never sits in memory whole.
 */
export function* historyLines(shape: HistoryShape): Generator<string> {
  const seed = shape.seed ?? 1;
  const rng = seeded(seed);
  const n = shape.series;
  const base = new Float64Array(n);
  for (let i = 0; i < n; i++) base[i] = Math.log(20) + rng() * Math.log(1e6); // 20 ns .. 20 ms
  const stepOf = new Map(plannedSteps(shape).map((s) => [s.benchmark, s]));
  const stepAt = new Int32Array(n).fill(-1);
  const stepLog = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    const s = stepOf.get(benchmarkName(i));
    if (s) {
      stepAt[i] = s.night;
      stepLog[i] = Math.log(s.ratio);
    }
  }
  const names = Array.from({ length: n }, (_, i) => JSON.stringify(benchmarkName(i)));
  const abFrom = shape.nights - (shape.abNights ?? 40);
  const repo = shape.repo ?? 'example/suite';
  const branch = shape.branch ?? 'main';
  const fingerprint = (night: number) => ({ cpuModel: 'AMD EPYC 7543P 32-Core Processor', cores: 32, governor: 'performance', turbo: false, smt: false, kernel: '6.1.0-28-amd64', memoryBytes: 270_000_000_000, hostName: 'bench-1', virtualization: 'bare-metal', loadAverage: Math.round((0.05 + 0.1 * ((night * 7919) % 13) / 13) * 100) / 100 });
  const level = (i: number, night: number) => base[i] + (stepAt[i] >= 0 && night >= stepAt[i] ? stepLog[i] : 0);
  const values = (center: number): string => {
    const out: string[] = [];
    for (let k = 0; k < shape.samples; k++) out.push(String(Number(Math.exp(center + 0.015 * gaussian(rng)).toPrecision(6))));
    return `[${out.join(',')}]`;
  };
  const run = (key: string, sha: string, role: string, night: number, withBranch: boolean, body: string) =>
    `{"type":"run","id":${JSON.stringify(key)},"repo":${JSON.stringify(repo)}${withBranch ? `,"branch":${JSON.stringify(branch)}` : ''},"sha":"${sha}","ref":${JSON.stringify(withBranch ? branch : sha)},"role":"${role}","fingerprint":${JSON.stringify(fingerprint(night))},"time":"${nightTime(shape, night)}","harness":"google-benchmark","measurements":[${body}],"warnings":[],"hints":{}}`;
  yield HEADER;
  for (let night = 0; night < shape.nights; night++) {
    const machine = 0.006 * gaussian(rng);
    const sha = nightSha(seed, night);
    const parts: string[] = [];
    const abParts: string[] = [];
    for (let i = 0; i < n; i++) {
      const offset = machine + 0.004 * gaussian(rng);
      parts.push(`{"benchmark":${names[i]},"metric":"real_time","unit":"ns","better":"lower","values":${values(level(i, night) + offset)}}`);
      if (night >= abFrom && night > 0) abParts.push(`{"benchmark":${names[i]},"metric":"real_time","unit":"ns","better":"lower","values":${values(level(i, night - 1) + offset)}}`);
    }
    if (abParts.length > 0) yield run(`gen-${seed}-ab-${night}`, nightSha(seed, night - 1), 'base', night, false, abParts.join(','));
    yield run(`gen-${seed}-${night}`, sha, 'nightly', night, true, parts.join(','));
  }
}

/** writeHistory writes a shape's export to `path` and returns its size in bytes. */
export async function writeHistory(shape: HistoryShape, path: string): Promise<number> {
  const out = createWriteStream(path);
  let bytes = 0;
  for (const line of historyLines(shape)) {
    bytes += Buffer.byteLength(line) + 1;
    if (!out.write(`${line}\n`)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return bytes;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const { values: v } = parseArgs({ options: { series: { type: 'string' }, nights: { type: 'string' }, samples: { type: 'string' }, steps: { type: 'string' }, seed: { type: 'string' }, out: { type: 'string' } } });
  if (!v.out) throw new Error('give --out FILE');
  const shape: HistoryShape = { series: Number(v.series ?? 1000), nights: Number(v.nights ?? 365), samples: Number(v.samples ?? 10), steps: Number(v.steps ?? 10), seed: Number(v.seed ?? 1) };
  const bytes = await writeHistory(shape, v.out);
  console.log(`wrote ${v.out}: ${shape.series} series x ${shape.nights} nights x ${shape.samples} samples, ${(bytes / 1e6).toFixed(1)} MB`);
  for (const s of plannedSteps(shape)) console.log(`step ${s.benchmark} at night ${s.night} (${s.sha.slice(0, 10)}) x${s.ratio.toFixed(3)}`);
}
