import { resolve } from 'node:path';
import { percentFlag } from './threshold-flags.ts';
import { githubRepoUrl } from '../dashboard/read-history.ts';
import { SITE_DEFAULTS } from '../dashboard/site-model.ts';
import { writeSite } from '../dashboard/write-site.ts';
import { openStore } from '../store/open-store.ts';
import { parseFlags, UsageError } from './usage-error.ts';
import { outputDirectory } from './output-paths.ts';

export const DASHBOARD_USAGE = `usage: benchbot dashboard --out DIR [--store URL] [--repository OWNER/NAME] [--branch NAME] [--title TEXT]

Writes a static site of the nightly history into DIR: an overview of every
series (latest value, change over 7 and 30 nights, what the nightly scan
decided about it, confirmed regressions first, a filter), a page per series
(nightly medians with their 95% CI, the scan's findings, acks, regression
issues and culprits, the raw samples of the newest nights, zoom and pan, a
permalink per series and time range) and the PR runs. A series is marked a
regression only when benchbot scan (run here, once per repository and
branch shown, with the same --threshold and --max-age) confirmed one;
findings awaiting their interleaved A/B, one-night watches and refuted ones
are marked as such. HTML, JavaScript and JSON only: publish DIR on GitHub Pages
or any static host, or look at it with python3 -m http.server -d DIR.

options:
  --out DIR             where to write the site (created; stale series files in it are removed)
  --store URL           history store (default .benchbot/benchbot.db; env BENCHBOT_DATABASE_URL)
  --repository O/N      only this GitHub repository's series, OWNER/NAME (default: every repository in the store)
  --branch NAME         only this branch's nightlies (default: every branch)
  --title TEXT          the site's title (default "benchbot: OWNER/NAME" or "benchbot")
  --samples-nights N    newest nights per series whose raw samples are published (default 30)
  --prs N               PR runs listed (default 100; 0 for none)
  --threshold X         smallest change that matters, a percentage: 2% or 2; 0.5%, never a bare 0.5
                        (default 2%), as benchbot scan --threshold
  --max-age N           findings whose first bad night is more than N nights old are not shown (default 30), as benchbot scan --max-age
  --max-items-in-chart N  the newest N nights per series page and chart (default: every night); the overview and the scan are unchanged`;

function count(value: string | undefined, flag: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n)) throw new UsageError(`${flag} ${value}: give a whole number, e.g. ${fallback}`);
  return n;
}

/** runDashboard implements `benchbot dashboard`. */
export async function runDashboard(args: string[], out: (text: string) => void): Promise<number> {
  const v: Record<string, string | boolean | undefined> = parseFlags(args, {
    out: { type: 'string' }, store: { type: 'string' }, repository: { type: 'string' }, repo: { type: 'string' }, branch: { type: 'string' }, title: { type: 'string' },
    'samples-nights': { type: 'string' }, prs: { type: 'string' }, threshold: { type: 'string' }, 'max-age': { type: 'string' }, 'max-items-in-chart': { type: 'string' },
  }, false).values;
  if (v.repo !== undefined) throw new UsageError(`--repo ${String(v.repo)}: --repo is a directory in every benchbot command; dashboard takes the GitHub repository as --repository OWNER/NAME`);
  const dir = v.out as string | undefined;
  if (!dir) throw new UsageError('--out DIR is required: the directory to write the site into');
  const threshold = v.threshold === undefined ? 0.02 : percentFlag('--threshold', v.threshold as string, true);
  const maxAgeNights = count(v['max-age'] as string | undefined, '--max-age', SITE_DEFAULTS.maxAgeNights);
  if (maxAgeNights < 1) throw new UsageError(`--max-age ${v['max-age']}: give a whole number of nights, at least 1, e.g. ${SITE_DEFAULTS.maxAgeNights}`);
  const maxItems = v['max-items-in-chart'] === undefined ? undefined : count(v['max-items-in-chart'] as string, '--max-items-in-chart', 365);
  if (maxItems !== undefined && maxItems < 2) throw new UsageError(`--max-items-in-chart ${v['max-items-in-chart']}: give a whole number of nights, at least 2, e.g. 365`);
  const repo = v.repository as string | undefined;
  const settings = {
    repo,
    branch: v.branch as string | undefined,
    title: (v.title as string | undefined) ?? (repo ? `benchbot: ${repo}` : 'benchbot'),
    samplesNights: count(v['samples-nights'] as string | undefined, '--samples-nights', 30),
    prs: count(v.prs as string | undefined, '--prs', 100),
    threshold,
    maxAgeNights,
    maxItemsInChart: maxItems,
    generated: new Date().toISOString(),
    repoUrl: githubRepoUrl(process.env.GITHUB_SERVER_URL ?? 'https://github.com'),
  };
  const store = await openStore(v.store as string | undefined, { cwd: process.cwd(), mustExist: true });
  try {
    outputDirectory('--out', dir);
    const started = performance.now();
    const result = await writeSite(store, resolve(dir), settings);
    const seconds = ((performance.now() - started) / 1000).toFixed(1);
    out(result.series === 0
      ? `wrote an empty dashboard to ${dir}: no nightly runs${repo ? ` of ${repo}` : ''}${settings.branch ? ` on branch ${settings.branch}` : ''} in ${store.location}`
      : `wrote the dashboard of ${result.series} series to ${dir} (${result.files} files, ${(result.bytes / 1e6).toFixed(1)} MB, ${seconds} s); `
        + `the nightly scan: ${result.scan.regression} confirmed regression(s), ${result.scan.awaiting} awaiting an interleaved A/B, ${result.scan.watch} on watch, ${result.scan.improvement} confirmed improvement(s), ${result.scan.refuted} refuted`);
    return 0;
  } finally {
    await store.close();
  }
}
