import { test } from 'node:test';
import assert from 'node:assert/strict';
import { liveText, structure } from '../report/markdown-tree.ts';
import { parseBenchCommand } from '../../src/app/bench-command.ts';

const run = (filter: string | null, runs: number | null, runner: string | null, threshold: string | null, instructions = false) => ({ kind: 'run', filter, runs, runner, threshold, instructions });

test('finds the command on its own line, outside quotes and code fences', () => {
  assert.deepEqual(parseBenchCommand('/bench'), run(null, null, null, null));
  assert.deepEqual(parseBenchCommand('LGTM\r\n\r\n  /BENCH  \r\nthanks'), run(null, null, null, null));
  assert.equal(parseBenchCommand('please /bench this'), null);
  assert.equal(parseBenchCommand('/benchmark results'), null);
  assert.equal(parseBenchCommand('> /bench'), null);
  assert.equal(parseBenchCommand('```\n/bench\n```'), null);
  assert.equal(parseBenchCommand('~~~sh\n/bench\n~~~'), null);
  assert.deepEqual(parseBenchCommand('```\nx\n```\n/bench runs=3'), run(null, 3, null, null));
  assert.equal(parseBenchCommand(''), null);
});

test('follows CommonMark: only the first line of a top-level paragraph is a command', () => {
  const none = [
    'Try this:\n\n    /bench', // indented code block
    '10. run it:\n\n    ```\n    /bench\n    ```', // fence inside a list item
    '````\n```\n/bench\n```\n````', // a ``` line does not close a ```` fence
    '> you could say\n/bench', // lazy continuation: still the quote's paragraph
    '<!--\nnote to self:\n/bench\n-->', // HTML block until -->
    'I will not say\n/bench', // second line of a paragraph
    '- /bench', // a list item, not a top-level paragraph
    '# /bench', // a heading
    '/bench\n===', // a setext heading
    '\\/bench', // escaped
    '`/bench`', // code span
    '[/bench](https://example.com)', // link text
    '| a |\n|---|\n| /bench |', // a table cell
    '[^1]: x\n/bench', // a footnote definition's lazy line: GitHub shows the footnote at the end, or nowhere when unreferenced
    'text\n[^note]: x\n/bench', // a footnote definition interrupts a paragraph
    '[^1]: x\n    /bench', // indented: still the footnote
    '[^1]: x\n\n    /bench', // after a blank line too
    '> quote\n<span>\n/bench', // cmark-gfm opens an HTML block on a lazy line, which runs to the next blank line
    '- item\n<custom-tag>\n/bench',
    '| a |\n|---|\n<span>\n/bench', // and on a table's next row
  ];
  for (const body of none) assert.equal(parseBenchCommand(body), null, JSON.stringify(body));
  assert.deepEqual(parseBenchCommand('> quote\n\n/bench runs=4'), run(null, 4, null, null));
  assert.deepEqual(parseBenchCommand('/bench runs=4\nand some words'), run(null, 4, null, null));
  // Where cmark-gfm shows a paragraph: a definition that ends before it, or a label GitHub does not take for a footnote.
  assert.deepEqual(parseBenchCommand('[^1]: x\n\n/bench runs=4'), run(null, 4, null, null));
  assert.deepEqual(parseBenchCommand('[^1]:\n/bench runs=4'), run(null, 4, null, null));
  assert.deepEqual(parseBenchCommand('[ref]: https://example.com\n    /bench runs=4'), run(null, 4, null, null));
  assert.deepEqual(parseBenchCommand('- item\n  <span>\n\n/bench runs=4'), run(null, 4, null, null));
  assert.equal(parseBenchCommand(`${'x'.repeat(70_000)}\n\n/bench`), null, 'longer than GitHub allows: not read');
});

test('parses REGEX and the options, whatever their order', () => {
  assert.deepEqual(parseBenchCommand('/bench threshold=1.5% BM_(Foo|Bar)<int>/\\d+ runs=20', { runners: ['bench'] }), run('BM_(Foo|Bar)<int>/\\d+', 20, null, '1.5%'));
  assert.deepEqual(parseBenchCommand('/bench runner=Pixel-7', { runners: ['pixel-7'] }), run(null, null, 'pixel-7', null));
  assert.deepEqual(parseBenchCommand('/bench runs=100'), run(null, 100, null, null));
  assert.deepEqual(parseBenchCommand('/bench threshold=50%'), run(null, null, null, '50%'));
  assert.deepEqual(parseBenchCommand('/bench help'), { kind: 'help' });
  assert.deepEqual(parseBenchCommand('/bench HELP'), { kind: 'help' });
});

