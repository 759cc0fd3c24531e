import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { explainAwaiting } from '../jobs/confirm-findings.ts';
import { openRepository, RunnerError } from '../runner/git-checkout.ts';
import { percentFlag } from './threshold-flags.ts';
import { confirmedRegressions, renderScanMarkdown, toScanJson } from '../report/scan-report.ts';
import type { Ack, Series } from '../scan/series.ts';
import { openStore } from '../store/open-store.ts';
import { ACK_PREFIX, nightlySeriesBatches } from '../jobs/nightly-history.ts';
import { repositoryUrl, scanStoredNightlies } from '../jobs/nightly.ts';
import { cliSetting } from '../jobs/setting-names.ts';
import { choose, parseFlags, UsageError } from './usage-error.ts';

export const SCAN_USAGE = `usage: benchbot scan [--store URL] [--branch main] [--repository OWNER/NAME] [--repo DIR] [--output markdown|json] [--threshold 2%]

Scans the nightly history (runs stored with role nightly) of one branch for
regressions: per series (benchmark x metric x machine), E-divisive change
points and a fast alert on nightly medians, each reported as a regression
only once the interleaved A/B of its last good and first bad commit (stored
by the nightly job) confirms it, else as awaiting; FDR across all series.
A machine change (kernel, governor, toolchain) starts a new segment.
Acknowledged changes (benchbot ack) start a new baseline.

options:
  --store URL         history store: a SQLite path or postgres://… (default .benchbot/benchbot.db; env BENCHBOT_DATABASE_URL)
  --branch NAME       branch whose nightlies to scan (default main)
  --repository O/N   only runs stored for this GitHub repository, OWNER/NAME (default: any); also links
                      commits in markdown
  --repo DIR          the checkout to look for the commits of findings that await their interleaved A/B in
                      (default: the current directory, when it is one): each says whether benchbot nightly
                      can measure it there, or why it cannot (its commits are gone)
  --output O          markdown | json (default markdown)
  --threshold X       smallest change that matters, a percentage: 2% or 2; 0.5%, never a bare 0.5 (default 2%)
  --max-age N         do not report changes whose first bad night is more than N nights old (default 30)

exit status: 0 no confirmed regression, 1 at least one (a one-night watch does not count), 2 usage or store error`;

export const ACK_USAGE = `usage: benchbot ack SERIES --at SHA --reason TEXT [--store URL] [--time ISO] [--repo DIR]

Marks an expected change of one series (as benchbot scan names it,
BRANCH:BENCHMARK:METRIC:MACHINE) at a commit: the next scans do not alert
at or before it, and a new baseline starts there.

options:
  --at SHA            the commit of the change: a nightly's SHA (a prefix of at least 7 is enough) or, with a time, any commit
  --reason TEXT       why the change is expected (required; kept with the ack)
  --time ISO          when SHA is not a nightly: the baseline starts at the first nightly at or after this time
                      (default: the commit's committer date, read from --repo)
  --repo DIR          repository to read that date from (default .)
  --store URL         history store (default .benchbot/benchbot.db; env BENCHBOT_DATABASE_URL)`;

/**
 * checkoutOf is the repository the scan looks for the commits of awaiting
 * findings in: --repo DIR, else the current directory when it is one (else
 * none, and the scan cannot tell whether they are measurable here).
 */
function checkoutOf(dir: string | undefined, cwd: string): string | undefined {
  if (dir !== undefined) {
    if (!existsSync(resolve(cwd, dir))) throw new UsageError(`--repo ${dir}: --repo is a directory in every benchbot command; scan takes the GitHub repository as --repository OWNER/NAME (--repo DIR: the checkout whose commits the awaiting findings need)`);
    return openRepository(resolve(cwd, dir), cliSetting);
  }
  try {
    return openRepository(cwd, cliSetting);
  } catch (error) {
    if (error instanceof RunnerError) return undefined;
    throw error;
  }
}

