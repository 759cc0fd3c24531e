/**
 * series-page: one series' nights as a chart (median line, its 95% CI as a
 * band, the nightly scan's findings with what it decided about each, acks
 * and regression issues marked), zoom by
 * dragging or with the range buttons, pan with the arrow buttons or the
 * arrow keys on the chart, the night under the pointer (or clicked, or
 * chosen with the keys) in a panel with its raw samples, and the same data
 * as a table, the chart's text alternative.
 */
import uPlot from 'uplot';
import type { FindingStatus, RunsJson, SeriesJson } from '../site-json.ts';
import { COLORS, DASHES } from './colors.ts';
import { append, clear, h } from './dom.ts';
import { date, dateTime, shortSha, STATUS_LABEL, value } from './format.ts';

const DAY = 86_400;

/** Range is the shown window in epoch seconds; undefined ends mean the data's ends. */
export interface Range {
  from?: number;
  to?: number;
}

interface Mark {
  index: number;
  kind: FindingStatus | 'ack';
  text: string;
}

/**
 * renderSeries draws a series page into `main`. `range` comes from the
 * permalink; `onRange` records the window shown after a zoom or pan.
 */
export function renderSeries(main: HTMLElement, s: SeriesJson, runs: RunsJson, range: Range, onRange: (range: Range) => void): () => void {
  clear(main);
  const count = s.run.length;
  const xs = s.run.map((r) => Math.round((runs.runs[r]?.[1] ?? 0) / 1000));
  const sha = (i: number) => runs.runs[s.run[i]]?.[0] ?? '';
  const n = (i: number) => (typeof s.n === 'number' ? s.n : s.n[i]);
  const commitUrl = (commit: string) => (s.repoUrl ? `${s.repoUrl}/commit/${commit}` : undefined);
  const marks: Mark[] = [
    ...s.findings.filter((f) => f.index >= 0).map((f) => ({ index: f.index, kind: f.status, text: `${STATUS_LABEL[f.status]}: ${f.note}` })),
    ...s.acks.map((a) => ({ index: a.index, kind: 'ack' as const, text: `acknowledged: ${a.reason}` })),
  ];

  const title = h('h2', { id: 'series-title' }, s.benchmark);
  const machine = s.siblings.length === 0
    ? h('span', {}, s.machineLabel)
    : h('select', { id: 'machine', onchange: (e: Event) => { location.hash = `#/series/${(e.target as HTMLSelectElement).value}`; } },
        ...[{ id: s.id, machineLabel: s.machineLabel }, ...s.siblings].sort((a, b) => (a.machineLabel < b.machineLabel ? -1 : 1)).map((x) => h('option', { value: x.id, selected: x.id === s.id }, x.machineLabel)));
  const meta = h('dl', { class: 'meta' },
    h('dt', {}, 'Metric'), h('dd', {}, `${s.metric} (${s.unit}, ${s.better} is better)`),
    h('dt', {}, 'Branch'), h('dd', {}, s.repo === null ? s.branch : `${s.repo} ${s.branch}`),
    h('dt', {}, s.siblings.length === 0 ? 'Machine' : h('label', { for: 'machine' }, 'Machine')), h('dd', {}, machine),
    h('dt', {}, 'Nights'), h('dd', {}, `${count}, ${date(xs[0] * 1000)} to ${date(xs[count - 1] * 1000)}`),
  );
  const chartBox = h('div', { class: 'chart', id: 'chart', tabindex: '0', role: 'img', 'aria-roledescription': 'chart', 'aria-describedby': 'chart-help' });
  const status = h('p', { id: 'range', role: 'status', 'aria-live': 'polite' });
  const night = h('section', { class: 'night', 'aria-labelledby': 'night-title' }, h('h3', { id: 'night-title' }, 'Night'), h('p', {}, 'Point at the chart, click a night, or use the arrow keys on it.'));
  const tableBody = h('tbody');
  const tableSummary = h('summary', {}, 'Data table');
  const button = (label: string, onclick: () => void, extra: Record<string, string> = {}) => h('button', { type: 'button', onclick, ...extra }, label);

  let chart: uPlot | undefined;
  let selected = count - 1;
  const shown = (): [number, number] => {
    const min = chart?.scales.x.min ?? xs[0];
    const max = chart?.scales.x.max ?? xs[count - 1];
    return [min, max];
  };
  const setRange = (from: number, to: number) => {
    chart?.setScale('x', { min: Math.max(xs[0] - DAY, from), max: Math.min(xs[count - 1] + DAY, to) });
  };
  const lastNights = (nights: number) => () => setRange(xs[Math.max(0, count - nights)] - DAY / 2, xs[count - 1] + DAY / 2);
  const pan = (direction: number) => () => {
    const [min, max] = shown();
    const step = (max - min) / 2;
    setRange(min + direction * step, max + direction * step);
  };
  const controls = h('div', { class: 'controls', role: 'group', 'aria-label': 'Time range' },
    button('30 nights', lastNights(30)), button('90 nights', lastNights(90)), button('1 year', lastNights(365)),
    button('All', () => setRange(xs[0] - DAY / 2, xs[count - 1] + DAY / 2)),
    button('← Earlier', pan(-1), { 'aria-label': 'Show earlier nights' }), button('Later →', pan(1), { 'aria-label': 'Show later nights' }),
  );
  const legend = h('ul', { class: 'legend', 'aria-label': 'Chart legend' },
    h('li', {}, h('span', { class: 'key median' }), 'median per night'),
    h('li', {}, h('span', { class: 'key band' }), '95% confidence interval of the median'),
    h('li', {}, h('span', { class: 'key regression' }), 'confirmed regression (dashed)'),
    h('li', {}, h('span', { class: 'key improvement' }), 'confirmed improvement (dotted)'),
    h('li', {}, h('span', { class: 'key awaiting' }), 'awaiting its A/B (dash-dot)'),
    h('li', {}, h('span', { class: 'key watch' }), 'watch, one night (sparse dots)'),
    h('li', {}, h('span', { class: 'key refuted' }), 'refuted by its A/B (grey dots)'),
    h('li', {}, h('span', { class: 'key ack' }), 'acknowledged change (solid)'),
  );
  append(main,
    h('p', { class: 'crumbs' }, h('a', { href: '#/' }, '← All series')),
    title, meta, controls, status, chartBox,
    h('p', { id: 'chart-help', class: 'help' }, 'Drag across the chart to zoom in; the arrow keys move between nights, Shift with them pans; the table below holds the same numbers.'),
    legend, night, annotations(s, sha, commitUrl, xs),
    h('details', { class: 'data' }, tableSummary, h('table', {}, h('caption', {}, `Nightly medians of ${s.benchmark}`),
      h('thead', {}, h('tr', {}, h('th', { scope: 'col' }, 'Night'), h('th', { scope: 'col' }, 'Commit'), h('th', { scope: 'col', class: 'num' }, 'Samples'), h('th', { scope: 'col', class: 'num' }, 'Median'), h('th', { scope: 'col', class: 'num' }, '95% CI'), h('th', { scope: 'col' }, 'Marks'))),
      tableBody)),
  );

  const showNight = (i: number) => {
    if (i < 0 || i >= count) return;
    selected = i;
    clear(night);
    const samples = i >= s.samples.from ? s.samples.values[i - s.samples.from] : undefined;
    const here = marks.filter((m) => m.index === i);
    const commit = sha(i);
    const url = commitUrl(commit);
    append(night,
      h('h3', { id: 'night-title' }, `Night of ${date(xs[i] * 1000)}`),
      h('dl', { class: 'meta' },
        h('dt', {}, 'Commit'), h('dd', {}, url ? h('a', { href: url }, h('code', {}, shortSha(commit))) : h('code', {}, shortSha(commit))),
        h('dt', {}, 'Time'), h('dd', {}, dateTime(xs[i] * 1000)),
        h('dt', {}, 'Median'), h('dd', {}, value(s.median[i], s.unit)),
        h('dt', {}, '95% CI'), h('dd', {}, s.lo[i] === null ? '–' : `${value(s.lo[i], s.unit)} to ${value(s.hi[i], s.unit)}`),
        h('dt', {}, 'Samples'), h('dd', {}, String(n(i))),
        ...here.flatMap((m) => [h('dt', {}, 'Mark'), h('dd', {}, m.text)]),
      ),
      samples
        ? h('p', { class: 'samples' }, h('span', {}, 'Raw samples: '), h('span', { class: 'values' }, samples.map((v) => value(v, '')).join(', ')))
        : h('p', { class: 'help' }, `Raw samples are published for the newest ${count - s.samples.from} nights only.`),
    );
    chart?.redraw(false);
  };

  const fillTable = () => {
    const [min, max] = shown();
    clear(tableBody);
    let rows = 0;
    for (let i = count - 1; i >= 0; i--) {
      if (xs[i] < min || xs[i] > max) continue;
      rows++;
      const here = marks.filter((m) => m.index === i).map((m) => m.text).join('; ');
      append(tableBody, h('tr', {},
        h('th', { scope: 'row' }, date(xs[i] * 1000)),
        h('td', {}, h('code', {}, shortSha(sha(i)))),
        h('td', { class: 'num' }, String(n(i))),
        h('td', { class: 'num' }, value(s.median[i], s.unit)),
        h('td', { class: 'num' }, s.lo[i] === null ? '–' : `${value(s.lo[i], '')}–${value(s.hi[i], '')}`),
        h('td', {}, here),
      ));
    }
    tableSummary.textContent = `Data table (${rows} nights shown in the chart)`;
    status.textContent = `Showing ${date(min * 1000)} to ${date(max * 1000)}.`;
    chartBox.setAttribute('aria-label', `Chart of the nightly median of ${s.benchmark}, ${s.metric}, from ${date(min * 1000)} to ${date(max * 1000)}: ${rows} nights, ${marks.filter((m) => xs[m.index] >= min && xs[m.index] <= max).length} marked changes. The data table below has the numbers.`);
  };

  const drawMarks = (u: uPlot) => {
    const ctx = u.ctx;
    const top = u.bbox.top;
    const bottom = u.bbox.top + u.bbox.height;
    ctx.save();
    for (const m of marks) {
      const x = Math.round(u.valToPos(xs[m.index], 'x', true));
      if (x < u.bbox.left || x > u.bbox.left + u.bbox.width) continue;
      ctx.strokeStyle = COLORS[m.kind];
      ctx.lineWidth = 2 * devicePixelRatio;
      ctx.setLineDash(DASHES[m.kind].map((d) => d * devicePixelRatio));
      ctx.beginPath();
      ctx.moveTo(x, top);
      ctx.lineTo(x, bottom);
      ctx.stroke();
    }
    if (selected >= 0 && selected < count) {
      const x = Math.round(u.valToPos(xs[selected], 'x', true));
      const y = s.median[selected] === null ? undefined : Math.round(u.valToPos(s.median[selected] as number, 'y', true));
      if (y !== undefined) {
        ctx.setLineDash([]);
        ctx.strokeStyle = COLORS.selected;
        ctx.lineWidth = 2 * devicePixelRatio;
        ctx.beginPath();
        ctx.arc(x, y, 5 * devicePixelRatio, 0, Math.PI * 2);
        ctx.stroke();
      }
    }
    ctx.restore();
  };

  const width = () => Math.max(320, Math.min(1200, main.clientWidth || 800));
  let reported = false;
  chart = new uPlot({
    width: width(),
    height: 340,
    scales: { x: { time: true } },
    axes: [{}, { label: s.unit, size: 70 }],
    legend: { show: false },
    cursor: { drag: { x: true, y: false, setScale: true }, points: { show: false } },
    series: [
      {},
      { label: 'median', stroke: COLORS.median, width: 2, spanGaps: false, points: { show: count <= 120, size: 4 } },
      { label: 'CI low', stroke: COLORS.bandEdge, width: 1, points: { show: false } },
      { label: 'CI high', stroke: COLORS.bandEdge, width: 1, points: { show: false } },
    ],
    bands: [{ series: [3, 2], fill: COLORS.band }],
    hooks: {
      draw: [drawMarks],
      setScale: [(u: uPlot, key: string) => {
        if (key !== 'x') return;
        fillTable();
        if (!reported) {
          reported = true;
          return;
        }
        onRange({ from: u.scales.x.min ?? undefined, to: u.scales.x.max ?? undefined });
      }],
      setCursor: [(u: uPlot) => {
        if (u.cursor.idx !== null && u.cursor.idx !== undefined && u.cursor.idx !== selected) showNight(u.cursor.idx);
      }],
    },
  }, [xs, s.median, s.lo, s.hi] as uPlot.AlignedData, chartBox);
  if (range.from !== undefined || range.to !== undefined) setRange(range.from ?? xs[0], range.to ?? xs[count - 1]);
  else fillTable();
  chartBox.addEventListener('keydown', (event) => {
    if (event.key !== 'ArrowLeft' && event.key !== 'ArrowRight') return;
    event.preventDefault();
    if (event.shiftKey) return pan(event.key === 'ArrowLeft' ? -1 : 1)();
    showNight(Math.max(0, Math.min(count - 1, selected + (event.key === 'ArrowLeft' ? -1 : 1))));
  });
  showNight(selected);
  const resize = () => chart?.setSize({ width: width(), height: 340 });
  window.addEventListener('resize', resize);
  return () => {
    window.removeEventListener('resize', resize);
    chart?.destroy();
    chart = undefined;
  };
}

