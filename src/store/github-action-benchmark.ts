import { JsonReader, parseJsonDocument } from '../formats/json-document.ts';
import { directionOf } from '../model/units.ts';
import { isGabTimeUnit, spellUnit } from '../formats/gab-custom.ts';
import type { Direction, Measurement } from '../model/measurement.ts';
import type { IngestRun, Store } from './store.ts';

/** GabImportOptions override what the file says or lacks: `repo` (owner/name) and `branch` of the history (default GAB_DEFAULT_BRANCH). */
export interface GabImportOptions {
  repo?: string;
  branch?: string;
}

/**
 * GAB_DEFAULT_BRANCH is the branch imported history is stored under when
 * the import names none: data.js does not record it, github-action-benchmark
 * is set up to record pushes to the default branch, and `benchbot scan`
 * scans `main` by default, so an import followed by a scan finds the nights.
 */
export const GAB_DEFAULT_BRANCH = 'main';

/** GAB_DEFAULT_SUITE is the suite name github-action-benchmark uses when the workflow names none. */
export const GAB_DEFAULT_SUITE = 'Benchmark';

const PREFIX = /^\uFEFF?\s*window\.BENCHMARK_DATA\s*=\s*/;

/**
 * looksLikeGabData says whether the start of a file is github-action-benchmark's
 * history (data.js, or its external JSON, which opens with `lastUpdate`), so
 * that importing it as a benchbot export names the missing `--from` instead
 * of failing on line 1.
 */
