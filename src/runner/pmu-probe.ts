import type { Executor } from './executor.ts';
import { parsePerfStatCsv } from './perf-counters.ts';

/**
 * probePmu asks `perf stat` where the benchmarks run whether the machine
 * counts instructions in hardware: a PMU is what `perf record` samples
 * with. Most cloud VMs and containers have none (`perf stat` prints
 * `<not supported>`), and then only callgrind can say where a change
 * lives. `detail` says what was found, in words for the report.
 */
export async function probePmu(executor: Executor, cwd: string): Promise<{ available: boolean; detail: string }> {
  const probe = await executor.run('command -v perf >/dev/null 2>&1 || { echo "# perf: not installed"; exit 0; }; perf stat -x, -e instructions -- true 2>&1 >/dev/null', { cwd, timeoutMs: 30_000 });
  const out = probe.stdout;
  if (out.includes('# perf: not installed')) return { available: false, detail: 'perf is not installed (Debian: linux-perf)' };
  if (probe.exitCode !== 0) return { available: false, detail: `perf stat failed (${(probe.stderr || out).trim().split('\n')[0] ?? ''})` };
  const { measurements, unsupported } = parsePerfStatCsv(out);
  if (measurements.some((m) => m.metric === 'instructions')) return { available: true, detail: 'perf stat counts instructions in hardware' };
  return { available: false, detail: `perf stat reads ${unsupported.length > 0 ? `<not supported> for ${unsupported.join(', ')}` : 'no instruction count'}: no usable PMU (common in VMs)` };
}
