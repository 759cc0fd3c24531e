import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * code-merge-repo: throwaway repositories of real code whose main branch
 * is pull request merges, for bisecting by counted work and by wall time.
 *
 * makeGoMergeRepo: a Go module with two benchmarks in the `go test -bench`
 * format, BenchmarkParse (the decimal fields of a record, each parsed
 * `passes` times, no allocation) and BenchmarkHash (FNV-1a over the
 * record). The culprit merge raises Parse's passes (25 to 26 by default:
 * +3.9% of its instructions) and leaves Hash alone. makeCNapRepo: a C
 * program whose culprit naps without working. Every other merge adds a
 * note, every third also touches the code without changing what it does.
 */

/** Merge is one pull request merged into main. */
export interface Merge {
  sha: string;
  pr: number;
  subject: string;
}

/** CodeMergeRepo is the repository: `good` (the first commit), `merges` oldest first, `bad` = the last merge, the `culprit`. */
export interface CodeMergeRepo {
  dir: string;
  good: string;
  bad: string;
  merges: Merge[];
  culprit: Merge;
}

const GO_MOD = 'module example.test/gadget\n\ngo 1.21\n';

const parseGo = (passes: number, comment: string) => `package gadget

// ${comment}

// parsePasses is how many times ParseRecord reads each field.
const parsePasses = ${passes}

func parseField(f []byte) int {
	n := 0
	for _, c := range f {
		if c >= '0' && c <= '9' {
			n = n*10 + int(c-'0')
		}
	}
	return n
}

// ParseRecord sums the decimal fields of a comma-separated record, reading each parsePasses times.
func ParseRecord(line []byte) int {
	sum := 0
	start := 0
	for i := 0; i <= len(line); i++ {
		if i == len(line) || line[i] == ',' {
			for p := 0; p < parsePasses; p++ {
				sum += parseField(line[start:i])
			}
			start = i + 1
		}
	}
	return sum
}
`;

const HASH_GO = `package gadget

// Hash is FNV-1a over the record, eight times.
func Hash(line []byte) uint64 {
	h := uint64(1469598103934665603)
	for r := 0; r < 8; r++ {
		for _, c := range line {
			h ^= uint64(c)
			h *= 1099511628211
		}
	}
	return h
}
`;

const BENCH_TEST_GO = `package gadget

import "testing"

var record = []byte("12,345,6789,101112,13,1415,161718,19,2021,222324,25,2627")
var sink int

func BenchmarkParse(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += ParseRecord(record)
	}
}

func BenchmarkHash(b *testing.B) {
	for i := 0; i < b.N; i++ {
		sink += int(Hash(record))
	}
}
`;

/** History is what the commits write: the `initial` files (path -> text) and the files merge i (1-based) changes. */
interface History {
  initial: Record<string, string>;
  changes: (i: number) => Record<string, string>;
}

/** writeHistory writes `count` pull request merges with one `git fast-import` (fixed authors and dates: the same SHAs every time). */
function writeHistory(prefix: string, count: number, culprit: number, history: History): CodeMergeRepo {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env });
  const chunks: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let clock = 1_767_225_600; // 2026-01-01T00:00:00Z
  const who = (name: string) => {
    clock += 3600;
    return `author ${name} ${clock} +0000\ncommitter Maintainer <maintainer@example.test> ${clock} +0000\n`;
  };
  const files = (f: Record<string, string>) => Object.entries(f).map(([path, text]) => `M 100644 inline ${path}\n${data(text)}`).join('');
  chunks.push(`commit refs/heads/main\nmark :1\n${who('Ana Lima <ana@example.test>')}${data('Initial benchmarks')}${files(history.initial)}\n`);
  let main = 1;
  let mark = 1;
  const subjects: { pr: number; subject: string }[] = [];
  for (let i = 1; i <= count; i++) {
    const pr = 100 + i;
    const changes = files({ [`notes/${pr}.txt`]: `change ${pr}\n`, ...history.changes(i) });
    const topic = ++mark;
    chunks.push(`commit refs/heads/topic-${i}\nmark :${topic}\n${who('Bo Chen <bo@example.test>')}${data(`Change ${i}`)}from :${main}\n${changes}\n`);
    const merge = ++mark;
    const subject = `Merge pull request #${pr} from octo/topic-${i}`;
    chunks.push(`commit refs/heads/main\nmark :${merge}\n${who('Ana Lima <ana@example.test>')}${data(`${subject}\n\nChange ${i}`)}from :${main}\nmerge :${topic}\n${changes}\n`);
    chunks.push(`reset refs/heads/topic-${i}\nfrom 0000000000000000000000000000000000000000\n\n`);
    main = merge;
    subjects.push({ pr, subject });
  }
  const marksFile = join(dir, '.git', 'benchbot-marks');
  execFileSync('git', ['-C', dir, 'fast-import', '--quiet', `--export-marks=${marksFile}`], { input: chunks.join(''), env });
  execFileSync('git', ['-C', dir, 'reset', '-q', '--hard', 'main'], { env });
  const marks = new Map(readFileSync(marksFile, 'utf8').trim().split('\n').map((l) => l.split(' ') as [string, string]));
  const merges = subjects.map((s, i) => ({ ...s, sha: marks.get(`:${3 + 2 * i}`) as string }));
  return { dir, good: marks.get(':1') as string, bad: merges[merges.length - 1].sha, merges, culprit: merges[culprit - 1] };
}

