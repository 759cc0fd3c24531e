import MarkdownIt from 'markdown-it';
import { HTML_OPEN_CLOSE_TAG_RE } from 'markdown-it/lib/common/html_re.mjs';
import type { RuleBlock } from 'markdown-it/lib/parser_block.mjs';
import type StateBlock from 'markdown-it/lib/rules_block/state_block.mjs';
import { compileNameFilter, MAX_NAME_FILTER_LENGTH, NameFilterError } from '../compare/name-filter.ts';
import { readPercent } from '../compare/thresholds.ts';
import { inertCode, inertText } from '../report/inert-markdown.ts';

/**
 * BENCH_USAGE is what `/bench help` and every rejected `/bench` show.
 */
export const BENCH_USAGE = [
  '```',
  '/bench [REGEX] [runs=N] [runner=LABEL] [threshold=X%] [instructions]',
  '/bench help',
  '```',
  '',
  '- `REGEX` runs only the benchmarks whose name matches (an RE2 regular expression: no backreferences or lookaround, no spaces).',
  '- `runs=N` is the round budget per side (default: the workflow\'s).',
  '- `runner=LABEL` picks a runner label listed under `bench.runners` in `.github/benchbot.yml`.',
  '- `threshold=X%` is the smallest change that matters (default: the workflow\'s, usually 2%).',
  '- `instructions` also counts each benchmark\'s work under valgrind (instructions per iteration), beside the wall time.',
].join('\n');

/** MAX_COMMAND_LENGTH bounds the `/bench` line, in characters; anything longer is refused unread. */
export const MAX_COMMAND_LENGTH = 300;

/** MAX_REGEX_LENGTH bounds the REGEX argument, in characters: the engine's own limit. */
export const MAX_REGEX_LENGTH = MAX_NAME_FILTER_LENGTH;

/** BenchLimits are the repository's policy for arguments (from `.github/benchbot.yml`). */
export interface BenchLimits {
  /** maxRuns is the largest `runs=N` accepted (default 100); the smallest is always 2. */
  maxRuns?: number;
  /** runners are the labels `runner=` may name; empty (the default) refuses `runner=`. */
  runners?: readonly string[];
}

/** BenchArguments are the parsed, validated arguments; null means "not given". */
export interface BenchArguments {
  filter: string | null;
  runs: number | null;
  runner: string | null;
  /** threshold is normalized to a percentage string such as `1.5%`. */
  threshold: string | null;
  /** instructions: the word `instructions` asks for instruction counts beside the wall time (docs/instructions.md). */
  instructions: boolean;
}

/**
 * BenchCommand is what a comment asks for: `help`, a valid `run`, or an
 * `invalid` one with every problem found (each names the argument).
 */
export type BenchCommand =
  | { kind: 'help' }
  | ({ kind: 'run' } & BenchArguments)
  | { kind: 'invalid'; problems: string[] };

const KEYS = ['runs', 'runner', 'threshold'] as const;

/** INSTRUCTIONS_WORD is the `/bench` argument that asks for instruction counts. */
const INSTRUCTIONS_WORD = 'instructions';
type Key = (typeof KEYS)[number];

/**
 * parseBenchCommand finds a `/bench` command in a comment body and parses it,
 * or returns null when the comment holds none. The command is the first line
 * of a top-level paragraph that starts with `/bench` followed by a space or
 * the end of the line, as a CommonMark parser sees the comment
 * (findCommandLine): never in code, quotes or HTML. Its text is hostile until
 * proven otherwise: over MAX_COMMAND_LENGTH characters, any control
 * character, any non-ASCII character (bidi overrides, zero-width spaces and
 * look-alike letters included) or a shell-only construct in REGEX makes it
 * `invalid`, with the offending code point named. Valid arguments still reach
 * the workflow only as typed `workflow_dispatch` inputs.
 */
export function parseBenchCommand(body: string, limits: BenchLimits = {}): BenchCommand | null {
  const line = findCommandLine(body);
  return line === null ? null : parseCommandLine(line, limits);
}

/**
 * parseCommandLine parses a `/bench` line that findCommandLine returned, so
 * that a handler parses the comment's Markdown once and the line as often as
 * its policy needs (before and after reading the repository's limits).
 */
