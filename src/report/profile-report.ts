import type { FunctionChange, ProfileDiff } from '../model/profile-diff.ts';
import { SAMPLING_Z, whereItLives } from '../compare/profile-diff.ts';
import { formatChange } from './format-numbers.ts';
import { shellWord } from './shell-word.ts';
import { inertCode, inertPlain, inertText } from './inert-markdown.ts';

/**
 * profile-report renders a differential profile (where a benchmark's change
 * lives) as text for a terminal, as folded markdown for the PR comment, the
 * regression issue and the dashboard, and as JSON. Function and object
 * names come from the profiled program (C++ templates hold `<`, `>`, `|`,
 * `*`, `&`), so they reach markdown through inertCode and terminals through
 * inertPlain, like benchmark names.
 */

/** PROFILE_FORMATS are the outputs of `benchbot profile`. */
export const PROFILE_FORMATS = ['text', 'markdown', 'json'] as const;
export type ProfileFormat = (typeof PROFILE_FORMATS)[number];

const EVENT_WORDS: Record<string, string> = { Ir: 'instructions', 'cpu-clock': 'ns of CPU time', 'task-clock': 'ns of CPU time', cycles: 'cycles' };

/** eventWords names a profiler's event for a reader: callgrind's `Ir` is instructions, perf's cpu-clock period nanoseconds. */
function eventWords(event: string): string {
  return EVENT_WORDS[event] ?? event;
}

/** MAX_SHOWN_NAME is the longest function or object name shown (C++ names run to thousands of characters); the JSON keeps all of it. */
const MAX_SHOWN_NAME = 300;

function shown(name: string): string {
  return name.length <= MAX_SHOWN_NAME ? name : `${name.slice(0, MAX_SHOWN_NAME - 1).toWellFormed()}…`;
}

function count(value: number): string {
  return value.toLocaleString('en-US', { maximumFractionDigits: Math.abs(value) >= 100 ? 0 : 1 });
}

function signed(value: number): string {
  return `${value > 0 ? '+' : value < 0 ? '-' : ''}${count(Math.abs(value))}`;
}

function percent(share: number | null): string {
  return share === null ? 'n/a' : `${(share * 100).toFixed(1)}%`;
}

/** NOISE_MARK marks a sampled change within sampling noise (SAMPLING_Z standard errors of zero). */
const NOISE_MARK = '(noise)';

/** shareCell is a row's share, with its sampling error and the noise mark for a sampled profile. */
function shareCell(row: FunctionChange): string {
  const error = row.shareError === undefined || row.shareError === null || row.share === null ? '' : ` ±${(row.shareError * 100).toFixed(1)}`;
  return `${percent(row.share)}${error}${row.noise ? ` ${NOISE_MARK}` : ''}`;
}

/**
 * UNNAMED_NOTE_SHARE: when perf could not name at least this share of a
 * side's samples, the profile says why (a JIT without a perf map, a
 * stripped binary), since what it names is then a part of the picture.
 */
const UNNAMED_NOTE_SHARE = 0.1;

/** samplingNotes are what a reader of a sampled profile must know: what the marks mean, and what perf could not name. */
function samplingNotes(diff: ProfileDiff): string[] {
  if (diff.sampling === undefined) return [];
  const notes = [`sampled: ± is one standard error from the sample counts (Poisson); ${NOISE_MARK} marks a change within ${SAMPLING_Z} of them, which sampling alone could make`];
  const unnamed = [diff.base, diff.head].map((s) => (s.samples ? (s.unnamed ?? 0) / s.samples : 0));
  const most = Math.max(...unnamed);
  if (most >= UNNAMED_NOTE_SHARE) notes.push(`${(most * 100).toFixed(0)}% of a side's samples are in code perf cannot name ([unknown]): a JIT without a perf map (Node: --perf-basic-prof, which benchbot passes in NODE_OPTIONS) or a binary without symbols`);
  return notes;
}

function relative(diff: ProfileDiff): string {
  return diff.base.total > 0 ? ` (${formatChange(diff.head.total / diff.base.total)})` : '';
}

