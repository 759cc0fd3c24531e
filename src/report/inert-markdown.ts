/**
 * inert-markdown: the one way text that benchbot did not write itself
 * (benchmark names, metrics, units, warnings, error messages, commit
 * subjects, refs, hints: anything that came from a pull request or its
 * output) reaches a surface GitHub renders. Every markdown renderer passes
 * such text through inertText (or inertCode, which is inertText in a
 * `<code>` element); plain-text titles take inertTitle, mermaid labels
 * inertMermaidLabel, fenced blocks codeFence, terminals and logs inertPlain.
 *
 * Why entities rather than code spans: an entity reference is literal text
 * in every context the renderers use (paragraphs, table cells, headings,
 * list items, and raw HTML such as `<summary>`), where a backtick code span
 * is not (it is raw text inside an HTML block and needs `\|` only inside
 * tables). Entities cannot stop what GitHub does after rendering, though:
 * mentions, `#N`/`GH-N` references and URL autolinks are found in the
 * decoded text, so those get a zero-width space that breaks the pattern.
 */

/** ZERO_WIDTH_SPACE breaks a mention, reference or autolink without showing. */
export const ZERO_WIDTH_SPACE = '\u200b';

// Controls (C0, DEL, C1) and Unicode line/paragraph separators would start a
// new block, a new log line or a terminal escape; bidi controls reorder what
// the reader sees (Trojan Source).
const CONTROLS = /[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g;
const BIDI = /[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/g;

/**
 * flatten makes text one line of well-formed, visible-order characters: the
 * first step of every function here, exported for callers that put text in
 * a code span they build themselves.
 */
export function flatten(text: string): string {
  return String(text).toWellFormed().replace(CONTROLS, ' ').replace(BIDI, '');
}

// Default-ignorable code points (zero-width space and joiners, word joiner, soft hyphen, BOM, variation selectors,
// Hangul fillers, tags, bidi controls) render as nothing, so `BM_a\u200bb` and `BM_ab` would look like one name.
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;
// A run of backslashes before what could be read as an escape (`u` and four hex digits, `u{`) or before an
// invisible character is doubled, so that a name that spells `\u200b` stays apart from one that holds U+200B.
const BACKSLASHES_BEFORE_ESCAPE = /(\\+)(?=u[0-9a-fA-F]{4}|u\{|\p{Default_Ignorable_Code_Point})/gu;

/**
 * showInvisible writes every default-ignorable character as a visible
 * escape (`\u200b`, `\u{e0041}`), one-to-one: backslashes that would
 * make a literal `\u200b` look like an escape are doubled first.
 */
export function showInvisible(text: string): string {
  return text.replace(BACKSLASHES_BEFORE_ESCAPE, '$1$1').replace(INVISIBLE, (ch) => {
    const code = ch.codePointAt(0) as number;
    return code > 0xffff ? `\\u{${code.toString(16)}}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

// ASCII punctuation that CommonMark or GFM give a meaning to anywhere in a
// line. `_` between two letters or digits cannot open or close emphasis, so
// it stays readable in names like BM_Parse.
const ACTIVE = /[\\`*~[\]<>&|!$]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
const NAMED: Record<string, string> = { '<': '&lt;', '>': '&gt;', '&': '&amp;' };

const entity = (ch: string) => NAMED[ch] ?? `&#${ch.codePointAt(0)};`;

/**
 * breakAutolinks inserts a zero-width space where GitHub or GFM would
 * otherwise make something live out of decoded text: `@user`, `@org/team`
 * and e-mail autolinks, `#12` and `owner/repo#12` references, `GH-12`,
 * and `http://`, `https://`, `www.` URL autolinks. Idempotent.
 */
function breakAutolinks(text: string): string {
  return text
    .replace(/([@#])(?!\u200b)/g, `$1${ZERO_WIDTH_SPACE}`)
    .replace(/(GH-)(?=\d)/gi, `$1${ZERO_WIDTH_SPACE}`)
    .replace(/:(?=\/\/)/g, `:${ZERO_WIDTH_SPACE}`)
    .replace(/(www)(?=\.)/gi, `$1${ZERO_WIDTH_SPACE}`);
}

/**
 * inertText escapes untrusted text for any inline markdown context: no raw
 * HTML or HTML comment (so never a second report marker), no link, image,
 * emphasis, table cell break, code span, math, live mention, reference or
 * autolink, and never a new block: line breaks become spaces, and a leading
 * list marker, ordered-list number or indentation is escaped, since list
 * items put the text at the start of a block. Invisible characters are
 * shown as escapes (showInvisible), so two names that differ only in them
 * read differently; the zero-width spaces that break autolinks are added after.
 */
export function inertText(text: string): string {
  const flat = breakAutolinks(flatten(showInvisible(String(text))));
  // Block starts that use characters ACTIVE leaves alone: `- x`, `---`, `+ x`, `===`, indentation, `1. x`, `1) x`.
  // A space at either end becomes an entity too, so that `**${text}**` still closes.
  return flat
    .replace(ACTIVE, entity)
    .replace(/^[-+= ]/, entity)
    .replace(/ $/, entity)
    .replace(/^(\d{1,9})([.)])(?= |$)/, (_, digits: string, mark: string) => `${digits}${entity(mark)}`);
}

/** inertCode shows untrusted text in monospace (names, metrics, refs): inertText inside `<code>`. */
export function inertCode(text: string): string {
  return `<code>${inertText(text)}</code>`;
}

/**
 * inertTitle makes untrusted text safe for GitHub's plain-text titles (issue
 * titles, check run titles), which show entities literally but still link
 * `#N` references: one line, no controls, autolinks broken, at most `max`
 * characters (GitHub caps issue titles at 256). Idempotent, so a title can
 * be compared with the one GitHub stores.
 */
export function inertTitle(text: string, max = 256): string {
  const title = breakAutolinks(flatten(text));
  return title.length <= max ? title : `${title.slice(0, max - 1).toWellFormed()}…`;
}

/**
 * inertMermaidLabel makes untrusted text a safe label inside a mermaid
 * string: letters, digits, spaces and plain punctuation only (`"` would end
 * the string, `#` starts a mermaid entity, backticks a markdown string,
 * `<`/`>`/`&` HTML, `;` a statement), everything else becomes `?`.
 */
export function inertMermaidLabel(text: string): string {
  return flatten(text)
    .replace(/</g, '‹').replace(/>/g, '›').replace(/"/g, "'")
    .replace(/[^\p{L}\p{N} _.,:/()+\-%*='‹›µμ[\]]/gu, '?')
    // `%%` starts a mermaid comment or an init directive.
    .replace(/%{2,}/g, '%');
}

/**
 * codeFence wraps lines in a fenced code block whose fence is longer than
 * any run of backticks in them, so no line can close it early. GitHub does
 * not link inside code, but a reply by e-mail quotes the comment as plain
 * text, where `@user` pings again: `@` still gets its zero-width space.
 */
export function codeFence(info: string, lines: readonly string[]): string {
  const body = lines.map((l) => flatten(l).replace(/@(?!\u200b)/g, `@${ZERO_WIDTH_SPACE}`)).join('\n');
  // A loop, not Math.max(...): untrusted text can hold 120 k+ backtick runs, too many to spread.
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const fence = '`'.repeat(Math.max(3, longest + 1));
  return `${fence}${info}\n${body}\n${fence}`;
}

/**
 * inertPlain makes untrusted text safe for a terminal or a CI log: one line,
 * no escape sequences or bidi controls, and no `::` at its start, which the
 * Actions runner would read as a workflow command when the text begins a line.
 */
export function inertPlain(text: string): string {
  const flat = flatten(text);
  return /^\s*::/.test(flat) ? `${ZERO_WIDTH_SPACE}${flat}` : flat;
}