export function parseCommandLine(line: string, limits: BenchLimits = {}): BenchCommand {
  const hostile = hostileText(line);
  if (hostile !== null) return { kind: 'invalid', problems: [hostile] };

  const tokens = line.trim().split(/[ \t]+/).slice(1);
  if (tokens.length === 1 && tokens[0].toLowerCase() === 'help') return { kind: 'help' };
  if (tokens.length > 1 && tokens.some((t) => t.toLowerCase() === 'help')) return { kind: 'invalid', problems: ['`help` takes no other arguments'] };

  const problems: string[] = [];
  const args: BenchArguments = { filter: null, runs: null, runner: null, threshold: null, instructions: false };
  const seen = new Set<string>();
  for (const token of tokens) {
    const option = /^([A-Za-z][\w-]*)=(.*)$/s.exec(token);
    if (option && isKey(option[1].toLowerCase())) {
      const key = option[1].toLowerCase() as Key;
      if (seen.has(key)) {
        problems.push(`${inertCode(`${key}=`)} is given twice`);
        continue;
      }
      seen.add(key);
      const problem = setOption(args, key, option[2], limits);
      if (problem !== null) problems.push(problem);
      continue;
    }
    // The word `instructions` is the switch, never a REGEX: no benchmark filter needs to be that word.
    if (!option && token.toLowerCase() === INSTRUCTIONS_WORD) {
      if (args.instructions) problems.push('`instructions` is given twice');
      args.instructions = true;
      continue;
    }
    if (option) {
      problems.push(`unknown option ${inertCode(`${option[1]}=`)}; the options are ${KEYS.map((k) => `\`${k}=\``).join(', ')}`);
      continue;
    }
    if (args.filter !== null) {
      problems.push('give at most one REGEX (spaces separate arguments; use `\\s` inside a regular expression)');
      continue;
    }
    const problem = regexProblem(token);
    if (problem !== null) problems.push(problem);
    else args.filter = token;
  }
  return problems.length > 0 ? { kind: 'invalid', problems } : { kind: 'run', ...args };
}

function isKey(name: string): name is Key {
  return (KEYS as readonly string[]).includes(name);
}

function setOption(args: BenchArguments, key: Key, value: string, limits: BenchLimits): string | null {
  if (key === 'runs') {
    const max = limits.maxRuns ?? 100;
    if (!/^\d{1,6}$/.test(value) || Number(value) < 2 || Number(value) > max) return `${inertCode(`runs=${value}`)}: give a whole number from 2 to ${max}`;
    args.runs = Number(value);
    return null;
  }
  if (key === 'runner') {
    const allowed = limits.runners ?? [];
    if (!/^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/.test(value)) return `${inertCode(`runner=${value}`)}: a runner label is letters, digits, \`.\`, \`_\` and \`-\``;
    if (allowed.length === 0) return `${inertCode(`runner=${value}`)}: this repository lists no runner labels (\`bench.runners\` in \`.github/benchbot.yml\`)`;
    const match = allowed.find((label) => label.toLowerCase() === value.toLowerCase());
    if (match === undefined) return `${inertCode(`runner=${value}`)}: not one of ${allowed.map((l) => inertCode(l)).join(', ')} (\`bench.runners\` in \`.github/benchbot.yml\`)`;
    args.runner = match;
    return null;
  }
  // The one reading of a threshold (compare/thresholds.ts): 1.5% or 1.5; a bare 0.5 is ambiguous and refused with both readings.
  const fraction = /^\d{1,3}(\.\d{1,3})?%?$/.test(value) ? readPercent(value) : undefined;
  if (typeof fraction === 'object') return `${inertCode(`threshold=${value}`)}: ${value} is ${fraction.problem}`;
  if (fraction === undefined || fraction <= 0 || fraction > 0.5) return `${inertCode(`threshold=${value}`)}: give a percentage above 0% and at most 50%, e.g. \`threshold=1.5%\``;
  args.threshold = `${Number((fraction * 100).toFixed(3))}%`;
  return null;
}

/**
 * regexProblem checks REGEX: bounded length, none of the characters that
 * only matter to a shell, and a pattern the engine accepts. The shell
 * characters would be harmless as a typed input, but nothing legitimate
 * needs them, and refusing them keeps a later careless `run:` step from
 * becoming an injection. The pattern is compiled by compileNameFilter, the
 * engine's own (RE2 semantics, linear-time matching), so the app refuses
 * exactly what the run would refuse (backreferences, lookaround), before
 * anything is dispatched, and accepts nothing that could hang it.
 */