/** headline says the whole change and where most of it lives, with the given escaping for names. */
function headline(diff: ProfileDiff, name: (text: string) => string): string {
  if (diff.moved !== undefined) {
    const moved = `${percent(diff.moved)} of the CPU time moved between functions`;
    const into = whereItLives(diff);
    return into === undefined ? `${moved}, no function's change beyond sampling noise` : `${moved}, ${shareCell(into)} of it into ${name(shown(into.name))}`;
  }
  const words = eventWords(diff.event);
  const whole = `${signed(diff.change)} ${words} per iteration${relative(diff)}`;
  if (diff.sampling?.noise) return `${whole}, within sampling noise (±${count(diff.sampling.error)}): no function can be named`;
  const top = whereItLives(diff);
  if (top === undefined) return diff.sampling === undefined ? `${whole}: no function's cost changed` : `${whole}: no function's change is beyond sampling noise`;
  return `${whole}, ${diff.sampling === undefined ? percent(top.share) : shareCell(top)} of it in ${name(shown(top.name))}`;
}

function sides(diff: ProfileDiff): string {
  const samples = (s: ProfileDiff['base']) => (s.samples === undefined ? '' : `, ${count(s.samples)} sample${s.samples === 1 ? '' : 's'}`);
  const cost = (s: ProfileDiff['base']) => (diff.moved !== undefined ? `${count(s.samples ?? 0)} sample${s.samples === 1 ? '' : 's'}` : `${count(s.total)} per iteration over ${s.iterations} iteration${s.iterations === 1 ? '' : 's'}${samples(s)}`);
  const side = (label: string, s: ProfileDiff['base']) => `${label} ${s.sha === undefined ? '' : `${s.sha.slice(0, 12)} `}${cost(s)}`;
  const scope = diff.scope === 'command' ? `; the whole bench command, which runs its benchmarks in one process${diff.moved !== undefined ? ': costs are shares of each side\'s samples' : ''}` : '';
  return `${side('base', diff.base)}, ${side('head', diff.head)} (${diff.tool}, ${diff.event}${scope})`;
}

/** value shows a cost: a count per iteration, or of a whole command's shares a percentage of the samples. */
function valueOf(diff: ProfileDiff): { value: (v: number) => string; change: (v: number) => string } {
  if (diff.moved === undefined) return { value: count, change: signed };
  const pct = (v: number) => `${(v * 100).toFixed(1)}%`;
  return { value: pct, change: (v) => `${v > 0 ? '+' : v < 0 ? '-' : ''}${pct(Math.abs(v))}` };
}

function textTable(diff: ProfileDiff, title: string, rows: readonly FunctionChange[], omitted: number): string[] {
  if (rows.length === 0) return [];
  const { value, change } = valueOf(diff);
  const cells = rows.map((r) => [change(r.change), shareCell(r), value(r.base), value(r.head), `${inertPlain(shown(r.name))}  [${inertPlain(shown(r.object))}]`]);
  const head = ['change', 'share', 'base', 'head', 'function'];
  const widths = head.slice(0, 4).map((h, i) => Math.max(h.length, ...cells.map((c) => c[i].length)));
  const line = (c: string[]) => `  ${c.slice(0, 4).map((x, i) => x.padStart(widths[i])).join('  ')}  ${c[4]}`;
  return ['', title, line(head), ...cells.map(line), ...(omitted > 0 ? [`  (${omitted} more function${omitted === 1 ? '' : 's'} changed less)`] : [])];
}

/** renderProfileText is the differential profile for a terminal. */
export function renderProfileText(diff: ProfileDiff): string {
  return [
    `where ${inertPlain(shown(diff.benchmark))} changed: ${headline(diff, inertPlain)}`,
    `  ${sides(diff)}`,
    ...samplingNotes(diff).map((n) => `  ${n}`),
    ...textTable(diff, `self cost ${per(diff)} (the function's own code):`, diff.self, diff.omitted.self),
    ...textTable(diff, `inclusive cost ${per(diff)} (the function and all it calls):`, diff.inclusive, diff.omitted.inclusive),
  ].join('\n');
}

/** per says what a cost is measured over: an iteration, or a whole command's samples. */
function per(diff: ProfileDiff): string {
  return diff.moved === undefined ? 'per iteration' : 'as a share of the samples';
}

