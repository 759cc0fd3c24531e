import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * nightly-repo: a throwaway C project whose main branch grows by pull
 * request merges, night by night, for `benchbot nightly` end to end. The
 * benchmark is real work: bench.c runs WORK rounds of an FNV-style hash
 * (work.h), times each of 5 repetitions with the process CPU clock and
 * prints `work: T us` lines (plain format). A merge that raises WORK is a
 * real step of the same size on every machine, whatever its speed.
 */

const BENCH_C = `#include <stdint.h>
#include <stdio.h>
#include <time.h>
#include "work.h"

int main(void) {
  volatile uint64_t sink = 0;
  for (int rep = 0; rep < 5; rep++) {
    struct timespec a, b;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &a);
    uint64_t h = 1469598103934665603ULL + (uint64_t)rep;
    for (long i = 0; i < WORK; i++) { h ^= (uint64_t)i; h *= 1099511628211ULL; }
    sink += h;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &b);
    printf("work: %.3f us\\n", (double)(b.tv_sec - a.tv_sec) * 1e6 + (double)(b.tv_nsec - a.tv_nsec) / 1e3);
  }
  return sink == 42 ? 1 : 0;
}
`;

/** NightlyRepo is the repository and how to grow it: `merge` adds one pull request to main and returns its merge commit. */
export interface NightlyRepo {
  dir: string;
  merge(options?: { work?: number }): { sha: string; pr: number };
}

/** makeNightlyRepo makes the project at WORK `work` (default 2,000,000 hash rounds per repetition) with one commit on main. */
export function makeNightlyRepo(work = 2_000_000): NightlyRepo {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-nightly-repo-'));
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1', GIT_AUTHOR_NAME: 'Ana Lima', GIT_AUTHOR_EMAIL: 'ana@example.test', GIT_COMMITTER_NAME: 'Ana Lima', GIT_COMMITTER_EMAIL: 'ana@example.test' };
  const git = (...args: string[]) => execFileSync('git', ['-C', dir, ...args], { env, encoding: 'utf8' }).trim();
  git('init', '-q', '-b', 'main');
  writeFileSync(join(dir, 'bench.c'), BENCH_C);
  writeFileSync(join(dir, 'work.h'), `#define WORK ${work}L\n`);
  writeFileSync(join(dir, 'build.sh'), '#!/bin/sh\nset -e\ncc -O2 -o bench bench.c\n', { mode: 0o755 });
  writeFileSync(join(dir, 'bench.sh'), '#!/bin/sh\nexec ./bench\n', { mode: 0o755 });
  writeFileSync(join(dir, '.gitignore'), 'bench\n');
  mkdirSync(join(dir, 'notes'));
  writeFileSync(join(dir, 'notes', '0.txt'), 'start\n');
  git('add', '.');
  git('commit', '-q', '-m', 'Initial commit');
  let pr = 100;
  return {
    dir,
    merge(options = {}) {
      pr++;
      const topic = `topic-${pr}`;
      git('checkout', '-q', '-b', topic);
      if (options.work !== undefined) writeFileSync(join(dir, 'work.h'), `#define WORK ${options.work}L\n`);
      writeFileSync(join(dir, 'notes', `${pr}.txt`), `change ${pr}\n`);
      // By path: the nightly's own state (.benchbot/) is no part of a pull request.
      git('add', 'notes', 'work.h');
      git('commit', '-q', '-m', options.work !== undefined ? `Hash ${options.work} rounds` : `Note ${pr}`);
      git('checkout', '-q', 'main');
      git('merge', '-q', '--no-ff', '-m', `Merge pull request #${pr} from octo/${topic}`, topic);
      git('branch', '-q', '-D', topic);
      return { sha: git('rev-parse', 'HEAD'), pr };
    },
  };
}
