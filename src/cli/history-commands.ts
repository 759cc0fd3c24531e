import { createReadStream, createWriteStream, openSync, readFileSync, readSync } from 'node:fs';
import { once } from 'node:events';
import { openStore } from '../store/open-store.ts';
import { exportNdjson } from '../store/export-ndjson.ts';
import { importNdjson, splitLines } from '../store/import-ndjson.ts';
import { GAB_DEFAULT_BRANCH, importGithubActionBenchmark, looksLikeGabData } from '../store/github-action-benchmark.ts';
import { choose, parseFlags, UsageError } from './usage-error.ts';
import { openOutputFile } from './output-paths.ts';

export const EXPORT_USAGE = `usage: benchbot export [--store URL] [--output FILE]

Writes the whole history (runs, fingerprints, every raw sample) as NDJSON to
FILE or stdout.`;

export const IMPORT_USAGE = `usage: benchbot import FILE [--store URL] [--from benchbot|github-action-benchmark] [--repository OWNER/NAME] [--branch NAME]

Adds history to the store in one transaction: a benchbot NDJSON export, or the
data.js that benchmark-action/github-action-benchmark keeps on gh-pages.
Importing the same file twice adds nothing.

options:
  --store URL             history store (default .benchbot/benchbot.db in the current directory; env BENCHBOT_DATABASE_URL)
  --from F                benchbot (default) | github-action-benchmark
  --repository O/N        github-action-benchmark: the GitHub repository, OWNER/NAME (default: data.js's repoUrl)
  --branch NAME           github-action-benchmark: the branch the nights belong to (default ${GAB_DEFAULT_BRANCH}, which
                          benchbot scan scans by default; data.js does not record it)`;

/** runExport implements `benchbot export`. */
export async function runExport(args: string[], out: (text: string) => void): Promise<number> {
  const { values } = parseFlags(args, { store: { type: 'string' }, output: { type: 'string', short: 'o' } }, false);
  const store = await openStore(values.store as string | undefined, { cwd: process.cwd(), mustExist: true });
  try {
    if (typeof values.output === 'string') {
      const file = createWriteStream('', { fd: openOutputFile('--output', values.output) });
      const result = await exportNdjson(store, async (chunk) => {
        if (!file.write(chunk)) await once(file, 'drain');
      });
      file.end();
      await once(file, 'finish');
      out(`exported ${result.runs} runs to ${values.output}`);
    } else {
      await exportNdjson(store, async (chunk) => {
        if (!process.stdout.write(chunk)) await once(process.stdout, 'drain');
      });
    }
    return 0;
  } finally {
    await store.close();
  }
}

/** firstBytes reads the start of a file without moving the stream that reads it next (a positional read; none on a pipe). */
function firstBytes(fd: number): string {
  const buffer = Buffer.alloc(256);
  try {
    return buffer.toString('utf8', 0, readSync(fd, buffer, 0, buffer.length, 0));
  } catch {
    return '';
  }
}

/** runImport implements `benchbot import`. */
export async function runImport(args: string[], out: (text: string) => void): Promise<number> {
  const { values, positionals } = parseFlags(args, { store: { type: 'string' }, from: { type: 'string' }, repository: { type: 'string' }, repo: { type: 'string' }, branch: { type: 'string' } }, true);
  if (values.repo !== undefined) throw new UsageError(`--repo ${String(values.repo)}: --repo is a directory in every benchbot command; import takes the GitHub repository as --repository OWNER/NAME`);
  if (positionals.length !== 1) throw new UsageError('import needs exactly one FILE (use - for stdin)');
  const from = choose('--from', (values.from as string | undefined) ?? 'benchbot', ['benchbot', 'github-action-benchmark']);
  const file = positionals[0];
  // A benchbot export is streamed a line at a time (a year of a 10,000-benchmark suite is 700 MB); data.js is small.
  let input: string | AsyncIterable<string>;
  try {
    if (from === 'benchbot') {
      const fd = file === '-' ? 0 : openSync(file, 'r');
      if (fd !== 0 && looksLikeGabData(firstBytes(fd))) {
        throw new UsageError(`${file} is github-action-benchmark's history (data.js), not a benchbot export: add --from github-action-benchmark`);
      }
      input = splitLines(createReadStream('', { fd, highWaterMark: 1 << 20 }), file);
    } else input = readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`${file}: cannot read this file`);
  }
  const store = await openStore(values.store as string | undefined, { cwd: process.cwd() });
  try {
    const result = typeof input !== 'string'
      ? await importNdjson(store, input, { file })
      : await importGithubActionBenchmark(store, input, { file, repo: values.repository as string | undefined, branch: values.branch as string | undefined });
    const branch = (values.branch as string | undefined) ?? GAB_DEFAULT_BRANCH;
    out(`imported ${result.runs} runs from ${file} (${result.created} new)${from === 'github-action-benchmark' ? ` as nightlies of branch ${branch}${values.branch === undefined ? ' (data.js does not say which branch; --branch NAME to choose)' : ''}` : ''}`);
    return 0;
  } finally {
    await store.close();
  }
}