function markdownTable(diff: ProfileDiff, title: string, rows: readonly FunctionChange[], omitted: number): string[] {
  if (rows.length === 0) return [];
  const { value, change } = valueOf(diff);
  return [
    '',
    title,
    '',
    '| change | share | base | head | function |',
    '|---:|---:|---:|---:|:---|',
    ...rows.map((r) => `| ${change(r.change)} | ${shareCell(r)} | ${value(r.base)} | ${value(r.head)} | ${inertCode(shown(r.name))} <sub>${inertText(shown(r.object))}</sub> |`),
    ...(omitted > 0 ? ['', `${omitted} more function${omitted === 1 ? '' : 's'} changed less.`] : []),
  ];
}

/**
 * renderProfileMarkdown is the differential profile as one folded
 * `<details>` block whose summary is the headline, for the PR comment, the
 * regression issue and the dashboard.
 */
export function renderProfileMarkdown(diff: ProfileDiff): string {
  return [
    `<details><summary>Where ${inertCode(shown(diff.benchmark))} changed: ${headline(diff, inertCode)}</summary>`,
    '',
    inertText(sides(diff)),
    ...samplingNotes(diff).map((n) => `\n<sub>${inertText(n)}</sub>`),
    ...markdownTable(diff, `Self cost ${per(diff)} (the function's own code):`, diff.self, diff.omitted.self),
    ...markdownTable(diff, `Inclusive cost ${per(diff)} (the function and all it calls):`, diff.inclusive, diff.omitted.inclusive),
    '',
    '</details>',
  ].join('\n');
}

/** renderProfile renders a differential profile in one of PROFILE_FORMATS. */
export function renderProfile(diff: ProfileDiff, format: ProfileFormat): string {
  if (format === 'json') return JSON.stringify(diff, null, 2);
  return format === 'markdown' ? renderProfileMarkdown(diff) : renderProfileText(diff);
}

/**
 * MAX_WHERE_CHARS bounds the profiles a report shows in markdown (a PR
 * comment has 65,536 characters, and its table comes first): the profiles
 * that do not fit are named, and the JSON report has them all.
 */
export const MAX_WHERE_CHARS = 24_000;

/** whereMarkdown is the regressions' profiles for a report, folded, within MAX_WHERE_CHARS, then the notes on what has none; '' for neither. */
export function whereMarkdown(profiles: readonly ProfileDiff[], notes: readonly string[]): string {
  const blocks: string[] = [];
  const left: string[] = [];
  let size = 0;
  for (const diff of profiles) {
    const block = renderProfileMarkdown(diff);
    if (size + block.length > MAX_WHERE_CHARS) left.push(diff.benchmark);
    else {
      blocks.push(block);
      size += block.length;
    }
  }
  const lines = [...notes, ...(left.length > 0 ? [`the profiles of ${left.join(', ')} are in the JSON report (profiles), to keep this comment short`] : [])];
  return [...blocks, ...lines.map((n) => `<sub>${inertText(n)}</sub>`)].join('\n\n');
}

/** whereText is the regressions' profiles and notes for a terminal, after a blank line; '' for neither. */
export function whereText(profiles: readonly ProfileDiff[], notes: readonly string[]): string {
  if (profiles.length === 0 && notes.length === 0) return '';
  return `\n\n${[...profiles.map(renderProfileText), ...notes.map(inertPlain)].join('\n\n')}`;
}

/**
 * profileCommand is the `benchbot profile` command that shows where a
 * change of `benchmark` between two commits lives, every word quoted for
 * the shell; `CMD` stands for the bench command when it is not known.
 */
export function profileCommand(options: { base: string; head: string; benchmark: string; bench?: string; build?: string; format?: string }): string {
  const bench = options.bench === undefined ? 'CMD' : shellWord(options.bench);
  const build = options.build ? ` --build ${shellWord(options.build)}` : '';
  const format = options.format ? ` --format ${shellWord(options.format)}` : '';
  return `benchbot profile --base ${shellWord(options.base)} --head ${shellWord(options.head)} --bench ${bench}${build}${format} --benchmark ${shellWord(options.benchmark)}`;
}
