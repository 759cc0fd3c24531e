/** prs: the PR checks stored in the history, newest first, with their verdicts recomputed from the samples. */
import type { OverviewJson } from '../site-json.ts';
import { append, clear, h } from './dom.ts';
import { date, ratioChange, shortSha } from './format.ts';

/** renderPrs draws the table of PR runs into `main`. */
export function renderPrs(main: HTMLElement, data: OverviewJson): void {
  clear(main);
  append(main, h('h2', {}, 'Pull request runs'));
  if (data.prs.length === 0) {
    append(main, h('p', {}, 'No PR check has stored its results in this history yet (benchbot run, or the action with a store).'));
    return;
  }
  append(main,
    h('p', { class: 'lede' }, `${data.prs.length} runs of base against head on the same machine; the verdicts are the PR rule's, recomputed from the stored samples.`),
    h('table', { class: 'prs' },
      h('caption', {}, 'PR runs, newest first'),
      h('thead', {}, h('tr', {},
        ...['Pull request', 'Head', 'Base', 'Measured', 'Machine'].map((t) => h('th', { scope: 'col' }, t)),
        ...['Regressed', 'Improved', 'Unchanged', 'Inconclusive'].map((t) => h('th', { scope: 'col', class: 'num' }, t)),
        h('th', { scope: 'col' }, 'Largest regression'),
      )),
      h('tbody', {}, ...data.prs.map((p) => h('tr', { class: p.regressed > 0 ? 'status-regression' : '' },
        h('th', { scope: 'row' }, p.url ? h('a', { href: p.url }, p.pr !== undefined ? `#${p.pr}` : (p.branch ?? 'PR')) : (p.pr !== undefined ? `#${p.pr}` : (p.branch ?? '–'))),
        h('td', {}, h('code', {}, shortSha(p.headSha))),
        h('td', {}, h('code', {}, shortSha(p.baseSha))),
        h('td', {}, date(p.timeMs)),
        h('td', {}, p.machineLabel),
        h('td', { class: 'num' }, String(p.regressed)),
        h('td', { class: 'num' }, String(p.improved)),
        h('td', { class: 'num' }, String(p.unchanged)),
        h('td', { class: 'num' }, String(p.inconclusive)),
        h('td', {}, p.worst ? `${p.worst.benchmark} (${p.worst.metric}) ${ratioChange(p.worst.ratio)}` : ''),
      ))),
    ),
  );
}
