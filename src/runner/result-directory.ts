import { readCriterionDirectory } from '../formats/criterion.ts';
import { checkMeasurementText } from '../formats/check-measurement-text.ts';
import type { ReadOutcome } from '../formats/detect.ts';
import { FormatError } from '../formats/format-error.ts';
import { formatCount, MAX_DIRECTORY_FILES, MAX_INPUT_BYTES } from '../formats/input-limits.ts';
import type { SourceFile } from '../formats/reader.ts';
import { shellQuote } from './local-executor.ts';
import { cliSetting, type NameSetting } from '../jobs/setting-names.ts';

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
//   one result directory do not read each other's results. Clearing beats
//   comparing modification times: it needs no clock shared between benchbot
//   and the measuring machine, and busybox `find -newer` compares whole
//   seconds.
// - after it, those files are packed with `tar` (which the ssh executor
//   needs anyway; one process per few thousand files, where a shell loop
//   cost about 15 ms per benchmark in forks) into one bundle file in the
//   checkout, which the executor fetches like any result file. Links
//   anywhere below the directory are refused (the code under test wrote it;
//   docs/security.md), only regular files are packed, a file above the
//   input limit is refused before it is read, and the stream is cut at the
//   limit, all inside the round's timeout.
//
// When the path is not a directory after the round, the bundle says so and
// the path is fetched as a result file, as before; when nothing is there,
// the bundle says that too, and the round fails with a message instead of a
// stack trace from the copy.

/** RESULT_BUNDLE is the file, in the checkout, that the wrapped round packs a result directory into. */
export const RESULT_BUNDLE = '.benchbot-result-bundle';

