import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';

/**
 * hyperfineReader reads `hyperfine --export-json` output.
 *
 * Each entry of `results` is one benchmark, named by its `command` field:
 * the command text with `--parameter-scan`/`--parameter-list` values already
 * substituted, or the `--command-name` given for it. Names that still repeat
 * (the same command twice, or one `-n` name for every parameter value) get
 * their parameters appended as ` (n=1, m=a)`, then ` #2`, ` #3`... in order.
 *
 * `times` (one wall-clock time per run, in seconds) becomes metric `time`,
 * unit `s`; `memory_usage_byte` (hyperfine 1.17+, peak memory per run)
 * becomes metric `memory`, unit `B`. A result without `times` (hyperfine
 * before 1.6) yields its `median` as a single value and a `summary-only`
 * warning. `user` and `system` are means only, so they are not read. A
 * command with non-zero exit codes (possible only under `-i`) keeps its
 * measurements and gets an `exit-code` warning; a null exit code means the
 * command was killed by a signal.
 */
export const hyperfineReader: Reader = {
  format: 'hyperfine',
  description: 'hyperfine --export-json',

  sniff(head: string): boolean {
    return /^\s*\{\s*"results"\s*:\s*\[/.test(head) && /"command"\s*:/.test(head) && /"(mean|times|stddev)"\s*:/.test(head);
  },

  read(file: SourceFile): ReadResult {
    const doc = parseJsonDocument(file);
    const j = new JsonReader(file.path);
    const root = j.object(doc, '$');
    const results = j.array(root.results, 'results');
    if (results.length === 0) j.fail('results', 'no benchmark results');

    const entries = results.map((raw, i) => {
      const path = `results[${i}]`;
      const r = j.object(raw, path);
      const command = j.string(r.command, `${path}.command`);
      const params: [string, string][] = [];
      if (r.parameters !== undefined && r.parameters !== null) {
        for (const [k, v] of Object.entries(j.object(r.parameters, `${path}.parameters`))) {
          params.push([k, j.string(v, `${path}.parameters.${k}`)]);
        }
      }
      return { path, r, command, params };
    });

    const names = uniqueNames(entries.map((e) => ({ name: e.command, params: e.params })));
    const measurements: Measurement[] = [];
    const warnings: ReadWarning[] = [];
    const budget = new ReadBudget(file.path);

    entries.forEach(({ path, r }, i) => {
      const benchmark = names[i];
      budget.series();
      if (r.times === undefined || r.times === null) {
        const median = j.number(r.median ?? r.mean, `${path}.${r.median === undefined || r.median === null ? 'mean' : 'median'}`);
        measurements.push({ benchmark, metric: 'time', unit: 's', better: 'lower', values: [median] });
        warnings.push({ benchmark, kind: 'summary-only', message: `${benchmark}: no per-run times (hyperfine before 1.6?); using the summary median as a single value` });
      } else {
        const times = j.numbers(r.times, `${path}.times`);
        if (times.length === 0) j.fail(`${path}.times`, 'no runs');
        if (times.some((t) => t < 0)) j.fail(`${path}.times`, 'negative time');
        measurements.push({ benchmark, metric: 'time', unit: 's', better: 'lower', values: times });
      }
      if (r.memory_usage_byte !== undefined && r.memory_usage_byte !== null) {
        const memory = j.numbers(r.memory_usage_byte, `${path}.memory_usage_byte`);
        if (memory.length > 0) measurements.push({ benchmark, metric: 'memory', unit: 'B', better: 'lower', values: memory });
      }
      if (r.exit_codes !== undefined && r.exit_codes !== null) {
        const codes = j.array(r.exit_codes, `${path}.exit_codes`).map((c, k) => (c === null ? null : j.number(c, `${path}.exit_codes[${k}]`)));
        const bad = codes.filter((c) => c !== 0);
        if (bad.length > 0) {
          const shown = [...new Set(bad.map((c) => (c === null ? 'signal' : String(c))))].join(', ');
          warnings.push({ benchmark, kind: 'exit-code', message: `${benchmark}: ${bad.length} of ${codes.length} runs exited non-zero (${shown}); hyperfine ran with -i` });
        }
      }
    });

    return { measurements, warnings, hints: {} };
  },
};

/** uniqueNames keeps each name, qualifies repeated ones by their parameters, then numbers what still repeats. */
function uniqueNames(items: { name: string; params: [string, string][] }[]): string[] {
  const count = (names: string[]) => names.reduce((m, n) => m.set(n, (m.get(n) ?? 0) + 1), new Map<string, number>());
  const plain = count(items.map((it) => it.name));
  const withParams = items.map((it) =>
    (plain.get(it.name) ?? 0) > 1 && it.params.length > 0 ? `${it.name} (${it.params.map(([k, v]) => `${k}=${v}`).join(', ')})` : it.name,
  );
  const repeated = count(withParams);
  const seen = new Map<string, number>();
  return withParams.map((n) => {
    if ((repeated.get(n) ?? 0) < 2) return n;
    const k = (seen.get(n) ?? 0) + 1;
    seen.set(n, k);
    return k === 1 ? n : `${n} #${k}`;
  });
}