test('bad arguments are invalid, with every problem named', () => {
  const problems = (body: string, limits = {}) => {
    const c = parseBenchCommand(body, limits);
    assert.equal(c?.kind, 'invalid', body);
    return (c as { problems: string[] }).problems;
  };
  assert.match(problems('/bench runs=1')[0], /runs=1.*2 to 100/);
  assert.match(problems('/bench runs=101')[0], /2 to 100/);
  assert.match(problems('/bench runs=30', { maxRuns: 20 })[0], /2 to 20/);
  assert.match(problems('/bench runs=-3')[0], /whole number/);
  assert.match(problems('/bench runner=bench')[0], /lists no runner labels/);
  assert.match(problems('/bench runner=gpu', { runners: ['bench'] })[0], /not one of <code>bench<\/code>/);
  assert.match(problems('/bench threshold=0%')[0], /above 0%/);
  assert.match(problems('/bench threshold=2x')[0], /percentage/);
  // The one reading of a threshold: a bare 2 is 2%, a bare 0.5 is refused with both readings named.
  assert.deepEqual(parseBenchCommand('/bench threshold=2'), run(null, null, null, '2%'));
  assert.match(problems('/bench threshold=0.5')[0], /0\.5 is ambiguous: write 0\.5% or 50%/);
  assert.match(problems('/bench bogus=1')[0], /unknown option <code>bogus=<\/code>/);
  assert.match(problems('/bench a b')[0], /at most one REGEX/);
  assert.match(problems('/bench runs=2 runs=3')[0], /given twice/);
  assert.match(problems('/bench (')[0], /not a valid regular expression/);
  // The engine's RE2 semantics: what the run would refuse is refused here.
  assert.match(problems('/bench (?<=a)b')[0], /no backreferences or lookaround/);
  assert.match(problems('/bench (?=x)y')[0], /no backreferences or lookaround/);
  assert.match(problems('/bench (a)\\1')[0], /no backreferences or lookaround/);
  assert.deepEqual(parseBenchCommand('/bench (a+)+$'), run('(a+)+$', null, null, null));
  assert.match(problems('/bench help me')[0], /help/);
  assert.equal(problems('/bench runs=1 runner=x bogus=2 (').length, 4);
});

