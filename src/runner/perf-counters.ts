import type { Measurement } from '../model/measurement.ts';

/** PERF_EVENTS are the hardware counters `--counters` records per round. */
export const PERF_EVENTS = ['instructions', 'cycles', 'branch-misses', 'cache-misses'] as const;

/** perfStatPrefix wraps a command so `perf stat` writes CSV counters to outFile. */
export function perfStatPrefix(outFile: string): string {
  return `perf stat -x, -e ${PERF_EVENTS.join(',')} -o ${outFile} --`;
}

/**
 * parsePerfStatCsv reads `perf stat -x,` output (value,unit,event,run time,
 * percentage,...) into one-value measurements of the benchmark `command`.
 * Counters the machine does not support (`<not supported>`, `<not counted>`,
 * common in VMs) are returned by name in `unsupported` instead.
 */
export function parsePerfStatCsv(text: string, benchmark = 'command'): { measurements: Measurement[]; unsupported: string[] } {
  const measurements: Measurement[] = [];
  const unsupported: string[] = [];
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || line.trim() === '') continue;
    const [value, , event] = line.split(',');
    if (event === undefined) continue;
    const name = event.replace(/:u$/, '').replace(/^cpu_(core|atom)\//, '').replace(/\/$/, '');
    const number = Number(value);
    if (value.startsWith('<') || !Number.isFinite(number)) {
      unsupported.push(name);
      continue;
    }
    measurements.push({ benchmark, metric: name, unit: 'count', better: 'lower', values: [number] });
  }
  return { measurements, unsupported };
}
