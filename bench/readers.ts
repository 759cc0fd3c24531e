// Reader throughput on generated ~50 MB inputs, each beside JSON.parse in the
// same run: of the very same bytes (the text as one JSON string, the least
// work JSON.parse can do per byte) and of the same results written as JSON
// rows of about the same size (objects and numbers, as a harness's JSON
// output would hold them). Targets: a JSON reader within 2x of JSON.parse of
// its bytes, a text reader at 300 MB/s or more.
// Timings are medians of RUNS runs each: the machine is shared, so the
// reader's CPU time (this thread's) is printed too, which other processes
// disturb less than the wall clock. Run alone with `npm run bench:readers`.
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { googleBenchmarkReader } from '../src/formats/google-benchmark.ts';
import { goBenchReader } from '../src/formats/go-bench.ts';
import { cargoBenchReader } from '../src/formats/criterion.ts';
import { catch2Reader } from '../src/formats/catch2.ts';
import { dartReader } from '../src/formats/dart.ts';
import { plainLinesReader } from '../src/formats/plain-lines.ts';
import { detectReader } from '../src/formats/detect.ts';
import type { Reader } from '../src/formats/reader.ts';
import { catch2Console, catch2Xml, criterionConsole, dartRunTime, goBench, libtestBencher, plainLines, type ReaderInput } from './reader-inputs.ts';

const TARGET_BYTES = 50 * 1024 * 1024;
const RUNS = Number(process.env.BENCHBOT_READER_RUNS ?? 5);
const TEXT_TARGET_MB_S = 300;

function googleBenchmarkJson(bytes: number): ReaderInput {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const name = `BM_Generated/${i >> 4}`;
    const row = JSON.stringify({
      name, family_index: i >> 4, per_family_instance_index: 0, run_name: name, run_type: 'iteration',
      repetitions: 16, repetition_index: i & 15, threads: 1, iterations: 1000 + i,
      real_time: 1234.5678 + (i % 97), cpu_time: 1230.25 + (i % 89), time_unit: 'ns',
      bytes_per_second: 1.5e9 + i, CallsToAlloc: 3 + (i % 5), MemoryAllocated: 4096 + i,
    });
    rows.push(row);
    size += row.length + 2;
  }
  const text = `{"context":{"date":"2026-11-22T00:00:00+00:00","host_name":"bench","executable":"./suite","num_cpus":2,"mhz_per_cpu":2400,"cpu_scaling_enabled":false,"library_build_type":"release","caches":[],"load_avg":[0.1,0.2,0.3]},"benchmarks":[\n${rows.join(',\n')}\n]}`;
  return { text, json: text };
}

interface Timing {
  wallMs: number;
  cpuMs: number;
}

// Garbage is collected before each timed run, so that a run is not charged
// for collecting what building the inputs (or the run before) left behind:
// a reader in `benchbot compare` starts on a fresh heap.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** medianTiming runs work `runs` times and returns the median wall time and the median CPU time of this thread. */
function medianTiming(runs: number, work: () => unknown): Timing {
  const wall: number[] = [];
  const cpu: number[] = [];
  for (let i = 0; i < runs; i++) {
    collectGarbage();
    const started = performance.now();
    const usage = process.threadCpuUsage();
    work();
    const used = process.threadCpuUsage(usage);
    wall.push(performance.now() - started);
    cpu.push((used.user + used.system) / 1000);
  }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  return { wallMs: median(wall), cpuMs: median(cpu) };
}

const mbPerSecond = (chars: number, ms: number) => chars / 1024 / 1024 / (ms / 1000);
const show = (chars: number, t: Timing) => `${t.wallMs.toFixed(0)} ms, ${mbPerSecond(chars, t.wallMs).toFixed(0)} MB/s (CPU ${mbPerSecond(chars, t.cpuMs).toFixed(0)} MB/s)`;

interface Case {
  label: string;
  reader: Reader;
  input: (bytes: number) => ReaderInput;
  json?: boolean;
}