test('hostile text is refused and named by code point, never echoed', () => {
  const cases: [string, RegExp][] = [
    ['/bench $(id)', /may not contain <code>&#36;\(<\/code>/],
    ['/bench ${{github.token}}', /may not contain <code>&#36;\{<\/code>/],
    ['/bench `id`', /may not contain <code>&#96;<\/code>/],
    ['/bench a;b', /may not contain <code>;<\/code>/],
    ['/bench a&&b', /may not contain <code>&amp;<\/code>/],
    ['/bench "a"', /may not contain <code>"<\/code>/],
    ['/bench a\u202Eb', /invisible formatting character U\+202E/],
    ['/bench a\u2066b', /U\+2066/],
    ['/bench a\u200Bb', /U\+200B/],
    ['/bench a\uFEFFb', /U\+FEFF/],
    ['/bench a\u0000b', /control character U\+0000/],
    ['/bench a\rb', /control character U\+000D/],
    ['/bench a\u0085b', /control character U\+0085/],
    ['/bench runner=b\u0435nch', /non-ASCII character U\+0435/],
    ['/bench caf\u00e9', /non-ASCII character U\+00E9/],
    [`/bench ${'x'.repeat(300)}`, /characters long; the limit is 300/],
    [`/bench ${'x'.repeat(201)}`, /REGEX is 201 characters long/],
  ];
  for (const [body, expected] of cases) {
    const c = parseBenchCommand(body);
    assert.equal(c?.kind, 'invalid', JSON.stringify(body));
    const text = (c as { problems: string[] }).problems.join('\n');
    assert.match(text, expected, JSON.stringify(body));
    assert.ok(!/[\u0000\r\u0085\u202E\u2066\u200B\uFEFF]/.test(text), 'problems never carry the invisible characters');
  }
});

test('a body is read up to GitHub\'s limit in characters, not UTF-16 units', () => {
  const astral = '\u{1F680}'.repeat(40_000); // 80,000 UTF-16 units, 40,000 characters
  assert.deepEqual(parseBenchCommand(`${astral}\n\n/bench`), run(null, null, null, null));
  assert.equal(parseBenchCommand(`${'\u{1F680}'.repeat(65_537)}\n\n/bench`), null);
});

test('hostile Markdown cannot hang or crash the command search', () => {
  const n = 65_000;
  const bodies = [
    '>'.repeat(n), // nested quotes on one line
    `${'> '.repeat(100)}x\n${'lazy\n'.repeat(n / 6)}`, // deep quote kept open by lazy lines
    `${'- '.repeat(n / 2)}x`, // nested lists on one line
    `${'- '.repeat(8)}x\n`.repeat(n / 19), // many nested list items
    '*a_'.repeat(n / 3), // emphasis delimiters
    '['.repeat(n), // link openers
    '![a]('.repeat(n / 5), // unclosed images
    '`'.repeat(n), // a code span opener run
    `|a|b|\n|-|-|\n${'|x|\n'.repeat(n / 4 - 10)}`, // a long table
    '[^a]: '.repeat(n / 6), // nested footnote definitions on one line
    `[^a]: x\n${'    [^b]: y\n'.repeat(n / 12)}`, // a footnote kept open by indented lines
    `${'[r]: /u\n'.repeat(n / 8)}`, // many link reference definitions
    `[r]: /u\n${'    x\n'.repeat(n / 6)}`, // a reference's remaining paragraph
    `> q\n${'<span>\n> q\n'.repeat(n / 12)}`, // quotes ended by HTML blocks
  ];
  assert.deepEqual(parseBenchCommand(`${'*a_'.repeat(n / 3)}\n\n/bench runs=3`), run(null, 3, null, null));
  for (const hostile of bodies) {
    const started = performance.now();
    const found = parseBenchCommand(`${hostile}\n\n/bench runs=3`);
    // Past the parser's nesting limit the rest is not read: no command, which is the safe side.
    if (found !== null) assert.deepEqual(found, run(null, 3, null, null), hostile.slice(0, 20));
    assert.ok(performance.now() - started < 2000, `${hostile.slice(0, 20)}: ${performance.now() - started} ms`);
  }
});

test('arguments echoed in a refusal cannot break out of their code span: no mention, reference, link or HTML', () => {
  const hostile = [
    '/bench runs=`@octocat`',
    '/bench runs=``@org/team``',
    '/bench runner=a`<img src=x>`#12',
    '/bench threshold=`[x](https://evil.example)`',
    '/bench runs=1 runner=`</code>@octocat` threshold=5`%`<!--',
  ];
  for (const body of hostile) {
    const command = parseBenchCommand(body, { runners: ['bench'] });
    assert.equal(command?.kind, 'invalid', body);
    // As the reply lists them (issue-comment-created.ts).
    const reply = (command as { problems: string[] }).problems.map((p) => `- ${p}`).join('\n');
    assert.deepEqual(liveText(reply), [], `${body}: live text in ${reply}`);
    const html = structure(reply).filter((n) => n.startsWith('html'));
    assert.ok(html.every((n) => /^html "<\/?code>"$/.test(n)), `${body}: only <code> tags, got ${html.join(', ')}`);
    assert.ok(!structure(reply).some((n) => /^(link|image|inlineCode)/.test(n)), `${body}: no link, image or stray code span in ${reply}`);
  }
});

test('the word instructions asks for instruction counts, once, beside any REGEX', () => {
  assert.deepEqual(parseBenchCommand('/bench instructions'), run(null, null, null, null, true));
  assert.deepEqual(parseBenchCommand('/bench ^BM_Parse INSTRUCTIONS runs=4'), run('^BM_Parse', 4, null, null, true));
  assert.deepEqual(parseBenchCommand('/bench instructions instructions'), { kind: 'invalid', problems: ['`instructions` is given twice'] });
  // Only the word itself: a REGEX that contains it is a REGEX.
  assert.deepEqual(parseBenchCommand('/bench instructions.*'), run('instructions.*', null, null, null));
});
