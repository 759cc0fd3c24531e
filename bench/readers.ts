// Reader throughput on generated 50 MB inputs, beside JSON.parse on the same
// bytes in the same run (target: within 2x of JSON.parse for JSON inputs).
import { googleBenchmarkReader } from '../src/formats/google-benchmark.ts';
import { goBenchReader } from '../src/formats/go-bench.ts';
import type { Reader } from '../src/formats/reader.ts';
import { bestOf } from './peer-tools.ts';

const TARGET_BYTES = 50 * 1024 * 1024;

function googleBenchmarkJson(): string {
  const rows: string[] = [];
  let size = 0;
  for (let i = 0; size < TARGET_BYTES; i++) {
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
  return `{"context":{"date":"2026-11-22T00:00:00+00:00","host_name":"bench","executable":"./suite","num_cpus":2,"mhz_per_cpu":2400,"cpu_scaling_enabled":false,"library_build_type":"release","caches":[],"load_avg":[0.1,0.2,0.3]},"benchmarks":[\n${rows.join(',\n')}\n]}`;
}

function goBenchText(): string {
  const lines = ['goos: linux', 'goarch: amd64', 'pkg: example.com/bench', 'cpu: Generated CPU @ 2.40GHz'];
  let size = 0;
  for (let i = 0; size < TARGET_BYTES; i++) {
    const line = `BenchmarkGenerated/size=${i >> 4}-2   \t 1000000\t      ${(1234.5 + (i % 97)).toFixed(1)} ns/op\t  ${(812.25 + i % 13).toFixed(2)} MB/s\t     ${64 + (i % 7)} B/op\t       ${1 + (i % 3)} allocs/op`;
    lines.push(line);
    size += line.length + 1;
  }
  lines.push('PASS', 'ok  \texample.com/bench\t12.345s');
  return lines.join('\n');
}

function mbPerSecond(bytes: number, ms: number): string {
  return `${(bytes / 1024 / 1024 / (ms / 1000)).toFixed(0)} MB/s`;
}

export function benchReaders(): string[] {
  const lines: string[] = ['## Readers (50 MB generated inputs, best of 3)', ''];
  const cases: { label: string; reader: Reader; text: string; json: boolean }[] = [
    { label: 'Google Benchmark JSON', reader: googleBenchmarkReader, text: googleBenchmarkJson(), json: true },
    { label: 'Go bench text', reader: goBenchReader, text: goBenchText(), json: false },
  ];
  lines.push('| input | size | benchbot reader | JSON.parse, same bytes | ratio (target <= 2x for JSON) |', '| --- | --- | --- | --- | --- |');
  for (const c of cases) {
    const file = { path: c.label, text: c.text };
    const readerMs = bestOf(3, () => c.reader.read(file));
    // JSON.parse on the Go text would throw; parse the same number of bytes as a JSON string instead.
    const jsonText = c.json ? c.text : JSON.stringify(c.text);
    const parseMs = bestOf(3, () => JSON.parse(jsonText));
    const ratio = readerMs / parseMs;
    lines.push(`| ${c.label} | ${(c.text.length / 1024 / 1024).toFixed(1)} MB | ${readerMs.toFixed(0)} ms (${mbPerSecond(c.text.length, readerMs)}) | ${parseMs.toFixed(0)} ms (${mbPerSecond(jsonText.length, parseMs)}) | ${ratio.toFixed(2)}x${c.json ? (ratio <= 2 ? ' (met)' : ' (MISSED)') : ''} |`);
  }
  return lines;
}