export function looksLikeGabData(start: string): boolean {
  return PREFIX.test(start) || /^\uFEFF?\s*\{\s*"(lastUpdate|repoUrl)"\s*:/.test(start);
}

/**
 * parseGithubActionBenchmark reads the history github-action-benchmark keeps
 * on its gh-pages branch: `data.js` (`window.BENCHMARK_DATA = {...}`) or the
 * plain JSON of its `external-data-json-path` option. It is pure and treats
 * the input as hostile: any structural problem is a FormatError naming the
 * file and the line (syntax) or JSON path (`entries["Benchmark"][3].benches[0].value`).
 *
 * Mapping: each entry of each suite becomes one `nightly` run at
 * `commit.id`, timed by the entry's `date` (epoch ms, when the action ran),
 * with an empty fingerprint (the action records none) and harness
 * `github-action-benchmark/<tool>`. Each bench becomes a measurement with its
 * single value; metric `time` for time units, else `value`; the unit as
 * written, except `µs`/`μs` spelled `us`. Direction: the `customBiggerIsBetter`
 * and `customSmallerIsBetter` tools state it, otherwise directionOf(metric,
 * unit) decides (which agrees with the action for its built-in tools). When
 * the file holds more than one suite, benchmark names are prefixed with
 * `<suite>/` so equal names in different suites stay apart. `range` and
 * `extra` are summary text and are dropped; every run carries a
 * `summary-only` warning, since one value per commit gives the statistics
 * nothing to test. The repo comes from `repoUrl` (https://github.com/OWNER/NAME)
 * unless `options.repo` says otherwise; the branch is `options.branch`,
 * else GAB_DEFAULT_BRANCH.
 */
export function parseGithubActionBenchmark(text: string, file: string, options: GabImportOptions = {}): { repo?: string; runs: IngestRun[] } {
  const prefix = PREFIX.exec(text);
  // Blank the prefix out instead of cutting it, so JSON syntax errors keep their line numbers.
  let body = prefix ? prefix[0].replace(/[^\n]/g, ' ') + text.slice(prefix[0].length) : text;
  body = body.replace(/;\s*$/, (m) => m.replace(';', ' '));
  const root = parseJsonDocument({ path: file, text: body });
  const j = new JsonReader(file);
  const data = j.object(root, '$');
  const entries = j.object(data.entries, 'entries');
  const repoUrl = j.optionalString(data.repoUrl, 'repoUrl');
  const repo = options.repo ?? repoFromUrl(repoUrl);
  const suites = Object.keys(entries);
  const runs: IngestRun[] = [];
  for (const suite of suites) {
    const suitePath = `entries[${JSON.stringify(suite)}]`;
    const list = j.array(entries[suite], suitePath);
    list.forEach((item, i) => {
      const path = `${suitePath}[${i}]`;
      const entry = j.object(item, path);
      const commit = j.object(entry.commit, `${path}.commit`);
      const sha = j.string(commit.id, `${path}.commit.id`);
      if (sha.trim() === '' || sha.length > 200) j.fail(`${path}.commit.id`, 'expected a commit id');
      const tool = j.string(entry.tool, `${path}.tool`);
      const time = entryTime(j, entry, commit, path);
      const benches = j.array(entry.benches, `${path}.benches`);
      const measurements: Measurement[] = [];
      const byKey = new Map<string, Measurement>();
      benches.forEach((b, k) => {
        const bp = `${path}.benches[${k}]`;
        const bench = j.object(b, bp);
        const name = j.string(bench.name, `${bp}.name`);
        if (name.trim() === '') j.fail(`${bp}.name`, 'must not be empty');
        const value = j.number(bench.value, `${bp}.value`);
        const unit = spellUnit(j.string(bench.unit, `${bp}.unit`));
        const metric = isGabTimeUnit(unit) ? 'time' : 'value';
        const benchmark = suites.length > 1 ? `${suite}/${name}` : name;
        const key = `${benchmark}\u0000${metric}\u0000${unit}`;
        const seen = byKey.get(key);
        // The same bench twice in one entry is two samples of one measurement.
        if (seen) seen.values.push(value);
        else {
          const m: Measurement = { benchmark, metric, unit, better: direction(tool, metric, unit), values: [value] };
          byKey.set(key, m);
          measurements.push(m);
        }
      });
      const run: IngestRun = {
        sha,
        role: 'nightly',
        fingerprint: {},
        time,
        harness: `github-action-benchmark/${tool}`,
        measurements,
        warnings: [{ kind: 'summary-only', message: `imported from github-action-benchmark (suite ${JSON.stringify(suite)}): one summary value per benchmark, no raw samples` }],
        hints: {},
      };
      if (repo !== undefined) run.repo = repo;
      run.branch = options.branch ?? GAB_DEFAULT_BRANCH;
      runs.push(run);
    });
  }
  return repo === undefined ? { runs } : { repo, runs };
}

/**
 * importGithubActionBenchmark parses a data.js (see parseGithubActionBenchmark)
 * and stores all its runs in ONE transaction; re-importing the same file adds
 * nothing, since runs are keyed by content.
 */
export async function importGithubActionBenchmark(
  store: Store,
  text: string,
  options: GabImportOptions & { file?: string } = {},
): Promise<{ repo?: string; runs: number; created: number }> {
  const parsed = parseGithubActionBenchmark(text, options.file ?? 'data.js', options);
  const result = await store.ingestRuns(parsed.runs);
  return { repo: parsed.repo, runs: parsed.runs.length, created: result.created };
}

function entryTime(j: JsonReader, entry: Record<string, unknown>, commit: Record<string, unknown>, path: string): string {
  if (entry.date !== undefined && entry.date !== null) {
    const ms = j.number(entry.date, `${path}.date`);
    const d = new Date(ms);
    if (!Number.isFinite(d.getTime())) j.fail(`${path}.date`, `${ms} is not a time in epoch milliseconds`);
    return d.toISOString();
  }
  const stamp = j.string(commit.timestamp, `${path}.commit.timestamp`);
  const ms = Date.parse(stamp);
  if (!Number.isFinite(ms) || !/^\d{4}-\d{2}-\d{2}T/.test(stamp)) j.fail(`${path}.commit.timestamp`, 'expected an ISO 8601 time');
  return new Date(ms).toISOString();
}

function direction(tool: string, metric: string, unit: string): Direction {
  if (tool === 'customBiggerIsBetter') return 'higher';
  if (tool === 'customSmallerIsBetter') return 'lower';
  return directionOf(metric, unit);
}


function repoFromUrl(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const m = /^https?:\/\/[^/]+\/([^/\s]+\/[^/\s]+?)(?:\.git)?\/?$/.exec(url.trim());
  return m ? m[1] : undefined;
}
