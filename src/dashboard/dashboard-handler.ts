/**
 * dashboard-handler: `benchbot serve --dashboard` serves the same pages as
 * the static site at /dashboard/, built from the store as they are asked
 * for (a PostgreSQL deployment has no files to publish). The overview and
 * the run table are rebuilt at most every `ttlMs`; a series page is built
 * from that one series' rows. Every answer carries the pages' CSP.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Store } from '../store/store.ts';
import { CONTENT_SECURITY_POLICY, indexHtml } from './index-html.ts';
import { readAcks, readGroups, readIssues, RunTable, toSeries, type SeriesGroup } from './read-history.ts';
import { buildSeries, seriesId, type OverviewJson, type RunsJson, type ScanDecisions } from './site-model.ts';
import { buildSite, decisionKey, type SiteAssets, type SiteSettings } from './write-site.ts';

/** DASHBOARD_PATH is where `benchbot serve --dashboard` serves the pages. */
export const DASHBOARD_PATH = '/dashboard';

/** DashboardHandlerOptions: the store, what to show (as `benchbot dashboard`), the bundle, how long a built overview is reused (default 60 s). */
export interface DashboardHandlerOptions {
  store: Store;
  settings: Omit<SiteSettings, 'generated'>;
  assets: SiteAssets;
  ttlMs?: number;
  now?: () => number;
}

interface Built {
  at: number;
  overview: string;
  runs: string;
  table: RunTable;
  groups: Map<string, Omit<SeriesGroup, 'parts'>>;
  /** decisions: the scan the overview was built with, so that a series page says what its overview row says. */
  decisions: Map<string, ScanDecisions>;
}

/** createDashboardHandler returns a request handler that answers (and returns true) for paths under DASHBOARD_PATH only. */
export function createDashboardHandler(options: DashboardHandlerOptions): (req: IncomingMessage, res: ServerResponse) => Promise<boolean> {
  const now = options.now ?? Date.now;
  const ttl = options.ttlMs ?? 60_000;
  let building: Promise<Built> | undefined;
  let built: Built | undefined;
  const html = indexHtml(options.settings.title);

  const rebuild = (): Promise<Built> => {
    building ??= (async () => {
      try {
        const groups = new Map<string, Omit<SeriesGroup, 'parts'>>();
        const site = await buildSite(options.store, { ...options.settings, generated: new Date(now()).toISOString(), samplesNights: 0 }, () => undefined, (g) => groups.set(seriesId(g), { ...g }));
        built = { at: now(), overview: JSON.stringify(site.overview satisfies OverviewJson), runs: JSON.stringify(site.runs satisfies RunsJson), table: site.table, groups, decisions: site.decisions };
        return built;
      } finally {
        building = undefined;
      }
    })();
    return building;
  };
  const current = async (): Promise<Built> => (built && now() - built.at < ttl ? built : rebuild());

  const series = async (id: string): Promise<string | undefined> => {
    for (let attempt = 0; attempt < 2; attempt++) {
      const site = attempt === 0 ? await current() : await rebuild();
      const g = site.groups.get(id);
      if (!g) continue;
      const [found] = (await readGroups(options.store, { repo: g.repo, branch: g.branch, benchmark: g.benchmark, metric: g.metric }, options.settings.samplesNights ?? 30)).filter((x) => x.machine === g.machine && (x.repo ?? '') === (g.repo ?? ''));
      if (!found) continue;
      // A night newer than the overview's run table: rebuild once, so the page and its runs agree.
      if (found.parts.some((p) => p.runs.some((r) => site.table.has(r) === false))) continue;
      const [acks, issues] = await Promise.all([readAcks(options.store), readIssues(options.store)]);
      const siblings = [...site.groups.entries()].filter(([, x]) => x.repo === g.repo && x.branch === g.branch && x.benchmark === g.benchmark && x.metric === g.metric).map(([sid, x]) => ({ id: sid, machineLabel: x.machineLabel }));
      const key = `${g.branch}:${g.benchmark}:${g.metric}:${g.machine}`;
      const { page } = buildSeries(toSeries(found, site.table), site.table.rows, { acks: acks.filter((a) => a.series === key), issues: issues.filter((i) => i.series === key), siblings, decisions: site.decisions.get(decisionKey(g.repo, key)) }, options.settings);
      return JSON.stringify(page);
    }
    return undefined;
  };

  return async (req, res) => {
    const path = new URL(req.url ?? '/', 'http://app').pathname;
    if (path !== DASHBOARD_PATH && !path.startsWith(`${DASHBOARD_PATH}/`)) return false;
    if (req.method !== 'GET' && req.method !== 'HEAD') {
      res.writeHead(405, { allow: 'GET, HEAD', 'content-type': 'text/plain' }).end('method not allowed\n');
      return true;
    }
    const send = (status: number, type: string, body: string, cache = 'no-cache') => {
      res.writeHead(status, {
        'content-type': type, 'content-length': Buffer.byteLength(body), 'cache-control': cache, 'content-security-policy': CONTENT_SECURITY_POLICY,
        'x-content-type-options': 'nosniff', 'referrer-policy': 'no-referrer', 'x-frame-options': 'DENY',
      });
      res.end(req.method === 'HEAD' ? undefined : body);
    };
    const rest = path.slice(DASHBOARD_PATH.length);
    if (rest === '') {
      res.writeHead(301, { location: `${DASHBOARD_PATH}/` }).end();
      return true;
    }
    if (rest === '/' || rest === '/index.html') send(200, 'text/html; charset=utf-8', html);
    else if (rest === '/dashboard.js') send(200, 'text/javascript; charset=utf-8', options.assets.js, 'max-age=300');
    else if (rest === '/dashboard.css') send(200, 'text/css; charset=utf-8', options.assets.css, 'max-age=300');
    else if (rest === '/data/overview.json') send(200, 'application/json', (await current()).overview);
    else if (rest === '/data/runs.json') send(200, 'application/json', (await current()).runs);
    else {
      const match = /^\/data\/series\/([0-9a-f]{16})\.json$/.exec(rest);
      const page = match ? await series(match[1]) : undefined;
      if (page === undefined) send(404, 'text/plain; charset=utf-8', 'not found\n');
      else send(200, 'application/json', page);
    }
    return true;
  };
}