const MAGIC = 'benchbot-result-bundle 2 ';
/** NAME_BYTES is how much of a refused file's name the bundle keeps for the error. */
const NAME_BYTES = 512;
/** TAR_LIMIT is where the packed stream is cut: the bundle, header line included, stays within MAX_INPUT_BYTES. */
const TAR_LIMIT = MAX_INPUT_BYTES - 1024;
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
  return [
    `if [ -d ${path} ]; then`,
    `  (cd ${path} && find . -type f ${RESULT_FILES} -exec rm -f {} +) || { echo ${shellQuote(`benchbot: cannot remove the previous round's criterion results (*/new/sample.json) in ${resultPath}`)} >&2; exit 125; }`,
    'fi',
    `sh -c ${shellQuote(command)}`,
    'benchbot_status=$?',
    `benchbot_bundle="$PWD/${RESULT_BUNDLE}"`,
    `if [ -d ${path} ]; then`,
    '  (',
    `    cd ${path} || { printf '${MAGIC}unlisted\\n'; exit 0; }`,
    `    benchbot_name=$(find . -type l -print | head -c ${NAME_BYTES})`,
    `    if [ -n "$benchbot_name" ]; then printf '${MAGIC}link\\n%s' "$benchbot_name"; exit 0; fi`,
    `    benchbot_name=$(find . -type f ${RESULT_FILES} -size +${MAX_INPUT_BYTES}c -print | head -c ${NAME_BYTES})`,
    `    if [ -n "$benchbot_name" ]; then printf '${MAGIC}too-large\\n%s' "$benchbot_name"; exit 0; fi`,
    `    printf '${MAGIC}tar\\n'`,
    // COPYFILE_DISABLE: macOS tar would add AppleDouble `._` files.
    `    find . -type f ${RESULT_FILES} -exec env COPYFILE_DISABLE=1 tar -cf - {} + | head -c ${TAR_LIMIT}`,
    `  ) > "$benchbot_bundle"`,
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
export function parseResultBundle(bytes: Buffer, resultPath: string, name: NameSetting = cliSetting): ResultBundle {
  const display = resultPath.replace(/\/+$/, '') || '/';
  const fail = (message: string): never => {
    throw new FormatError(display, undefined, message);
  };
  const headerEnd = bytes.indexOf(0x0a);
  const header = bytes.subarray(0, headerEnd < 0 ? Math.min(bytes.length, 64) : headerEnd).toString('latin1');
  if (!header.startsWith(MAGIC)) fail(`the round left no readable ${RESULT_BUNDLE} (did the bench command remove or overwrite it?)`);
  const kind = header.slice(MAGIC.length);
  const named = () => JSON.stringify(bytes.subarray(headerEnd + 1).toString('utf8').split('\n')[0].replace(/^\.\//, ''));
  switch (kind) {
    case 'not-a-directory':
      return { kind };
    case 'missing':
      return fail(`does not exist after the round: the bench command wrote no results there (${name('result-file')} is relative to the checkout)`);
    case 'link':
      return fail(`holds a symbolic link (${named()}); benchbot does not follow links inside a result directory (they may point outside it): let the benchmark write regular files there`);
    case 'too-large':
      return fail(`holds a result file (${named()}) above ${formatCount(MAX_INPUT_BYTES)} bytes; benchbot reads inputs of at most ${formatCount(MAX_INPUT_BYTES)} bytes (${MAX_INPUT_BYTES / 1024 / 1024} MiB)`);
    case 'unlisted':
      return fail('is a directory the round cannot enter (are its permissions right?)');
    case 'tar':
      return { kind: 'directory', files: readTar(bytes.subarray(headerEnd + 1), display, fail) };
    default:
      return fail(`the round left a damaged ${RESULT_BUNDLE} (kind ${JSON.stringify(kind.slice(0, 40))})`);
  }
}

const BLOCK = 512;

/** text reads a NUL-terminated header field. */
function field(block: Buffer, offset: number, length: number): string {
  const raw = block.subarray(offset, offset + length);
  const end = raw.indexOf(0);
  return raw.subarray(0, end < 0 ? length : end).toString('utf8');
}

/**
 * readTar reads the regular files of one or more concatenated tar streams
 * (what `find -exec tar -cf - {} +` writes when it runs tar more than once):
 * ustar, GNU long names (`L`) and pax `path`/`size` records (`x`), as GNU
 * tar, busybox, toybox and bsdtar write them. Headers are checked by their
 * checksum; a link or any other special entry is refused. Paths lose their
 * leading `./` and get `display/` before them.
 */
function readTar(tar: Buffer, display: string, fail: (message: string) => never): SourceFile[] {
  const damaged = (what: string): never => fail(`the round left a damaged ${RESULT_BUNDLE} (${what})`);
  const files: SourceFile[] = [];
  let longName: string | undefined;
  let paxPath: string | undefined;
  let paxSize: number | undefined;
  let at = 0;
  while (at + BLOCK <= tar.length) {
    const block = tar.subarray(at, at + BLOCK);
    // Zero blocks end each archive; another may follow.
    if (block[0] === 0 && block.every((b) => b === 0)) {
      at += BLOCK;
      continue;
    }
    const stored = field(block, 148, 8).trim();
    let sum = 0;
    for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 0x20 : block[i];
    if (!/^[0-7]{1,8}$/.test(stored) || parseInt(stored, 8) !== sum) damaged(`bad tar header checksum at byte ${at}`);
    const sizeText = field(block, 124, 12).trim();
    if (!/^[0-7]{1,12}$/.test(sizeText)) damaged(`bad tar size at byte ${at}`);
    const size = paxSize ?? parseInt(sizeText, 8);
    const start = at + BLOCK;
    const end = start + size;
    if (end > tar.length) {
      if (tar.length >= TAR_LIMIT) fail(`criterion's result files (*/new/sample.json and */new/benchmark.json) hold more than ${formatCount(TAR_LIMIT)} bytes together; benchbot reads at most that much from one round: run fewer benchmarks per round`);
      damaged(`truncated at byte ${tar.length}; a file changed while it was packed?`);
    }
    const data = tar.subarray(start, end);
    const type = String.fromCharCode(block[156]);
    at = start + Math.ceil(size / BLOCK) * BLOCK;
    if (type === 'L') {
      longName = field(data, 0, data.length);
      continue;
    }
    if (type === 'x') {
      ({ path: paxPath, size: paxSize } = paxRecords(data, damaged));
      continue;
    }
    if (type === 'g') continue;
    const ustar = field(block, 257, 5) === 'ustar';
    const prefix = ustar ? field(block, 345, 155) : '';
    const name = paxPath ?? longName ?? (prefix !== '' ? `${prefix}/${field(block, 0, 100)}` : field(block, 0, 100));
    longName = paxPath = paxSize = undefined;
    if (type === '5') continue;
    if (type === '1' || type === '2') fail(`holds a link (${JSON.stringify(name.replace(/^\.\//, ''))}); benchbot does not follow links inside a result directory (they may point outside it): let the benchmark write regular files there`);
    if (type !== '0' && type !== '\0' && type !== '7') damaged(`tar entry of type ${JSON.stringify(type)} for ${JSON.stringify(name)}`);
    if (files.length >= MAX_DIRECTORY_FILES) {
      fail(`holds more than ${formatCount(MAX_DIRECTORY_FILES)} result files (new/*.json); benchbot reads at most that many from one round: run fewer benchmarks per round`);
    }
    files.push({ path: `${display === '/' ? '' : display}/${name.replace(/^(\.\/)+/, '')}`, text: data.toString('utf8') });
  }
  if (at !== tar.length) damaged(`${tar.length - at} stray bytes at the end`);
  files.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return files;
}

/** paxRecords reads the `path` and `size` of a pax extended header: records of `LENGTH key=value\n`, LENGTH counting the whole record in bytes. */
function paxRecords(data: Buffer, damaged: (what: string) => never): { path?: string; size?: number } {
  const out: { path?: string; size?: number } = {};
  let at = 0;
  while (at < data.length && data[at] !== 0) {
    const space = data.indexOf(0x20, at);
    const lengthText = space < 0 ? '' : data.subarray(at, space).toString('latin1');
    if (!/^\d{1,9}$/.test(lengthText)) damaged('bad pax record');
    const end = at + Number(lengthText);
    if (end > data.length || end <= space || data[end - 1] !== 0x0a) damaged('bad pax record');
    const record = data.subarray(space + 1, end - 1);
    const eq = record.indexOf(0x3d);
    if (eq < 0) damaged('bad pax record');
    const key = record.subarray(0, eq).toString('utf8');
    const value = record.subarray(eq + 1).toString('utf8');
    if (key === 'path') out.path = value;
    if (key === 'size') {
      if (!/^\d{1,12}$/.test(value)) damaged('bad pax size');
      out.size = Number(value);
    }
    at = end;
  }
  return out;
}

/**
 * readResultDirectory reads a round's result directory from its bundled
 * files: criterion's results (readCriterionDirectory), the only directory
 * format. `format`, when given, must be `criterion`. A directory in which
 * the round wrote no `<benchmark>/new/sample.json` is an error that says
 * what a criterion directory holds.
 */
export function readResultDirectory(files: SourceFile[], resultPath: string, format: string | undefined, name: NameSetting = cliSetting): ReadOutcome {
  const display = resultPath.replace(/\/+$/, '') || '/';
  if (format !== undefined && format !== 'criterion') {
    throw new FormatError(display, undefined, `is a directory; a result directory is read as criterion's (target/criterion): use ${name('format')} criterion or leave ${name('format')} out, or name a result file`);
  }
  if (!files.some((f) => f.path.endsWith('/new/sample.json'))) {
    throw new FormatError(
      display,
      undefined,
      "is a directory, but the round wrote no criterion results in it (no <benchmark>/new/sample.json): name criterion's output directory (target/criterion, or $CARGO_TARGET_DIR/criterion) and check that the bench command runs criterion benchmarks without --discard-baseline (criterion then writes nothing), e.g. cargo bench --bench NAME -- --noplot",
    );
  }
  const result = readCriterionDirectory(files);
  checkMeasurementText(display, result);
  return { format: 'criterion', ...result };
}
