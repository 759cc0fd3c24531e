import { closeSync, constants, copyFileSync, existsSync, fstatSync, lstatSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import type { ProfileDiff, ProfileSource } from '../model/profile-diff.ts';
import { FormatError } from '../formats/format-error.ts';
import { PROFILES_MANIFEST, profileFileName, readArtifactProfiles } from '../formats/profile-artifact.ts';

/**
 * The results artifact is the only thing that crosses from the measuring job
 * (which ran the repository's code, so everything in it may be forged) to
 * the report job (which holds the write token). It carries raw rows, never
 * a conclusion the report job would take on trust:
 *
 * - `base.json`, `head.json`: each side's samples in benchbot JSON
 *   (docs/benchbot-json.md), with failed benchmarks as `error` entries,
 *   the harness's machine facts as `hints` and its name as `harness`;
 * - `report.json`: the measuring job's own report, of which the report job
 *   reads only `head_sha` and `base_sha` (to check them against the SHAs it
 *   was given) and `environment` (shown as inert text);
 * - `history.json` (nightly): the branch's nightly history, see nightly-history.ts;
 * - `profiles.json` and `profiles/N.base.callgrind`, `profiles/N.head.callgrind`:
 *   the callgrind files of the regressed benchmarks' differential profiles,
 *   which the report job reads and diffs again (for the benchmarks its own
 *   recomputed report finds regressed), never taking the measuring job's diff.
 */
export const RESULTS_FILES = { base: 'base.json', head: 'head.json', report: 'report.json', history: 'history.json', profiles: PROFILES_MANIFEST } as const;

/** MAX_PROFILE_FILE_BYTES bounds one callgrind file the report job reads (a benchmark's profile with --toggle-collect is kilobytes to a few megabytes). */
export const MAX_PROFILE_FILE_BYTES = 32 * 1024 * 1024;

/** MAX_RESULTS_FILE_BYTES bounds every artifact file the report job reads: far above any real suite, below what JSON.parse can hold. */
export const MAX_RESULTS_FILE_BYTES = 256 * 1024 * 1024;

/**
 * MAX_HISTORY_FILE_BYTES bounds a nightly's history.json, which carries the
 * scan windows of every series (283 MB for a year of 10,000 series): just
 * below V8's longest string (2^29 - 24 characters), the most readFileSync
 * can hand JSON.parse. Its sample count is bounded as well (MAX_HISTORY_VALUES).
 */
export const MAX_HISTORY_FILE_BYTES = 500 * 1024 * 1024;

/**
 * ResultsError is a results artifact the report job cannot use: missing,
 * malformed, or about other commits than the ones this run reports on.
 */
export class ResultsError extends Error {
  override name = 'ResultsError';
}

/** COMMIT_SHA matches a full commit id (SHA-1, or SHA-256 repositories). */
export const COMMIT_SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/**
 * samplesJson writes one side as benchbot JSON: values, failed benchmarks
 * as `error` entries, hints, and the harness that measured them (which
 * the report job's default threshold of counted work follows).
 */
export function samplesJson(side: { measurements: readonly Measurement[]; warnings: readonly ReadWarning[]; hints: FingerprintHints; harness?: string }): string {
  const benchmarks: Record<string, unknown>[] = side.measurements.map((m) => ({ benchmark: m.benchmark, metric: m.metric, unit: m.unit, better: m.better, values: m.values }));
  for (const w of side.warnings) {
    if (w.kind !== 'error' || w.benchmark === undefined) continue;
    // The reader prefixes `benchmark "NAME" failed: ` again when it reads the entry back.
    const prefix = `benchmark "${w.benchmark}" failed: `;
    benchmarks.push({ benchmark: w.benchmark, error: w.message.startsWith(prefix) ? w.message.slice(prefix.length) : w.message });
  }
  const hints = Object.keys(side.hints).length > 0 ? { hints: side.hints } : {};
  return JSON.stringify({ $schema: 'benchbot-json/1', version: 1, ...(side.harness !== undefined ? { harness: side.harness } : {}), ...hints, benchmarks });
}

/**
 * findResultsParts lists the directories under `dir` (itself, or one level
 * down: one per downloaded artifact) that hold both sample files, sorted.
 */
export function findResultsParts(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const dirs = [dir, ...readdirSync(dir, { withFileTypes: true }).filter((e) => e.isDirectory()).map((e) => join(dir, e.name))];
  // lstat, not exists: a link counts as there (and is then refused by name), whether or not its target exists.
  return dirs.filter((d) => present(join(d, RESULTS_FILES.base)) && present(join(d, RESULTS_FILES.head))).sort();
}

function present(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false }) !== undefined;
}

/** ResultsMeta is what the report job reads from a part's report.json, each field checked. */
export interface ResultsMeta {
  headSha?: string;
  baseSha?: string;
  environment?: string;
}