/** runScan implements `benchbot scan`. */
export async function runScan(args: string[], out: (text: string) => void): Promise<number> {
  const { values: v } = parseFlags(args, {
    store: { type: 'string' }, branch: { type: 'string' }, repository: { type: 'string' }, repo: { type: 'string' }, output: { type: 'string' },
    threshold: { type: 'string' }, 'max-age': { type: 'string' },
  }, false);
  const checkout = checkoutOf(v.repo as string | undefined, process.cwd());
  const output = choose('--output', (v.output as string | undefined) ?? 'markdown', ['markdown', 'json']);
  const threshold = v.threshold === undefined ? 0.02 : percentFlag('--threshold', v.threshold as string, true);
  const maxAge = v['max-age'] === undefined ? 30 : Number(v['max-age']);
  if (!Number.isInteger(maxAge) || maxAge < 1) throw new UsageError(`--max-age ${v['max-age']}: give a whole number of nights, e.g. 30`);
  const branch = (v.branch as string | undefined) ?? 'main';
  const repo = v.repository as string | undefined;
  const store = await openStore(v.store as string | undefined, { cwd: process.cwd(), mustExist: true });
  try {
    const { result, series } = await scanStoredNightlies(store, { branch, repository: repo, threshold, maxAgeNights: maxAge, nameSetting: cliSetting });
    // What each awaiting finding waits for, and whether its commits are in the checkout to measure it at all.
    await explainAwaiting(store, result.awaiting, checkout);
    const options = { series, threshold, branch, repoUrl: repositoryUrl(repo, process.env.GITHUB_SERVER_URL) };
    out(output === 'json' ? JSON.stringify(toScanJson(result, options), null, 2) : renderScanMarkdown(result, options));
    return confirmedRegressions(result).length > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

/** runAck implements `benchbot ack`. */
export async function runAck(args: string[], out: (text: string) => void): Promise<number> {
  const { values: v, positionals } = parseFlags(args, {
    at: { type: 'string' }, reason: { type: 'string' }, store: { type: 'string' }, time: { type: 'string' }, repo: { type: 'string' },
  }, true);
  if (positionals.length !== 1) throw new UsageError('ack needs exactly one SERIES, as benchbot scan names it (BRANCH:BENCHMARK:METRIC:MACHINE)');
  const wanted = positionals[0];
  const at = v.at as string | undefined;
  const reason = (v.reason as string | undefined)?.trim();
  if (!at) throw new UsageError('--at is required: the commit of the expected change');
  if (!reason) throw new UsageError('--reason is required: say why the change is expected');
  const time = v.time as string | undefined;
  if (time !== undefined && !Number.isFinite(Date.parse(time))) throw new UsageError(`--time ${time}: give an ISO 8601 time, e.g. 2026-03-01T02:00:00Z`);
  const colon = wanted.indexOf(':');
  if (colon <= 0) throw new UsageError(`SERIES ${wanted}: write it as benchbot scan does, BRANCH:BENCHMARK:METRIC:MACHINE`);
  const branch = wanted.slice(0, colon);
  const store = await openStore(v.store as string | undefined, { cwd: process.cwd(), mustExist: true });
  try {
    // Batch by batch: only the series asked for is kept, and the names of the others for the message.
    const all: string[] = [];
    let series: Series | undefined;
    for await (const batch of nightlySeriesBatches(store, { branch })) {
      for (const s of batch) {
        all.push(s.key as string);
        if (s.key === wanted && !series) series = s;
      }
    }
    if (!series) {
      const close = all.filter((k) => k.startsWith(wanted) || wanted.startsWith(k.slice(0, k.lastIndexOf(':'))));
      throw new UsageError(`SERIES ${wanted}: no such nightly series in ${store.location}${close.length > 0 ? `; did you mean ${close.slice(0, 5).join(', ')}?` : `; benchbot scan --output json lists them (${all.length} on branch ${branch})`}`);
    }
    const nights = series.nights.filter((n) => at.length >= 7 && n.sha.startsWith(at));
    if (nights.length > 1 && new Set(nights.map((n) => n.sha)).size > 1) throw new UsageError(`--at ${at}: ambiguous, matches ${[...new Set(nights.map((n) => n.sha))].join(', ')}; give more digits`);
    let sha = nights[0]?.sha ?? at;
    let ackTime = time;
    if (nights.length === 0 && ackTime === undefined) {
      const log = spawnSync('git', ['-C', (v.repo as string | undefined) ?? '.', 'log', '-1', '--format=%H %cI', at], { encoding: 'utf8' });
      const [full, date] = log.status === 0 ? log.stdout.trim().split(' ') : [];
      if (!full || !date) throw new UsageError(`--at ${at}: not a nightly of ${wanted}, and not a commit of ${(v.repo as string | undefined) ?? 'this repository'}; give --time ISO (the baseline starts at the first nightly at or after it) or --repo DIR`);
      sha = full;
      ackTime = date;
    }
    const ack: Ack & { createdAt: string } = { series: wanted, sha, ...(ackTime !== undefined ? { time: ackTime } : {}), reason, createdAt: new Date().toISOString() };
    await store.putState(`${ACK_PREFIX}${wanted}:${sha}`, ack);
    out(`acknowledged ${wanted} at ${sha}${ackTime !== undefined ? ` (from ${ackTime})` : ''}: ${reason}`);
    return 0;
  } finally {
    await store.close();
  }
}
