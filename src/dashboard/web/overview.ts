/**
 * overview: every series in one table, open regressions first, 100 rows a
 * page, with a filter box that narrows 10,000 rows as you type. Arrow keys
 * move between rows, Enter opens one, `/` jumps to the filter.
 */
import type { OverviewJson, OverviewRow } from '../site-json.ts';
import { COLORS } from './colors.ts';
import { append, clear, h } from './dom.ts';
import { change, date, STATUS_LABEL, value, worse } from './format.ts';

/** PAGE_ROWS is how many rows one page of the table shows. */
export const PAGE_ROWS = 100;

const I = { id: 0, repo: 1, branch: 2, benchmark: 3, metric: 4, unit: 5, better: 6, machine: 7, latest: 8, change7: 9, change30: 10, status: 11, nights: 12, lastTime: 13, issue: 14, spark: 15, note: 16 } as const;

interface Prepared {
  rows: OverviewRow[];
  haystack: string[];
  multiRepo: boolean;
}

const prepared = new WeakMap<OverviewJson, Prepared>();

function prepare(data: OverviewJson): Prepared {
  let p = prepared.get(data);
  if (!p) {
    const rows = data.rows;
    p = {
      rows,
      haystack: rows.map((r) => `${r[I.benchmark]} ${r[I.metric]} ${r[I.machine]} ${r[I.branch]} ${r[I.repo] ?? ''} ${r[I.status]} ${STATUS_LABEL[r[I.status]]}`.toLowerCase()),
      multiRepo: new Set(rows.map((r) => r[I.repo])).size > 1,
    };
    prepared.set(data, p);
  }
  return p;
}

/** filterRows returns the indices of the rows that contain every word of the query (case-insensitive). */
export function filterRows(data: OverviewJson, query: string): number[] {
  const p = prepare(data);
  const terms = query.toLowerCase().split(/\s+/).filter((t) => t !== '');
  const out: number[] = [];
  for (let i = 0; i < p.haystack.length; i++) {
    const text = p.haystack[i];
    if (terms.every((t) => text.includes(t))) out.push(i);
  }
  return out;
}

/**
 * renderOverview draws the overview into `main`; `state` is the query and
 * page from the URL, `onState` records a new one (the URL stays a
 * permalink of what is shown).
 */
export function renderOverview(main: HTMLElement, data: OverviewJson, state: { q: string; page: number }, onState: (q: string, page: number) => void): void {
  const p = prepare(data);
  clear(main);
  const counts = { regression: 0, improvement: 0, awaiting: 0, watch: 0, refuted: 0, ok: 0 };
  for (const r of p.rows) counts[r[I.status]]++;
  const search = h('input', { type: 'search', id: 'filter', value: state.q, placeholder: 'benchmark, metric, machine, branch…', autocomplete: 'off', 'aria-describedby': 'filter-help' });
  const summary = h('p', { id: 'count', class: 'sr-only', role: 'status', 'aria-live': 'polite' });
  const tbody = h('tbody');
  const pager = h('nav', { class: 'pager', 'aria-label': 'Pages of series' });
  const caption = h('caption');
  const table = h('table', { class: 'series' },
    caption,
    h('thead', {}, h('tr', {},
      h('th', { scope: 'col' }, 'Status'),
      h('th', { scope: 'col' }, 'Benchmark'),
      h('th', { scope: 'col' }, 'Metric'),
      h('th', { scope: 'col' }, 'Machine'),
      h('th', { scope: 'col' }, p.multiRepo ? 'Repository / branch' : 'Branch'),
      h('th', { scope: 'col', class: 'num' }, 'Latest'),
      h('th', { scope: 'col', class: 'num' }, '7 nights'),
      h('th', { scope: 'col', class: 'num' }, '30 nights'),
      h('th', { scope: 'col' }, h('span', { class: 'sr-only' }, 'Trend, last 30 nights'), h('span', { 'aria-hidden': 'true' }, 'Trend')),
      h('th', { scope: 'col' }, 'Issue'),
    )),
    tbody,
  );
  append(main,
    h('h2', {}, 'Series'),
    h('p', { class: 'lede' }, lede(p.rows.length, counts)),
    h('div', { class: 'filter' },
      h('label', { for: 'filter' }, 'Filter series'),
      search,
      h('span', { id: 'filter-help', class: 'help' }, 'Every word must match. Press / to come back here; arrow keys move between rows.'),
    ),
    summary,
    table,
    pager,
  );

  let matches = filterRows(data, state.q);
  let page = Math.min(state.page, Math.max(0, Math.ceil(matches.length / PAGE_ROWS) - 1));
  const draw = (focusRow?: number) => {
    clear(tbody);
    const start = page * PAGE_ROWS;
    const shown = matches.slice(start, start + PAGE_ROWS);
    const canvases: [HTMLCanvasElement, OverviewRow][] = [];
    for (const index of shown) {
      const r = p.rows[index];
      const canvas = h('canvas', { width: 120, height: 24, class: 'spark', 'aria-hidden': 'true' });
      canvases.push([canvas, r]);
      const status = r[I.status];
      append(tbody, h('tr', { class: `status-${status}` },
        h('td', {}, h('span', { class: `badge ${status}`, ...(r[I.note] ? { title: r[I.note] } : {}) }, STATUS_LABEL[status]), r[I.note] ? h('span', { class: 'sr-only' }, `: ${r[I.note]}`) : null),
        h('th', { scope: 'row' }, h('a', { href: `#/series/${r[I.id]}`, class: 'row-link' }, r[I.benchmark])),
        h('td', {}, r[I.metric]),
        h('td', {}, r[I.machine]),
        h('td', {}, p.multiRepo && r[I.repo] !== null ? `${r[I.repo]} ${r[I.branch]}` : r[I.branch]),
        h('td', { class: 'num', title: `latest night ${date(r[I.lastTime])}` }, value(r[I.latest], r[I.unit])),
        changeCell(r[I.change7], r[I.better], data.threshold),
        changeCell(r[I.change30], r[I.better], data.threshold),
        h('td', {}, canvas),
        h('td', {}, r[I.issue] === null ? '' : `#${r[I.issue]}`),
      ));
    }
    for (const [canvas, r] of canvases) drawSpark(canvas, r[I.spark], r[I.better]);
    const pages = Math.max(1, Math.ceil(matches.length / PAGE_ROWS));
    const text = matches.length === 0 ? 'No series match the filter.' : `Showing ${start + 1}–${start + shown.length} of ${matches.length} series${matches.length < p.rows.length ? ` (filtered from ${p.rows.length})` : ''}, page ${page + 1} of ${pages}.`;
    summary.textContent = text;
    caption.textContent = text;
    clear(pager);
    append(pager,
      h('button', { type: 'button', disabled: page === 0, onclick: () => go(page - 1) }, '← Previous page'),
      h('button', { type: 'button', disabled: page >= pages - 1, onclick: () => go(page + 1) }, 'Next page →'),
    );
    if (focusRow !== undefined) {
      const links = tbody.querySelectorAll<HTMLAnchorElement>('a.row-link');
      links[Math.max(0, Math.min(links.length - 1, focusRow))]?.focus();
    }
  };
  const go = (next: number, focusRow?: number) => {
    page = next;
    onState(search.value, page);
    draw(focusRow);
  };
  search.addEventListener('input', () => {
    matches = filterRows(data, search.value);
    page = 0;
    onState(search.value, page);
    draw();
  });
  tbody.addEventListener('keydown', (event) => {
    const links = [...tbody.querySelectorAll<HTMLAnchorElement>('a.row-link')];
    const at = links.indexOf(document.activeElement as HTMLAnchorElement);
    if (at < 0) return;
    const pages = Math.ceil(matches.length / PAGE_ROWS);
    let handled = true;
    if (event.key === 'ArrowDown') {
      if (at + 1 < links.length) links[at + 1].focus();
      else if (page + 1 < pages) go(page + 1, 0);
    } else if (event.key === 'ArrowUp') {
      if (at > 0) links[at - 1].focus();
      else if (page > 0) go(page - 1, PAGE_ROWS - 1);
      else search.focus();
    } else if (event.key === 'Home') links[0].focus();
    else if (event.key === 'End') links[links.length - 1].focus();
    else if (event.key === 'PageDown' && page + 1 < pages) go(page + 1, 0);
    else if (event.key === 'PageUp' && page > 0) go(page - 1, 0);
    else handled = false;
    if (handled) event.preventDefault();
  });
  search.addEventListener('keydown', (event) => {
    if (event.key === 'ArrowDown') {
      tbody.querySelector<HTMLAnchorElement>('a.row-link')?.focus();
      event.preventDefault();
    }
  });
  draw();
}