function regexProblem(token: string): string | null {
  if (token.length > MAX_REGEX_LENGTH) return `REGEX is ${token.length} characters long; the limit is ${MAX_REGEX_LENGTH}`;
  const shell = /[`'";&!]|\$[({]/.exec(token);
  if (shell) return `REGEX may not contain ${inertCode(shell[0])} (shell syntax is refused; benchmark names do not need it)`;
  try {
    compileNameFilter(token);
  } catch (error) {
    if (!(error instanceof NameFilterError)) throw error;
    return `REGEX is ${inertText(error.message)}`;
  }
  return null;
}

/**
 * hostileText returns a problem for text that must not be processed: too
 * long, control characters, or anything outside printable ASCII. Code points
 * are named, since an invisible character cannot be quoted back.
 */
function hostileText(line: string): string | null {
  if (line.length > MAX_COMMAND_LENGTH) return `the command is ${line.length} characters long; the limit is ${MAX_COMMAND_LENGTH}`;
  for (const ch of line) {
    const cp = ch.codePointAt(0) as number;
    if (cp === 0x09 || (cp >= 0x20 && cp < 0x7f)) continue;
    const name = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
    if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) return `the command contains the control character ${name}`;
    if (/\p{Cf}/u.test(ch)) return `the command contains the invisible formatting character ${name} (bidirectional or zero-width text is refused)`;
    return `the command contains the non-ASCII character ${name}; arguments are plain ASCII`;
  }
  return null;
}

/**
 * MAX_BODY_LENGTH bounds the comment body handed to the Markdown parser, in
 * code points: GitHub refuses comments over 65,536 characters, so anything
 * longer did not come from GitHub and is not read.
 */
export const MAX_BODY_LENGTH = 65_536;

/**
 * markdown parses comments as GitHub renders them: CommonMark with GFM
 * tables and HTML blocks (an HTML comment hides what is in it). markdown-it
 * guards against hostile nesting (maxNesting) and its parsers stay fast on
 * the CommonMark pathological inputs: 65,000 characters of nested quotes,
 * lists, brackets or emphasis take well under a second, where micromark
 * took a minute or overflowed the stack.
 */
const markdown = new MarkdownIt({ html: true });
markdown.block.ruler.before('reference', 'footnote_definition', footnoteDefinition, { alt: ['paragraph', 'reference', 'blockquote', 'list'] });
markdown.block.ruler.before('html_block', 'html_block_after_lazy_line', htmlBlockAfterLazyLine, { alt: ['paragraph', 'blockquote'] });
const builtIn = (name: string) => (markdown.block.ruler as unknown as { __rules__: { name: string; fn: RuleBlock }[] }).__rules__.find((r) => r.name === name)?.fn as RuleBlock;
const [linkReference, setextHeading, paragraph] = [builtIn('reference'), builtIn('lheading'), builtIn('paragraph')];
markdown.block.ruler.at('reference', referenceThenParagraph);

/** HTML_TAG_LINE is a line that opens an HTML block of CommonMark's 7th kind: one complete open or close tag of any name, then blanks. */
const HTML_TAG_LINE = new RegExp(`${HTML_OPEN_CLOSE_TAG_RE.source}\\s*$`);

/**
 * htmlBlockAfterLazyLine only ends blocks, as cmark-gfm does where
 * markdown-it does not: a line that is not inside a quote or list item
 * (no `>`, or indented less than the item's text) but would continue its
 * paragraph lazily opens an HTML block of the 7th kind (`<span>` alone) in
 * cmark-gfm, which then runs to the next blank line, a `/bench` line
 * included. CommonMark forbids that kind only to interrupt a paragraph, and
 * cmark-gfm checks that against the innermost container the line belongs to.
 */
function htmlBlockAfterLazyLine(state: StateBlock, line: number, _endLine: number, silent: boolean): boolean {
  if (!silent) return false;
  // markdown-it asks about a quote's lazy lines and a table's next row as `blockquote` terminators (parentType `table` for the row).
  const parent = state.parentType as string;
  const lazy = parent === 'blockquote' || parent === 'table' ? state.sCount[line] - state.blkIndent < 4 : parent === 'paragraph' && state.sCount[line] < state.blkIndent;
  return lazy && HTML_TAG_LINE.test(state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]));
}

/**
 * referenceThenParagraph reads link reference definitions as cmark-gfm
 * does: they are the start of a paragraph, taken out of it when it ends, so
 * a line after them that would have continued that paragraph (indented
 * code, `---` or an empty list item for markdown-it) is the first line of
 * the paragraph that remains.
 */
function referenceThenParagraph(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (!linkReference(state, startLine, endLine, silent)) return false;
  const next = state.line;
  if (!silent && next < endLine && continuesParagraph(state, next, endLine) && !linkReference(state, next, endLine, true)) {
    // Indented code for markdown-it, paragraph text for cmark-gfm: read at the paragraph's indent.
    const sCount = state.sCount[next];
    state.sCount[next] = Math.min(sCount, state.blkIndent);
    if (!setextHeading(state, next, endLine, false)) paragraph(state, next, endLine, false);
    state.sCount[next] = sCount;
  }
  return true;
}

/**
 * continuesParagraph tells whether a line would be the next line of a
 * paragraph in cmark-gfm: not blank, not outside the current container, and
 * indented code, a setext underline (which has no heading to underline once
 * the definitions are gone) or anything that cannot interrupt a paragraph.
 */
function continuesParagraph(state: StateBlock, line: number, endLine: number): boolean {
  if (state.isEmpty(line) || state.sCount[line] < state.blkIndent) return false;
  if (state.sCount[line] - state.blkIndent >= 4) return true;
  if (/^(?:=+|-+)[ \t]*$/.test(state.src.slice(state.bMarks[line] + state.tShift[line], state.eMarks[line]))) return true;
  const parentType = state.parentType;
  state.parentType = 'paragraph';
  const interrupted = state.md.block.ruler.getRules('paragraph').some((rule) => rule(state, line, endLine, true));
  state.parentType = parentType;
  return !interrupted;
}

/** FOOTNOTE_START is cmark-gfm's footnote definition opener: `[^`, a label without `]`, space, tab or line end, `]:`, then blanks. */
const FOOTNOTE_START = /^\[\^[^\] \t\r\n\0]+\]:[ \t]*/;

/**
 * footnoteDefinition reads a GFM footnote definition (`[^label]: text`) as
 * cmark-gfm does, GitHub's renderer: a container block, opened by a line
 * indented at most 3 spaces (it may interrupt a paragraph, a quote or a
 * list), whose content starts after the `]:` and its blanks, continued by
 * blank lines, lines indented 4 or more, and the lazy continuation lines of
 * a paragraph in it. GitHub shows it at the end of the comment, or not at
 * all when nothing refers to it, so a `/bench` in it is no command:
 * markdown-it alone reads `[^1]: x` as a link reference and the `/bench`
 * after it as a paragraph of its own.
 */
function footnoteDefinition(state: StateBlock, startLine: number, endLine: number, silent: boolean): boolean {
  if (state.sCount[startLine] - state.blkIndent >= 4) return false;
  const start = state.bMarks[startLine] + state.tShift[startLine];
  const opener = FOOTNOTE_START.exec(state.src.slice(start, state.eMarks[startLine]));
  if (opener === null) return false;
  if (silent) return true;
  const saved = { bMark: state.bMarks[startLine], tShift: state.tShift[startLine], sCount: state.sCount[startLine], parentType: state.parentType };
  // The content starts right after the blanks (never as indented code), at the container's indent.
  state.bMarks[startLine] = start + opener[0].length;
  state.tShift[startLine] = 0;
  state.blkIndent += 4;
  state.sCount[startLine] = state.blkIndent;
  state.parentType = 'footnote' as StateBlock['parentType'];
  state.push('footnote_definition_open', '', 1).map = [startLine, startLine];
  const open = state.tokens.length - 1;
  state.md.block.tokenize(state, startLine, endLine);
  state.push('footnote_definition_close', '', -1);
  state.tokens[open].map = [startLine, state.line];
  state.blkIndent -= 4;
  state.bMarks[startLine] = saved.bMark;
  state.tShift[startLine] = saved.tShift;
  state.sCount[startLine] = saved.sCount;
  state.parentType = saved.parentType;
  // An empty definition at the end of the body still takes its line.
  if (state.line <= startLine) state.line = startLine + 1;
  return true;
}

/**
 * findCommandLine returns the first line of the first top-level paragraph
 * that starts with `/bench` (followed by a space or the end of the line), or
 * null. The body is parsed once with a CommonMark parser (markdown-it, with
 * GFM tables and HTML blocks, as GitHub renders comments), so `/bench`
 * in code (fenced, indented, in a list item), in a quote (a lazy
 * continuation line included), in an HTML block (a multi-line `<!-- -->`
 * comment), in a heading, a table or a list never counts, and neither does
 * a later line of a paragraph. The line is cut at the first LF only: a
 * stray CR or other control character stays in it and is refused there.
 */
export function findCommandLine(body: string): string | null {
  // A code point is one or two UTF-16 units: count them only when the units alone cannot decide.
  if (body.length > 2 * MAX_BODY_LENGTH || (body.length > MAX_BODY_LENGTH && [...body].length > MAX_BODY_LENGTH)) return null;
  if (!/\/bench/i.test(body)) return null;
  // Token maps count lines as markdown-it splits them (CR LF, CR or LF); starts[n] is where line n begins in the body.
  const starts = [0];
  for (const m of body.matchAll(/\r\n?|\n/g)) starts.push(m.index + m[0].length);
  for (const token of markdown.parse(body, {})) {
    if (token.type !== 'paragraph_open' || token.level !== 0 || token.map === null) continue;
    const start = starts[token.map[0]];
    if (start === undefined) continue;
    const end = body.indexOf('\n', start);
    const line = body.slice(start, end === -1 ? body.length : end).replace(/\r$/, '').replace(/^[ \t]+/, '');
    if (/^\/bench(?=$|[^A-Za-z0-9_-])/i.test(line)) return line.replace(/[ \t]+$/, '');
  }
  return null;
}
