/**
 * bisect-report: a bisection's outcome as markdown, above the bisect log
 * table the regression issue shows too (renderBisectLog in
 * regression-issue.ts). renderBisectMarkdown is `benchbot bisect`'s output
 * on the machine that bisected; renderBisectSummary is the bisect
 * workflow's job summary, written from an artifact, so every text in it
 * goes through the escaping path.
 */

import type { BisectLog, BisectLogCommit } from '../bisect/bisect-log.ts';
import { formatChange } from './format-numbers.ts';
import { inertCode, inertText } from './inert-markdown.ts';
import { followedLine, renderBisectLog } from './regression-issue.ts';

/** renderBisectMarkdown is the CLI's markdown: what was bisected, the outcome, and the bisect log. */
export function renderBisectMarkdown(log: BisectLog): string {
  const lines = [`### benchbot bisect: ${log.benchmark} (${log.metric})`, ''];
  const followed = followedLine(log);
  if (followed) lines.push(followed, '');
  const c = log.culprit;
  if (log.status === 'not-reproducible') {
    const r = log.reference;
    lines.push(`**Not reproducible:** good and bad differ by ${r.ratio === null ? 'nothing measurable' : formatChange(r.ratio)}${r.ratio_ci ? ` (CI ${formatChange(r.ratio_ci[0])} … ${formatChange(r.ratio_ci[1])})` : ''}, which is not a significant change beyond the threshold on this machine.`);
  } else if (c) {
    const author = log.candidates?.find((x) => x.sha === c.sha)?.author;
    lines.push(`**Culprit:** ${c.pr !== null ? `#${c.pr} ` : ''}\`${c.sha.slice(0, 12)}\` ${c.subject}${author ? ` (${author})` : ''}`);
    if (log.culprits.length > 1) {
      for (const x of log.culprits) lines.push(`- ${x.pr !== null ? `#${x.pr} ` : ''}\`${x.sha.slice(0, 12)}\` ${x.subject}: ${x.ratio === null ? '–' : formatChange(x.ratio)}${x.share === null ? '' : `, ${Number((x.share * 100).toFixed(1))}% of the shift`}`);
    }
  } else if (log.range && log.range.length > 0) {
    lines.push(`**Culprit range:** ${log.range.length} merges that could not be told apart (skipped or undecided): ${log.range.map((x) => `${x.pr !== null ? `#${x.pr} ` : ''}\`${x.sha.slice(0, 12)}\``).join(', ')}`);
  } else {
    lines.push(`**Unfinished** (${log.status}).`);
  }
  lines.push('', renderBisectLog(log));
  return lines.join('\n');
}

/** renderBisectSummary is a bisect log as markdown for a job summary; every text from the log goes through the escaping path. */
export function renderBisectSummary(log: BisectLog): string {
  const what = log.benchmark ? `${inertText(log.benchmark)} (${inertText(log.metric ?? '')})` : 'the benchmark that moved most';
  const lines = [`### benchbot bisect: ${what}`, ''];
  const followed = followedLine(log);
  if (followed) lines.push(followed, '');
  const c = log.culprit;
  const name = (x: BisectLogCommit) => `${x.pr !== null ? `#${x.pr} ` : ''}${inertCode(x.sha.slice(0, 12))} ${inertText(x.subject)}`;
  if (log.status === 'not-reproducible') {
    lines.push(`**Not reproducible:** good and bad differ by ${log.reference.ratio === null ? 'nothing measurable' : formatChange(log.reference.ratio)} on this machine, which is not a significant change beyond the threshold.`);
  } else if (c) {
    lines.push(`**Culprit:** ${name(c)}`);
  } else if (log.range && log.range.length > 0) {
    lines.push(`**Culprit range:** ${log.range.length} merges that could not be told apart: ${log.range.map(name).join(', ')}`);
  } else {
    lines.push(`**Unfinished** (${inertText(log.status)}).`);
  }
  lines.push('', renderBisectLog(log));
  return lines.join('\n');
}