const CASES: Case[] = [
  { label: 'Google Benchmark JSON', reader: googleBenchmarkReader, input: googleBenchmarkJson, json: true },
  { label: 'Go bench text (`go test -bench -benchmem -count`)', reader: goBenchReader, input: goBench },
  { label: 'cargo bench: criterion console', reader: cargoBenchReader, input: criterionConsole },
  { label: 'cargo bench: libtest / bencher lines', reader: cargoBenchReader, input: libtestBencher },
  { label: 'Catch2 console', reader: catch2Reader, input: catch2Console },
  { label: 'Catch2 XML', reader: catch2Reader, input: catch2Xml },
  { label: 'Dart benchmark_harness', reader: dartReader, input: dartRunTime },
  { label: 'plain `name: value unit` lines', reader: plainLinesReader, input: plainLines },
];

/**
 * benchReaders measures every case, each in a process of its own (measureRow
 * there); `only` picks cases whose label contains it. A process per row is
 * how the readers run (`benchbot compare` reads one format per process), and
 * it keeps rows apart: in one process, readers that share helpers (the text
 * window, name codes, input checks) leave their call sites polymorphic for
 * the rows after them, which then measured 10-40% slower than alone.
 */
export function benchReaders(only?: string): string[] {
  const lines: string[] = [
    `## Readers (generated ~50 MB inputs, median of ${RUNS} runs, each row in a process of its own)`,
    '',
    '| input | size | benchbot reader | JSON.parse, same bytes as one string | JSON.parse, same results as JSON rows | target |',
    '| --- | --- | --- | --- | --- | --- |',
  ];
  for (const c of CASES) {
    if (only !== undefined && !c.label.toLowerCase().includes(only.toLowerCase())) continue;
    const child = spawnSync(process.execPath, [fileURLToPath(import.meta.url), ROW_FLAG, c.label], { encoding: 'utf8', maxBuffer: 1 << 20, stdio: ['ignore', 'pipe', 'inherit'] });
    if (child.status !== 0) throw new Error(`${c.label}: the row's process exited with ${child.status ?? child.signal}`);
    lines.push(child.stdout.trim());
  }
  return lines;
}

const ROW_FLAG = '--row';

/** measureRow measures the case labelled `label` in this process and returns its table row. */
function measureRow(label: string): string {
  const c = CASES.find((x) => x.label === label);
  if (c === undefined) throw new Error(`${ROW_FLAG} ${label}: no such case`);
  const { text, json } = c.input(TARGET_BYTES);
  const file = { path: c.label, text };
  // Detection must pick the reader for its own input, or the row measures the wrong thing.
  const detected = detectReader(file).format;
  if (detected !== c.reader.format) throw new Error(`${c.label}: detected as ${detected}, not ${c.reader.format}`);
  const reader = medianTiming(RUNS, () => c.reader.read(file));
  const asString = JSON.stringify(text);
  const sameBytes = medianTiming(RUNS, () => JSON.parse(asString));
  // A JSON input is its own JSON rows: JSON.parse of it is the peer of its reader.
  const rows = medianTiming(RUNS, () => JSON.parse(json));
  const readerMbS = mbPerSecond(text.length, reader.wallMs);
  const target = c.json
    ? `<= 2x JSON.parse of the input: ${(reader.wallMs / rows.wallMs).toFixed(2)}x ${reader.wallMs <= 2 * rows.wallMs ? 'met' : 'MISSED'}`
    : `>= ${TEXT_TARGET_MB_S} MB/s: ${readerMbS >= TEXT_TARGET_MB_S ? 'met' : 'MISSED'} (CPU: ${mbPerSecond(text.length, reader.cpuMs) >= TEXT_TARGET_MB_S ? 'met' : 'MISSED'}); ${(reader.wallMs / sameBytes.wallMs).toFixed(1)}x JSON.parse of its bytes`;
  return `| ${c.label} | ${(text.length / 1024 / 1024).toFixed(1)} MB | ${show(text.length, reader)} | ${show(asString.length, sameBytes)} | ${show(json.length, rows)}${c.json ? ' (the input itself)' : ''} | ${target} |`;
}

if (import.meta.main) {
  if (process.argv[2] === ROW_FLAG) console.log(measureRow(process.argv[3]));
  else console.log(benchReaders(process.argv[2]).join('\n'));
}
