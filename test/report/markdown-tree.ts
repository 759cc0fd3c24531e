import { fromMarkdown } from 'mdast-util-from-markdown';
import { gfmFromMarkdown } from 'mdast-util-gfm';
import { gfm } from 'micromark-extension-gfm';

/**
 * Helpers that read rendered markdown the way GitHub does (CommonMark + GFM:
 * tables, autolink literals, strikethrough, footnotes) and say what in it is
 * live: raw HTML, links, images, and text that GitHub would turn into a
 * mention, reference or autolink after rendering.
 */

interface Node {
  type: string;
  value?: string;
  url?: string;
  depth?: number;
  lang?: string | null;
  ordered?: boolean | null;
  children?: Node[];
}

/** parseMarkdown parses GitHub-flavoured markdown into an mdast tree. */
export function parseMarkdown(markdown: string): Node {
  return fromMarkdown(markdown, { extensions: [gfm()], mdastExtensions: [gfmFromMarkdown()] }) as Node;
}

function walk(node: Node, visit: (n: Node) => void): void {
  visit(node);
  for (const child of node.children ?? []) walk(child, visit);
}

/**
 * structure lists every node but plain text, with what makes it live
 * (html value, link url, heading depth, code language): rendering hostile
 * text and rendering harmless text must give the same list, so anything
 * the hostile text made (a tag, a link, a new block, emphasis) shows up.
 */
export function structure(markdown: string): string[] {
  const out: string[] = [];
  walk(parseMarkdown(markdown), (n) => {
    if (n.type === 'text' || n.type === 'inlineCode') return;
    // A regression marker carries the (URI-encoded) series: the same marker whatever the text.
    const detail = n.type === 'html' ? n.value?.replace(/^<!-- benchbot:regression series=\S+ culprit=\S+ -->$/, '<!-- benchbot:regression -->') : n.type === 'link' || n.type === 'image' ? n.url : n.type === 'heading' ? n.depth : n.type === 'code' ? n.lang : n.type === 'list' ? n.ordered : undefined;
    out.push(detail === undefined ? n.type : `${n.type} ${JSON.stringify(detail)}`);
  });
  return out;
}

/**
 * outsideCode is the markdown with fenced and indented code blocks blanked
 * out: inside them GitHub shows text as text, so a raw `<!--` or `@user`
 * there (a shell command quoting a benchmark name) is harmless.
 */
export function outsideCode(markdown: string): string {
  let out = markdown;
  walk(parseMarkdown(markdown), (n) => {
    const at = (n as { position?: { start: { offset: number }; end: { offset: number } } }).position;
    if (n.type === 'code' && at) out = out.slice(0, at.start.offset) + ' '.repeat(at.end.offset - at.start.offset) + out.slice(at.end.offset);
  });
  return out;
}

/**
 * LIVE_PATTERNS are what GitHub links or notifies after rendering, found in
 * decoded text: `@user`/`@org/team` (and e-mail), `#12`, `GH-12`, URLs.
 */
export const LIVE_PATTERNS: Record<string, RegExp> = {
  mention: /(?:^|[^\p{L}\p{N}_`])@[a-z0-9]/iu,
  email: /[\w.+-]@[a-z0-9]/i,
  reference: /(?:^|[^\p{L}\p{N}_&])#\d/u,
  gh: /\bGH-\d/i,
  url: /[a-z][a-z0-9+.-]*:\/\//i,
  www: /(?:^|[^\p{L}\p{N}])www\./iu,
};

/** liveText lists the text nodes (outside code) that match a LIVE_PATTERN, as `pattern: text`. */
export function liveText(markdown: string): string[] {
  const out: string[] = [];
  walk(parseMarkdown(markdown), (n) => {
    if (n.type !== 'text' || n.value === undefined) return;
    for (const [name, pattern] of Object.entries(LIVE_PATTERNS)) if (pattern.test(n.value)) out.push(`${name}: ${n.value}`);
  });
  return out;
}

/** Random is a small seeded generator (mulberry32), so a failing case can be replayed. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** HOSTILE_PARTS are the pieces hostile strings are made of: every markdown, HTML, GitHub and log construct a report must not let through. */
export const HOSTILE_PARTS = [
  '<', '>', '<!--', '-->', '<!-- benchbot:report -->', '</details>', '<details>', '<img src=x>', '<a href="https://evil.example">', '<script>',
  '@octocat', '@org/team', ' @octocat', 'a@evil.example', '#12', ' #12', 'owner/repo#12', 'GH-12', 'https://evil.example/p.png', 'www.evil.example',
  'http://x.y', 'mailto:a@b.c', '[x](https://evil.example)', '![x](https://evil.example/p.png)', '[x]', '[^1]', '[x]: https://evil.example', '[!NOTE]',
  '*', '**', '_', '__', '~', '~~', '`', '```', '~~~', '\\', '|', '!', '$', '$$', '&amp;', '&#64;', '&lt;img&gt;',
  '\n', '\r', '\r\n', '\n\n', '\t', '\u2028', '\u202e', '\u0000', '\u001b[31m', '::error::x',
  '    ', '- ', '+ ', '* ', '1. ', '1) ', '> ', '# ', '---', '===', ':', '//', ' ', 'x', 'BM_Sort<int>/8', 'ns', 'µs', '%',
] as const;

/** hostileString draws 1 to 8 parts. */
export function hostileString(next: () => number): string {
  const n = 1 + Math.floor(next() * 8);
  let s = '';
  for (let i = 0; i < n; i++) s += HOSTILE_PARTS[Math.floor(next() * HOSTILE_PARTS.length)];
  return s;
}

/** ATTACK is the unit from issue 10: a second marker, an unclosed comment, an image, a mention and a tag. */
export const ATTACK = 'ns\n\n</details><!-- benchbot:report -->\n![x](https://evil.example/p.png) @octocat <img src=x>';
