import type { Measurement, ReadWarning } from '../model/measurement.ts';
import { ReadBudget } from './input-limits.ts';
import { JsonReader, parseJsonDocument } from './json-document.ts';
import type { ReadResult, Reader, SourceFile } from './reader.ts';
import { sampleTimes, summaryTime, UniqueNames } from './js-bench-common.ts';

/**
 * vitestBenchReader reads the report `vitest bench --outputJson FILE` writes
 * (vitest 1 to 4; vitest 5 dropped the option):
 * `{"files":[{"filepath","groups":[{"fullName","benchmarks":[...]}]}]}`.
 *
 * Each benchmark is named `<group fullName> > <name>`, where the group's full
 * name starts with the bench file's path (`parse.bench.ts > sorting > sort
 * 100 numbers`), and is metric `time` in `ms` (tinybench's unit under
 * vitest). vitest 2 and later write `samples: []`, so each benchmark gives its
 * `median` (else `mean`) as one value, with one `summary-only` warning per
 * file; samples, where a report has them, are read one value each. A
 * benchmark that failed is not in the report at all.
 */
export const vitestBenchReader: Reader = {
  format: 'vitest-bench',
  description: 'vitest bench --outputJson report',

  sniff(head: string): boolean {
    return /^\s*\{\s*"files"\s*:\s*\[/.test(head) && /"groups"\s*:\s*\[/.test(head) && /"fullName"\s*:/.test(head);
  },

  read(file: SourceFile): ReadResult {
    const doc = parseJsonDocument(file);
    const j = new JsonReader(file.path);
    const root = j.object(doc, '$');
    const files = j.array(root.files, 'files');
    const budget = new ReadBudget(file.path);
    const names = new UniqueNames();
    const measurements: Measurement[] = [];
    let summaryOnly = false;

    files.forEach((rawFile, f) => {
      const fpath = `files[${f}]`;
      const groups = j.array(j.object(rawFile, fpath).groups, `${fpath}.groups`);
      groups.forEach((rawGroup, g) => {
        const gpath = `${fpath}.groups[${g}]`;
        const group = j.object(rawGroup, gpath);
        const fullName = j.string(group.fullName, `${gpath}.fullName`);
        j.array(group.benchmarks, `${gpath}.benchmarks`).forEach((rawBench, b) => {
          const path = `${gpath}.benchmarks[${b}]`;
          const bench = j.object(rawBench, path);
          const given = j.string(bench.name, `${path}.name`);
          const name = names.name(fullName === '' ? given : `${fullName} > ${given}`);
          if (name === '') j.fail(`${path}.name`, 'empty benchmark name');
          budget.series();
          const samples = sampleTimes(j, budget, bench.samples, `${path}.samples`);
          if (samples !== undefined) {
            measurements.push({ benchmark: name, metric: 'time', unit: 'ms', better: 'lower', values: samples });
            return;
          }
          const statistic = bench.median !== undefined && bench.median !== null ? 'median' : 'mean';
          measurements.push({ benchmark: name, metric: 'time', unit: 'ms', better: 'lower', values: [summaryTime(j, budget, bench[statistic], `${path}.${statistic}`)] });
          summaryOnly = true;
        });
      });
    });

    if (measurements.length === 0) j.fail('files', 'no benchmark results (did every bench fail, or did the run match no *.bench.ts file?)');
    const warnings: ReadWarning[] = summaryOnly
      ? [{ kind: 'summary-only', message: `${file.path}: vitest's --outputJson report keeps no samples, so each benchmark contributes its median as one value` }]
      : [];
    return { measurements, warnings, hints: {} };
  },
};