/**
 * readResultsMeta reads `head_sha`, `base_sha` and `environment` from a
 * part's report.json. A missing file gives nothing; a field of the wrong
 * shape is an error (the artifact was written by benchbot or by someone
 * else, and the latter is not reported on).
 */
export function readResultsMeta(dir: string): ResultsMeta {
  const path = join(dir, RESULTS_FILES.report);
  if (!existsSync(path)) return {};
  const root = parseResultsJson(path);
  const sha = (key: string): string | undefined => {
    const value = root[key];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'string' || !COMMIT_SHA.test(value)) throw new ResultsError(`${path}: ${key} is not a full commit SHA`);
    return value;
  };
  const environment = typeof root.environment === 'string' && root.environment.length <= 300 ? root.environment : undefined;
  return { headSha: sha('head_sha'), baseSha: sha('base_sha'), environment };
}

/** parseResultsJson reads a JSON object from an artifact file: a regular file (no link), size-capped. */
export function parseResultsJson(path: string, maxBytes = MAX_RESULTS_FILE_BYTES): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(readCapped(path, maxBytes));
  } catch (error) {
    if (error instanceof ResultsError) throw error;
    throw new ResultsError(`${path}: not JSON (${(error as Error).message})`);
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new ResultsError(`${path}: expected a JSON object`);
  return value as Record<string, unknown>;
}

function readCapped(path: string, maxBytes: number): string {
  let fd: number;
  try {
    fd = openSync(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch (error) {
    throw new ResultsError(`${path}: cannot be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); artifacts hold regular files, not links`);
  }
  try {
    const stat = fstatSync(fd);
    if (!stat.isFile()) throw new ResultsError(`${path}: not a regular file`);
    if (stat.size > maxBytes) throw new ResultsError(`${path}: ${stat.size} bytes; the report job reads at most ${maxBytes}`);
    return readFileSync(fd, 'utf8');
  } finally {
    closeSync(fd);
  }
}

/**
 * writeProfileSources puts the profiler files of a run's profiles into the
 * results directory: profiles.json lists, per profile, the benchmark, the
 * iterations of each side and the tool when it is perf, and the files are
 * `profiles/N.base.callgrind` and `profiles/N.head.callgrind` (perf:
 * `.perf.txt`).
 */
export function writeProfileSources(dir: string, sources: readonly ProfileSource[]): void {
  if (sources.length === 0) return;
  mkdirSync(join(dir, dirname(profileFileName(0, 'base'))), { recursive: true });
  sources.forEach((s, i) => {
    copyFileSync(s.base.file, join(dir, profileFileName(i, 'base', s.tool)));
    copyFileSync(s.head.file, join(dir, profileFileName(i, 'head', s.tool)));
  });
  writeFileSync(join(dir, RESULTS_FILES.profiles), `${JSON.stringify(sources.map((s) => ({ benchmark: s.benchmark, base_iterations: s.base.iterations, head_iterations: s.head.iterations, ...(s.tool === 'perf' ? { tool: s.tool } : {}), ...(s.scope === 'command' ? { scope: s.scope } : {}) })))}\n`);
}

/**
 * readProfiles is the report job's side: the profiles of `benchmarks` (the
 * ones its recomputed report finds regressed) diffed again from the
 * artifact's callgrind files (formats/profile-artifact.ts), each read
 * size-capped and never through a link.
 */
export function readProfiles(part: string, benchmarks: ReadonlySet<string>, shas: { base?: string; head?: string }): { profiles: ProfileDiff[]; notes: string[]; sources: ProfileSource[] } {
  const read = (name: string, max: number): string | null => {
    const path = join(part, name);
    if (!present(path)) return null;
    try {
      return readCapped(path, max);
    } catch (error) {
      if (error instanceof ResultsError) throw new FormatError(name, undefined, error.message);
      throw error;
    }
  };
  let manifest: string | null;
  try {
    manifest = read(PROFILES_MANIFEST, 1024 * 1024);
  } catch (error) {
    return { profiles: [], notes: [(error as Error).message], sources: [] };
  }
  const found = readArtifactProfiles(manifest, (name) => read(name, MAX_PROFILE_FILE_BYTES), benchmarks, shas);
  // The files of the profiles read, for the report job's own artifact (the app reads that one).
  const sources = found.used.map((u) => ({ benchmark: u.benchmark, tool: u.tool, ...(u.scope === undefined ? {} : { scope: u.scope }), base: { file: join(part, profileFileName(u.index, 'base', u.tool)), iterations: u.baseIterations }, head: { file: join(part, profileFileName(u.index, 'head', u.tool)), iterations: u.headIterations } }));
  return { profiles: found.profiles, notes: found.notes, sources };
}
