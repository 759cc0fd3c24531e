import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Merge is one pull request merged into main of a MergeRepo. */
export interface Merge {
  sha: string;
  pr: number;
  subject: string;
  author: string;
}

/** MergeRepo is a throwaway repository: `good` (the first commit), `merges` on main oldest first, `bad` = the last merge. */
export interface MergeRepo {
  dir: string;
  good: string;
  bad: string;
  merges: Merge[];
  culprit: Merge;
}

/**
 * MergeRepoOptions: `merges` pull requests (default 32) merged with
 * `git merge --no-ff` style commits ("Merge pull request #N from ..."),
 * PR numbers from `firstPr` (default 101); merge number `culprit` (1-based)
 * multiplies `parse` by `factor` (default 1.08) and leaves `hash` alone;
 * merges listed in `broken` commit a broken.txt that makes build.sh fail
 * (the next merge removes it). `noise` is the bench's relative noise
 * (default 0.005).
 */
export interface MergeRepoOptions {
  merges?: number;
  culprit: number;
  factor?: number;
  broken?: number[];
  firstPr?: number;
  noise?: number;
  /**
   * otherCluster (1-based merge): the first round ever run of that merge
   * puts the machine in the other cluster of a bimodal benchmark for the
   * next `clusterRounds` rounds (default 9) of every checkout: whatever
   * runs then measures `clusterFactor` (default 0.88) times as long. It is
   * the xxhash case: a session of the culprit that lands in the fast
   * cluster and looks good.
   */
  otherCluster?: number;
  clusterRounds?: number;
  clusterFactor?: number;
}

// The bench prints plain `name: value unit` lines. Its noise is awk's seeded
// rand: the seed mixes the round (a counter file in the checkout) with the
// commit's salt, so every commit has its own deterministic noise.
// The cluster state lives in the repository's common git dir, which every
// worktree of it shares: the machine, not the checkout, is in a cluster.
const BENCH = (noise: number, cluster: { rounds: number; factor: number }) => `#!/bin/sh
n=$(cat .round 2>/dev/null || echo 0); n=$((n+1)); echo $n > .round
common=$(git rev-parse --git-common-dir)
if [ "$(cat trigger.txt 2>/dev/null)" = 1 ] && [ ! -f "$common/cluster-triggered" ]; then touch "$common/cluster-triggered"; echo ${cluster.rounds} > "$common/cluster-left"; fi
left=$(cat "$common/cluster-left" 2>/dev/null || echo 0); phase=1
if [ "$left" -gt 0 ]; then phase=${cluster.factor}; echo $((left-1)) > "$common/cluster-left"; fi
awk -v seed="$n" -v salt="$(cat salt.txt)" -v slow="$(cat slow.txt)" -v phase="$phase" -v noise="\${BENCH_NOISE:-${noise}}" 'BEGIN { srand(seed * 7919 + salt); printf "parse: %.5f us\\n", 100 * (1 + noise * (rand() - 0.5)) * slow * phase; printf "hash: %.5f us\\n", 50 * (1 + noise * (rand() - 0.5)) * phase }'
`;
const BUILD = `#!/bin/sh
if [ -f broken.txt ]; then echo "error: $(cat broken.txt)" >&2; exit 1; fi
touch built.flag
`;

const AUTHORS = ['Ana Lima <ana@example.test>', 'Bo Chen <bo@example.test>', 'Chidi Okafor <chidi@example.test>', 'Dana Weiss <dana@example.test>'];

/**
 * makeMergeRepo writes the whole history with one `git fast-import` (fast
 * and byte-for-byte deterministic: fixed authors and dates) and returns the
 * SHAs. Each pull request is one commit on a topic branch and its merge.
 */
export function makeMergeRepo(options: MergeRepoOptions): MergeRepo {
  const count = options.merges ?? 32;
  const firstPr = options.firstPr ?? 101;
  const factor = options.factor ?? 1.08;
  const broken = new Set(options.broken ?? []);
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-merges-'));
  const env = { ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1' };
  execFileSync('git', ['init', '-q', '-b', 'main', dir], { env });
  const chunks: string[] = [];
  const data = (text: string) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let clock = 1_767_225_600; // 2026-01-01T00:00:00Z
  const who = (author: string) => {
    clock += 3600;
    return `author ${author} ${clock} +0000\ncommitter Maintainer <maintainer@example.test> ${clock} +0000\n`;
  };
  const file = (path: string, text: string, mode = '100644') => `M ${mode} inline ${path}\n${data(text)}`;
  chunks.push(`commit refs/heads/main\nmark :1\n${who(AUTHORS[0])}${data('Initial benchmark suite')}`);
  chunks.push(file('bench.sh', BENCH(options.noise ?? 0.005, { rounds: options.clusterRounds ?? 9, factor: options.clusterFactor ?? 0.88 }), '100755'), file('build.sh', BUILD, '100755'), file('slow.txt', '1\n'), file('salt.txt', '0\n'), file('.gitignore', '.round\nbuilt.flag\n.benchbot/\n'), '\n');
  let main = 1;
  let mark = 1;
  let slow = 1;
  const subjects: { pr: number; subject: string; author: string }[] = [];
  for (let i = 1; i <= count; i++) {
    const pr = firstPr + i - 1;
    const author = AUTHORS[i % AUTHORS.length];
    if (i === options.culprit) slow = factor;
    const changes = [file('salt.txt', `${i}\n`), file('slow.txt', `${slow}\n`), file('trigger.txt', `${i === options.otherCluster ? 1 : 0}\n`)];
    if (broken.has(i)) changes.push(file('broken.txt', `merge ${i} does not compile\n`));
    else if (broken.has(i - 1)) changes.push('D broken.txt\n');
    const topic = ++mark;
    chunks.push(`commit refs/heads/topic-${i}\nmark :${topic}\n${who(author)}${data(`Change ${i}`)}from :${main}\n${changes.join('')}\n`);
    const merge = ++mark;
    const subject = `Merge pull request #${pr} from octo/topic-${i}`;
    chunks.push(`commit refs/heads/main\nmark :${merge}\n${who(AUTHORS[0])}${data(`${subject}\n\nChange ${i}`)}from :${main}\nmerge :${topic}\n${changes.join('')}\n`);
    chunks.push(`reset refs/heads/topic-${i}\nfrom 0000000000000000000000000000000000000000\n\n`);
    main = merge;
    subjects.push({ pr, subject, author: author.replace(/ <.*$/, '') });
  }
  const marksFile = join(dir, '.git', 'benchbot-marks');
  execFileSync('git', ['-C', dir, 'fast-import', '--quiet', `--export-marks=${marksFile}`], { input: chunks.join(''), env });
  execFileSync('git', ['-C', dir, 'reset', '-q', '--hard', 'main'], { env });
  const marks = new Map(readFileSync(marksFile, 'utf8').trim().split('\n').map((l) => l.split(' ') as [string, string]));
  const merges = subjects.map((s, i) => ({ ...s, sha: marks.get(`:${3 + 2 * i}`) as string }));
  return { dir, good: marks.get(':1') as string, bad: merges[merges.length - 1].sha, merges, culprit: merges[options.culprit - 1] };
}