/** lede says what the nightly scan decided, in the overview's order; kinds nobody has are left out but regressions. */
function lede(series: number, counts: Record<OverviewRow[11], number>): string {
  const parts = [
    `${counts.regression} with a regression the scan confirmed${counts.regression > 0 ? ', shown first' : ''}`,
    counts.awaiting > 0 ? `${counts.awaiting} awaiting the interleaved A/B that confirms or refutes a change in their history` : '',
    counts.watch > 0 ? `${counts.watch} on watch, one night off, waiting for a second` : '',
    counts.improvement > 0 ? `${counts.improvement} with a confirmed improvement` : '',
    counts.refuted > 0 ? `${counts.refuted} whose change the interleaved A/B refuted` : '',
  ].filter((x) => x !== '');
  return `${series} series, as the nightly scan (benchbot scan) decided: ${parts.join('; ')}.`;
}

/** changeCell shows a change, marked worse or better (in words for screen readers) only beyond the threshold. */
function changeCell(c: number | null, better: 'lower' | 'higher', threshold: number): HTMLTableCellElement {
  const matters = c !== null && Math.abs(c) >= threshold;
  const bad = matters && worse(c, better);
  const good = matters && !bad;
  return h('td', { class: `num ${bad ? 'worse' : good ? 'better' : ''}` }, change(c), bad ? h('span', { class: 'sr-only' }, ' (worse)') : good ? h('span', { class: 'sr-only' }, ' (better)') : null);
}

/** drawSpark draws the last nights as a line; the newest point is marked, worse-than-before in the regression color. */
function drawSpark(canvas: HTMLCanvasElement, spark: readonly number[], better: 'lower' | 'higher'): void {
  const ctx = canvas.getContext('2d');
  if (!ctx || spark.length < 2) return;
  const min = Math.min(...spark, -5);
  const max = Math.max(...spark, 5);
  const x = (i: number) => 2 + (i / (spark.length - 1)) * (canvas.width - 6);
  const y = (v: number) => canvas.height - 3 - ((v - min) / (max - min)) * (canvas.height - 6);
  ctx.strokeStyle = COLORS.median;
  ctx.lineWidth = 1.5;
  ctx.beginPath();
  spark.forEach((v, i) => (i === 0 ? ctx.moveTo(x(i), y(v)) : ctx.lineTo(x(i), y(v))));
  ctx.stroke();
  const first = spark[0];
  ctx.fillStyle = worse(-first / 1000, better) ? COLORS.regression : COLORS.median;
  ctx.beginPath();
  ctx.arc(x(spark.length - 1), y(0), 2.5, 0, Math.PI * 2);
  ctx.fill();
}