/**
 * makeGoMergeRepo is the Go module's history: `passes` is Parse's work
 * before the culprit (default 25), `culpritPasses` from it on (default
 * passes + 1). Every third merge touches parse.go without changing its
 * work (a comment): a code change is not a culprit by itself.
 */
export function makeGoMergeRepo(options: { merges?: number; culprit: number; passes?: number; culpritPasses?: number }): CodeMergeRepo {
  const passes = options.passes ?? 25;
  const after = options.culpritPasses ?? passes + 1;
  return writeHistory('benchbot-go-merges-', options.merges ?? 32, options.culprit, {
    initial: { 'go.mod': GO_MOD, 'parse.go': parseGo(passes, 'Package gadget parses records.'), 'hash.go': HASH_GO, 'bench_test.go': BENCH_TEST_GO, '.gitignore': '.benchbot/\n*.test\n' },
    changes: (i) => ({ 'parse.go': parseGo(i >= options.culprit ? after : passes, i % 3 === 0 ? `Package gadget parses records (revision ${i}).` : 'Package gadget parses records.') }),
  });
}

/**
 * bench.c of the C fixture: WORK rounds of an FNV-style hash (1 M: 5 M
 * instructions, a second under valgrind) after a nap of 10 ms (hyperfine
 * reads a command of a few ms as 0 once it subtracts the shell's start),
 * and from the culprit on NAP_US more: time the program spends without
 * doing any work (a lock wait, an I/O stall), which the wall clock sees
 * and an instruction count does not.
 */
const benchC = (napUs: number, comment: string) => `#include <stdint.h>
#include <stdio.h>
#include <unistd.h>

/* ${comment} */
#define WORK 1000000L
#define NAP_US ${napUs}

int main(void) {
  volatile uint64_t sink = 0;
  uint64_t h = 1469598103934665603ULL;
  usleep(10000 + NAP_US);
  for (long i = 0; i < WORK; i++) { h ^= (uint64_t)i; h *= 1099511628211ULL; }
  sink += h;
  printf("%llu\\n", (unsigned long long)sink);
  return 0;
}
`;

/**
 * makeCNapRepo is a C program timed as a whole (`--format command`) whose
 * merge `culprit` adds a nap of `napUs` microseconds (default 200,000:
 * plain on a machine whose load makes 10 ms of work take 20-65 ms) and
 * no work: a regression of wall time alone.
 */
export function makeCNapRepo(options: { merges?: number; culprit: number; napUs?: number }): CodeMergeRepo {
  return writeHistory('benchbot-c-merges-', options.merges ?? 16, options.culprit, {
    initial: { 'bench.c': benchC(0, 'a hash loop'), '.gitignore': '.benchbot/\nbench\n' },
    changes: (i) => ({ 'bench.c': benchC(i >= options.culprit ? (options.napUs ?? 200_000) : 0, i % 3 === 0 ? `a hash loop, revision ${i}` : 'a hash loop') }),
  });
}
