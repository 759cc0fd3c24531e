import { readCriterionDirectory } from '../formats/criterion.ts';
import { checkMeasurementText } from '../formats/check-measurement-text.ts';
import type { ReadOutcome } from '../formats/detect.ts';
import { FormatError } from '../formats/format-error.ts';
import { formatCount, MAX_DIRECTORY_FILES, MAX_INPUT_BYTES } from '../formats/input-limits.ts';
import type { SourceFile } from '../formats/reader.ts';
import { shellQuote } from './local-executor.ts';

// A `--result-file` may name a directory: criterion's `target/criterion`,
// where every benchmark keeps `new/` (the last run), `base/` (the run before,
// or a saved baseline) and `change/`. A round must contribute only what it
// wrote, so the round command is wrapped, on the machine that measures
// (local, ssh or device alike), in two POSIX sh steps:
//
// - before the bench command, every `*/new/sample.json` and
//   `*/new/benchmark.json` below the directory is deleted (nothing else:
//   `base/`, reports and estimates stay, so criterion's own `change:` lines
//   still work). What is there after the round was written by the round, so
//   a benchmark the bench command no longer runs (a filter, a removed
//   benchmark) is not read from an earlier round, and base and head sharing
//   one CARGO_TARGET_DIR do not read each other's results. Clearing beats
//   comparing modification times: it needs no clock shared between benchbot
//   and the measuring machine, and busybox `find -newer` compares whole
//   seconds.
// - after it, those files are packed into one bundle file in the checkout,
//   framed by byte counts, which the executor fetches like any result file.
//   Links anywhere below the directory are refused (the code under test
//   wrote it; docs/security.md), only regular files are packed, and packing
//   stops at MAX_INPUT_BYTES, all inside the round's timeout.
//
// When the path is not a directory after the round, the bundle says so and
// the path is fetched as a result file, as before; when nothing is there,
// the bundle says that too, and the round fails with a message instead of a
// stack trace from the copy.

/** RESULT_BUNDLE is the file, in the checkout, that the wrapped round packs a result directory into. */
export const RESULT_BUNDLE = '.benchbot-result-bundle';

const MAGIC = 'benchbot-result-bundle 1 ';
/** LINK_NAME_BYTES is how much of a refused link's name the bundle keeps for the error. */
const LINK_NAME_BYTES = 512;
/** RECORD_OVERHEAD is what the packing script counts per file for the record header (two numbers, a space, a newline). */
const RECORD_OVERHEAD = 32;
const RESULT_FILES = `\\( -path '*/new/sample.json' -o -path '*/new/benchmark.json' \\)`;

/** quotedPath quotes a result path for sh, with `./` before a relative path so that `find` never takes it for an option. */
function quotedPath(path: string): string {
  return shellQuote(path.startsWith('/') ? path : `./${path}`);
}

/**
 * wrapForResultDirectory returns `command` (one shell command line, run in
 * the checkout) wrapped so that, when `resultPath` is a directory, the
 * round clears the previous round's criterion results first and packs this
 * round's into RESULT_BUNDLE afterwards. The command runs in its own `sh
 * -c`, so an `exit` in it cannot skip the packing; its exit status is the
 * round's. A failure to clear fails the round (exit 125) with a message.
 */
export function wrapForResultDirectory(command: string, resultPath: string): string {
  const path = quotedPath(resultPath);
  const pack = [
    // $0 is the bundle: its size so far starts the running total.
    'total=$(wc -c < "$0") || exit 1',
    'total=$((total))',
    'for f; do',
    `  n=$(wc -c < "$f") || { printf '! unreadable\\n'; exit 0; }`,
    '  n=$((n))',
    '  l=$(printf %s "$f" | wc -c)',
    '  l=$((l))',
    `  total=$((total + n + l + ${RECORD_OVERHEAD}))`,
    `  if [ "$total" -gt ${MAX_INPUT_BYTES} ]; then printf '! too-large\\n'; exit 0; fi`,
    `  printf '%s %s\\n%s' "$l" "$n" "$f"`,
    // Exactly n bytes: a file that grew since it was measured cannot break the framing.
    '  head -c "$n" "$f"',
    'done',
  ].join('\n');
  return [
    `if [ -d ${path} ]; then`,
    `  (cd ${path} && find . -type f ${RESULT_FILES} -exec rm -f {} +) || { echo ${shellQuote(`benchbot: cannot remove the previous round's criterion results (*/new/sample.json) in ${resultPath}`)} >&2; exit 125; }`,
    'fi',
    `sh -c ${shellQuote(command)}`,
    'benchbot_status=$?',
    `benchbot_bundle="$PWD/${RESULT_BUNDLE}"`,
    `if [ -d ${path} ]; then`,
    '  (',
    `    cd ${path} || exit 1`,
    `    benchbot_link=$(find . -type l -print | head -c ${LINK_NAME_BYTES})`,
    `    if [ -n "$benchbot_link" ]; then printf '${MAGIC}link\\n%s' "$benchbot_link"; exit 0; fi`,
    `    printf '${MAGIC}directory\\n'`,
    `    find . -type f ${RESULT_FILES} -exec sh -c ${shellQuote(pack)} "$benchbot_bundle" {} +`,
    `  ) > "$benchbot_bundle" || printf '${MAGIC}unlisted\\n' > "$benchbot_bundle"`,
    `elif [ ! -e ${path} ]; then`,
    `  printf '${MAGIC}missing\\n' > "$benchbot_bundle"`,
    'else',
    `  printf '${MAGIC}not-a-directory\\n' > "$benchbot_bundle"`,
    'fi',
    'exit $benchbot_status',
  ].join('\n');
}