function annotations(s: SeriesJson, sha: (i: number) => string, commitUrl: (sha: string) => string | undefined, xs: number[]): HTMLElement {
  const items: HTMLElement[] = [];
  const commit = (c: string) => {
    const url = commitUrl(c);
    return url ? h('a', { href: url }, h('code', {}, shortSha(c))) : h('code', {}, shortSha(c));
  };
  for (const f of s.findings) {
    items.push(h('li', { class: f.status },
      h('span', { class: `badge ${f.status}` }, STATUS_LABEL[f.status]),
      f.index >= 0 ? ` ${date(xs[f.index] * 1000)}: ` : ' before the nights shown: ', f.note, '; first bad commit ', commit(f.firstBad), ', last good ', commit(f.lastGood),
      f.profile ? h('span', { class: 'profile' }, '; where it lives (the functions whose cost changed, run with your bench command for CMD): ', h('code', {}, f.profile)) : null,
    ));
  }
  for (const a of s.acks) items.push(h('li', { class: 'ack' }, h('span', { class: 'badge ack' }, 'acknowledged'), ` ${date(xs[a.index] * 1000)} at `, commit(a.sha), `: ${a.reason}`));
  for (const i of s.issues) {
    items.push(h('li', { class: 'issue' },
      h('span', { class: 'badge regression' }, 'issue'), ' ', h('a', { href: i.url }, `regression issue #${i.number}`),
      i.culprit ? h('span', {}, '; culprit ', commit(i.culprit.sha), i.culprit.subject ? ` ${i.culprit.subject}` : '', i.culprit.pr !== null && s.repoUrl ? h('span', {}, ' (', h('a', { href: `${s.repoUrl}/pull/${i.culprit.pr}` }, `PR #${i.culprit.pr}`), ')') : '') : null,
    ));
  }
  return h('section', { class: 'annotations', 'aria-labelledby': 'changes-title' },
    h('h3', { id: 'changes-title' }, 'Changes'),
    h('p', { class: 'help' }, s.scanned !== null
      ? `The nightly scan reads ${s.scanned} for this benchmark (one of its two times), not ${s.metric}.`
      : 'What the nightly scan (benchbot scan) decided: a regression or an improvement only once the interleaved A/B of its commits confirmed it.'),
    items.length === 0 ? h('p', {}, s.scanned !== null ? 'Nothing to mark.' : `The scan found no change beyond the threshold among the newest nights it reports.`) : h('ul', {}, ...items),
  );
}
