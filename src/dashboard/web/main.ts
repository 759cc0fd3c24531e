/**
 * The dashboard's pages: one static index.html, the route in the URL's
 * fragment (#/ the overview, #/series/ID?from=&to= a series and a time
 * range, #/prs the PR runs), data from data/*.json next to it. Everything
 * shown from the data is text (dom.ts).
 */
import 'uplot/dist/uPlot.min.css';
import './app.css';
import { SITE_VERSION, type OverviewJson, type RunsJson, type SeriesJson } from '../site-json.ts';
import { append, clear, h } from './dom.ts';
import { renderOverview } from './overview.ts';
import { renderPrs } from './prs.ts';
import { renderSeries, type Range } from './series-page.ts';

const main = document.getElementById('main') as HTMLElement;
const cache = new Map<string, Promise<unknown>>();
let cleanup: (() => void) | undefined;

function load<T extends { version: number }>(path: string): Promise<T> {
  let p = cache.get(path) as Promise<T> | undefined;
  if (!p) {
    p = fetch(path, { credentials: 'same-origin' }).then(async (res) => {
      if (!res.ok) throw new Error(res.status === 404 ? 'not found' : `HTTP ${res.status}`);
      const data = (await res.json()) as T;
      if (data.version !== SITE_VERSION) throw new Error(`data version ${data.version}, these pages read ${SITE_VERSION}: regenerate the site`);
      return data;
    });
    cache.set(path, p);
    p.catch(() => cache.delete(path));
  }
  return p;
}

/** route parses the fragment: the page and its query. */
function route(): { path: string; query: URLSearchParams } {
  const hash = location.hash.replace(/^#/, '') || '/';
  const q = hash.indexOf('?');
  return { path: q < 0 ? hash : hash.slice(0, q), query: new URLSearchParams(q < 0 ? '' : hash.slice(q + 1)) };
}

function replaceQuery(path: string, params: Record<string, string | undefined>): void {
  const query = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== '') query.set(k, v);
  const text = query.toString();
  history.replaceState(null, '', `#${path}${text ? `?${text}` : ''}`);
}

function toSeconds(text: string | null): number | undefined {
  if (text === null || text === '') return undefined;
  const ms = Date.parse(text);
  return Number.isFinite(ms) ? ms / 1000 : undefined;
}

function isoDay(seconds: number | undefined): string | undefined {
  return seconds === undefined ? undefined : new Date(seconds * 1000).toISOString().slice(0, 10);
}

function fail(message: string): void {
  clear(main);
  append(main, h('h2', {}, 'Not available'), h('p', { role: 'alert' }, message), h('p', {}, h('a', { href: '#/' }, 'Back to all series')));
  document.body.dataset.ready = 'error';
}

/** markFirstChart records when the first chart can be on screen: the frame after it was drawn (what bench/dashboard.ts measures). */
function markFirstChart(): void {
  requestAnimationFrame(() => performance.mark('benchbot:first-chart'));
}

async function show(): Promise<void> {
  cleanup?.();
  cleanup = undefined;
  document.body.dataset.ready = '';
  const { path, query } = route();
  try {
    for (const a of document.querySelectorAll<HTMLAnchorElement>('nav a')) {
      if (a.getAttribute('href') === `#${path}` || (path.startsWith('/series/') && a.getAttribute('href') === '#/')) a.setAttribute('aria-current', 'page');
      else a.removeAttribute('aria-current');
    }
    const siteTitle = document.getElementById('site-title')?.textContent ?? 'benchbot';
    const series = /^\/series\/([0-9a-f]{16})$/.exec(path);
    if (series) {
      // A series page does not wait for the overview (megabytes with 10,000 series): its own file and the run table only.
      const [data, runs] = await Promise.all([load<SeriesJson>(`data/series/${series[1]}.json`), load<RunsJson>('data/runs.json')]);
      document.title = `${data.benchmark} (${data.metric}) · ${siteTitle}`;
      const range: Range = { from: toSeconds(query.get('from')), to: toSeconds(query.get('to')) };
      // A date alone means the whole day: `to` reaches its end.
      if (range.to !== undefined && /^\d{4}-\d{2}-\d{2}$/.test(query.get('to') ?? '')) range.to += 86_399;
      cleanup = renderSeries(main, data, runs, range, (r) => replaceQuery(path, { from: isoDay(r.from), to: isoDay(r.to) }));
      document.body.dataset.ready = 'series';
      markFirstChart();
      return;
    }
    const overview = await load<OverviewJson>('data/overview.json');
    document.title = overview.title;
    const heading = document.getElementById('site-title');
    if (heading) heading.textContent = overview.title;
    if (path === '/prs') {
      renderPrs(main, overview);
      document.body.dataset.ready = 'prs';
    } else if (path === '/' || path === '') {
      const page = Math.max(0, Number(query.get('page') ?? '1') - 1) || 0;
      renderOverview(main, overview, { q: query.get('q') ?? '', page }, (q, p) => replaceQuery('/', { q, page: p > 0 ? String(p + 1) : undefined }));
      document.body.dataset.ready = 'overview';
    } else {
      fail('There is no such page here.');
      return;
    }
    markFirstChart();
  } catch (error) {
    fail(error instanceof Error && error.message === 'not found' ? 'No such series in this dashboard: it may have been renamed, or the site is older than the link.' : `The data could not be read: ${error instanceof Error ? error.message : String(error)}`);
  }
}

window.addEventListener('hashchange', () => {
  void show().then(() => main.focus({ preventScroll: true }));
});
document.addEventListener('keydown', (event) => {
  const target = event.target as HTMLElement;
  if (event.key === '/' && !/^(INPUT|SELECT|TEXTAREA)$/.test(target.tagName)) {
    const filter = document.getElementById('filter');
    if (filter) {
      event.preventDefault();
      filter.focus();
    }
  }
});
void show();