/** ResultBundle is what a wrapped round left: the directory's result files (paths relative to it), or word that the result path is no directory. */
export type ResultBundle = { kind: 'not-a-directory' } | { kind: 'directory'; files: SourceFile[] };

/**
 * parseResultBundle reads the bundle a wrapped round packed. `resultPath`
 * is the `--result-file` value, named in errors and put before each file's
 * path (`target/criterion/fib/new/sample.json`), so that the criterion
 * reader can name a benchmark from its path. Throws FormatError naming the
 * result path for a link, a directory over the limits, or a damaged bundle.
 */
export function parseResultBundle(bytes: Buffer, resultPath: string): ResultBundle {
  const display = resultPath.replace(/\/+$/, '') || '/';
  const fail = (message: string): never => {
    throw new FormatError(display, undefined, message);
  };
  const headerEnd = bytes.indexOf(0x0a);
  const header = bytes.subarray(0, headerEnd < 0 ? Math.min(bytes.length, 64) : headerEnd).toString('latin1');
  if (!header.startsWith(MAGIC)) fail(`the round left no readable ${RESULT_BUNDLE} (did the bench command remove or overwrite it?)`);
  const kind = header.slice(MAGIC.length);
  if (kind === 'not-a-directory') return { kind };
  if (kind === 'missing') fail('does not exist after the round: the bench command wrote no results there (--result-file is relative to the checkout)');
  if (kind === 'link') {
    const name = bytes.subarray(headerEnd + 1).toString('utf8').split('\n')[0].replace(/^\.\//, '');
    fail(`holds a symbolic link (${JSON.stringify(name)}); benchbot does not follow links inside a result directory (they may point outside it): let the benchmark write regular files there`);
  }
  if (kind === 'unlisted') fail('is a directory that could not be listed or read completely (find failed; are its permissions right?)');
  if (kind !== 'directory') fail(`the round left a damaged ${RESULT_BUNDLE} (kind ${JSON.stringify(kind.slice(0, 40))})`);

  const files: SourceFile[] = [];
  let at = headerEnd + 1;
  while (at < bytes.length) {
    const lineEnd = bytes.indexOf(0x0a, at);
    // Two numbers of at most 12 digits and a space: anything longer is damage, not a header.
    if (lineEnd < 0 || lineEnd - at > 26) fail(`the round left a damaged ${RESULT_BUNDLE} (no record header at byte ${at})`);
    const line = bytes.subarray(at, lineEnd).toString('latin1');
    if (line === '! too-large') fail(`criterion's result files (*/new/sample.json and */new/benchmark.json) hold more than ${formatCount(MAX_INPUT_BYTES)} bytes together; benchbot reads at most that much from one round: run fewer benchmarks per round or fewer samples (--sample-size)`);
    if (line === '! unreadable') fail("a result file (*/new/sample.json or */new/benchmark.json) vanished or could not be read while the round's results were collected");
    const numbers = /^(\d{1,12}) (\d{1,12})$/.exec(line);
    if (numbers === null) fail(`the round left a damaged ${RESULT_BUNDLE} (bad record header at byte ${at})`);
    const nameBytes = Number(numbers![1]);
    const size = Number(numbers![2]);
    const nameStart = lineEnd + 1;
    const textStart = nameStart + nameBytes;
    const end = textStart + size;
    if (end > bytes.length) fail(`the round left a truncated ${RESULT_BUNDLE} (a file changed while it was collected?)`);
    if (files.length >= MAX_DIRECTORY_FILES) {
      fail(`holds more than ${formatCount(MAX_DIRECTORY_FILES)} result files (new/*.json); benchbot reads at most that many from one round: run fewer benchmarks per round`);
    }
    const name = bytes.subarray(nameStart, textStart).toString('utf8').replace(/^\.\//, '');
    files.push({ path: `${display === '/' ? '' : display}/${name}`, text: bytes.subarray(textStart, end).toString('utf8') });
    at = end;
  }
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { kind: 'directory', files };
}

/**
 * readResultDirectory reads a round's result directory from its bundled
 * files: criterion's results (readCriterionDirectory), the only directory
 * format. `format`, when given, must be `criterion`. A directory in which
 * the round wrote no `<benchmark>/new/sample.json` is an error that says
 * what a criterion directory holds.
 */
export function readResultDirectory(files: SourceFile[], resultPath: string, format: string | undefined): ReadOutcome {
  const display = resultPath.replace(/\/+$/, '') || '/';
  if (format !== undefined && format !== 'criterion') {
    throw new FormatError(display, undefined, `is a directory; a result directory is read as criterion's (target/criterion): use --format criterion or leave --format out, or name a result file`);
  }
  if (!files.some((f) => f.path.endsWith('/new/sample.json'))) {
    throw new FormatError(
      display,
      undefined,
      "is a directory, but the round wrote no criterion results in it (no <benchmark>/new/sample.json): name criterion's output directory (target/criterion, or $CARGO_TARGET_DIR/criterion) and check that the bench command runs criterion benchmarks, e.g. cargo bench --bench NAME -- --noplot",
    );
  }
  const result = readCriterionDirectory(files);
  checkMeasurementText(display, result);
  return { format: 'criterion', ...result };
}
