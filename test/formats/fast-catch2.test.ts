import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { catch2Reader } from '../../src/formats/catch2.ts';
import { catch2Reader as referenceCatch2Reader } from './reference/catch2.ts';
import { assertSameOnRandom, assertSameOutcome, CASES, fixturesOf, pick, SEED } from './reference/differential.ts';
import { seededRandom } from '../support/random.ts';

// The Catch2 reader reads the usual lines of a console table in place (a row,
// its mean line, blank and indented lines) and every other line its general
// way. Here it is compared with the reader as it was before
// (test/formats/reference/catch2.ts).

const RULE = '-'.repeat(79);
const HEADERS = [
  `benchmark name                       samples       iterations    estimated\n                                     mean          low mean      high mean\n                                     std dev       low std dev   high std dev\n${RULE}`,
  `benchmark name                       samples       iterations    est run time\n                                     mean          low mean      high mean\n                                     std dev       low std dev   high std dev\n${RULE}`,
  `benchmark name                            samples    iterations          mean\n${RULE}`,
];
const NAMES = ['fibonacci 10', 'Fibonacci~ 5!', 'a', 'a name long enough to be wrapped at th-', 'e column', 'x\u00a0y', 'tab\tname', 'cr\rname', 'line\u2028break', 'throws', '-', '=', 'benchmark name'];
const GAPS = ['  ', '   ', '                          ', ' ', '\t\t', ' \u00a0 '];
const VALUES = ['557.46', '183.889', '0.9048', '6', '5.', '.5', '.', '1,234', '-1', '1e3', '1.2.3', '9'.repeat(400), 'x'];
const UNITS = ['ns', 'us', 'ms', 's', 'm', 'µs', 'min', 'ns '];
const OTHER = ['', '   ', RULE, '='.repeat(79), '~'.repeat(79), 'test cases: 1 | 1 passed', 'bench.cpp:15', '.'.repeat(79), 'Generated', 'throws                               Benchmark failed (deliberate failure) '];

const duration = (random: () => number) => `${pick(random, VALUES.slice(0, 4))} ${pick(random, UNITS.slice(0, 5))}`;

function row(random: () => number, clean: boolean): string {
  if (clean) return `${pick(random, NAMES.slice(0, 3)).padEnd(37)}${'100'.padStart(10)}${'15'.padStart(14)}${duration(random).padStart(15)} `;
  return `${pick(random, NAMES)}${pick(random, GAPS)}${pick(random, ['100', '20', '1x'])}${pick(random, GAPS)}${pick(random, ['15', '171'])}${pick(random, GAPS)}${pick(random, VALUES)}${pick(random, [' ', ' ', '  ', '\t'])}${pick(random, UNITS)}${pick(random, ['', ' ', '\t', '\u00a0'])}`;
}

function meanLine(random: () => number, clean: boolean): string {
  if (clean) return `${duration(random).padStart(50)}    ${duration(random)}    ${duration(random)} `;
  const parts = Array.from({ length: 3 }, () => `${pick(random, VALUES)}${pick(random, [' ', ' ', '  '])}${pick(random, UNITS)}`);
  return `${pick(random, ['    ', ' ', '\t', '', '\u00a0 '])}${parts.join(pick(random, ['    ', ' ', '\t']))}${pick(random, ['', ' ', '\u00a0'])}`;
}

function catch2Document(random: () => number): string {
  const analysis = random() < 0.7;
  const clean = random() < 0.6;
  const lines: string[] = ['Catch v2.13.10 host application.', '', random() < 0.05 ? 'no table here' : analysis ? pick(random, HEADERS.slice(0, 2)) : HEADERS[2]];
  const count = 1 + Math.floor(random() * 10);
  for (let i = 0; i < count; i++) {
    if (random() < (clean ? 0.02 : 0.15)) lines.push(pick(random, OTHER));
    if (random() < 0.05) lines.push(pick(random, NAMES), ...(random() < 0.5 ? [pick(random, ['   ', '    note', '\t', ''])] : []));
    lines.push(row(random, clean || random() < 0.7));
    if (analysis) lines.push(meanLine(random, clean || random() < 0.8), meanLine(random, true), ' '.repeat(79));
    if (random() < 0.03) lines.push(pick(random, HEADERS));
  }
  lines.push('', '='.repeat(79), 'test cases: 1 | 1 passed');
  return lines.join(random() < 0.85 ? '\n' : pick(random, ['\r\n', '\n\n', '\r']));
}

const XML_NAMES = ['fibonacci 10', 'a &amp; b', ' padded ', '', '&#x41;', 'x<y', "it's", 'throws'];
const XML_VALUES = ['179.604', '2558.44', '0', '5.', '.5', '-1', '1e3', '1,234', 'x', '&#49;', '', '9'.repeat(400)];
const XML_SPACE = [' ', '  ', '\n        ', '\t', '\u00a0'];

function benchmarkXml(random: () => number, clean: boolean): string {
  const q = clean || random() < 0.9 ? '"' : "'";
  const space = () => (clean || random() < 0.9 ? ' ' : pick(random, XML_SPACE));
  const name = clean ? `fibonacci ${Math.floor(random() * 5)}` : pick(random, XML_NAMES);
  const parts = [`<BenchmarkResults${space()}name=${q}${name}${q} samples="20"${random() < 0.05 ? ` name="${pick(random, XML_NAMES)}"` : ''}>`];
  if (random() < 0.9) parts.push('<!--All values in nano seconds-->');
  if (!clean && random() < 0.1) parts.push(`<failed message="${pick(random, ['boom', 'a &lt; b', ''])}"/>`);
  else if (clean || random() < 0.9) parts.push(`<mean${space()}value=${q}${clean ? (random() * 1000).toFixed(2) : pick(random, XML_VALUES)}${q} lowerBound="2432.06" ci="0.95"/>`);
  parts.push('<standardDeviation value="246.984" lowerBound="175.05"/>', '<outliers variance="0.433024" lowMild="4"/>');
  if (!clean && random() < 0.1) parts.splice(1 + Math.floor(random() * (parts.length - 1)), 0, pick(random, ['<mean value="1">', '<![CDATA[ x ]]>', '<?pi x?>', '<!DOCTYPE x>', '<a b=c/>', '<a b="1"c="2"/>', '<a/ >', '</b>', '< a/>', '<!-- open']));
  parts.push(random() < 0.98 || clean ? '</BenchmarkResults>' : pick(random, ['</BenchmarkResult>', '</BenchmarkResults >', '']));
  return parts.join(random() < 0.8 ? '\n        ' : '');
}

function catch2XmlDocument(random: () => number): string {
  const clean = random() < 0.6;
  const v3 = random() < 0.3;
  const count = random() < 0.05 ? 0 : 1 + Math.floor(random() * 8);
  const benchmarks = Array.from({ length: count }, () => benchmarkXml(random, clean));
  const open = v3 ? `<Catch2TestRun name="bench" rng-seed="1" catch2-version="${pick(random, ['3.4.0', '3.&amp;', ''])}">` : '<Catch name="bench">';
  const close = v3 ? '</Catch2TestRun>' : '</Catch>';
  return `<?xml version="1.0" encoding="UTF-8"?>\n${open}\n  <TestCase name="Generated" line="15">\n      ${benchmarks.join('\n      ')}\n      <OverallResult success="true"/>\n    </TestCase>\n${random() < 0.97 ? close : ''}\n`;
}

describe('fast Catch2 reader agrees with the reference reader', () => {
  it('on every Catch2 fixture', () => {
    for (const file of fixturesOf('catch2')) assertSameOutcome(catch2Reader, referenceCatch2Reader, file);
  });

  it('on tricky lines', () => {
    const h = HEADERS[0];
    const texts = [
      `${h}\na  100  15  5 ns\n    1 ns 2 ns 3 ns\n    1 ns 2 ns 3 ns\n\na  100  15  5 ns\n    4 us 2 ns 3 ns`,
      `${h}\r\na  100  15  5 ns \r\n    1 ns 2 ns 3 ns \r\n`,
      `${h}\na name long enough to be wrapped at th-\ne column  100  15  5 ns\n    1 ns 2 ns 3 ns`,
      `${h}\na  100  15  5 ns\n    1 ns 2 ns\n`,
      `${h}\na  100  15  5 ns\n    1 ns  2 ns 3 ns\n    1  ns 2 ns 3 ns`,
      `${h}\na  100  15  5 ns\n    ${'9'.repeat(400)} m 2 ns 3 ns`,
      `${h}\na  100  15  5 ns\n    0.1 ns 2 ns 3 ns\na  100  15  5 ns\n    0.30000000000000004 ns 2 ns 3 ns`,
      `${h}\na  100  15  5 ns\n    5. ns .5 ns 3 ns\nb  100  15  5 ns\n    .5 ns 2 ns 3 ns`,
      `${HEADERS[2]}\na  100  15  5 ns\nb  100  15  ${'9'.repeat(400)} m\n`,
      `${HEADERS[2]}\na  100  15  5 ns\nb 100  15  5 ns\nc  1x  15  5 ns\nd  100  15  5  ns\ne  100  15  5ns`,
      `${HEADERS[2]}\n-a  100  15  5 ns\n=b  100  15  5 ns\n~c  100  15  5 ns`,
      `${h}\nbenchmark name  100  15  5 ns\n    1 ns 2 ns 3 ns`,
      `${h}\na name long enough to be wrapped at th-\n    an indented line\ne column  100  15  5 ns\n    1 ns 2 ns 3 ns`,
      `${h}\nx\n   \ny  100  15  5 ns\n    1 ns 2 ns 3 ns\nx\n\t\u00a0\ny  100  15  5 ns\n    1 ns 2 ns 3 ns`,
      `${h}\n`,
      '',
    ];
    for (const text of texts) assertSameOutcome(catch2Reader, referenceCatch2Reader, { path: 'bench.txt', text });
  });

  it(`on ${CASES} random console documents (seed ${SEED})`, () => {
    assertSameOnRandom(catch2Reader, referenceCatch2Reader, catch2Document);
  });

  it('on tricky XML', () => {
    const texts = [
      '<Catch><BenchmarkResults name="a"><mean value="1" value="2"/></BenchmarkResults><BenchmarkResults name="a"><mean value="3"/></BenchmarkResults></Catch>',
      '<Catch><BenchmarkResults name="a" name=""><mean value="1"/></BenchmarkResults></Catch>',
      '<Catch><BenchmarkResults name="a"><mean value="-0"/></BenchmarkResults><BenchmarkResults name="a"><mean value="0.30000000000000004"/></BenchmarkResults></Catch>',
      '<Catch><BenchmarkResults name="a"><failed/></BenchmarkResults><BenchmarkResults name="b"/></Catch>',
      '<Catch><BenchmarkResults name="a"><BenchmarkResults name="b"/></BenchmarkResults></Catch>',
      '<Catch><mean value="1"/><BenchmarkResults name="a"><mean value="2"/><failed message="x"/></BenchmarkResults></Catch>',
      '<Catch2TestRun catch2-version="3.1.0" catch2-version="3.2.0"><BenchmarkResults name="a"><mean value="1"/></BenchmarkResults></Catch2TestRun>',
      '<Catch><BenchmarkResults name="a"><mean value="1"/></BenchmarkResults></Catch><extra>',
      '<Catch><BenchmarkResults name="a"><mean value="1"/></BenchmarkResults></Catch>\n<!-- never closed',
      '<Catch><BenchmarkResults name="a&#x10FFFF;&#x110000;"><mean value="1"/></BenchmarkResults></Catch>',
      '<Catch><BenchmarkResults name=\'a\'><mean value=\'1\' x="<"/></BenchmarkResults></Catch>',
      '<Catch><BenchmarkResults name="a"><mean value="1"/></BenchmarkResults></Catch:x>',
      '<_a.b-c:d><BenchmarkResults name="a"><mean value="1"/></BenchmarkResults></_a.b-c:d >',
      '<Catch><BenchmarkResults name="a"><mean value="1"x="2"/></BenchmarkResults></Catch>',
      '<Catch><BenchmarkResults name="a"><mean value = "1" /></BenchmarkResults ></Catch>',
      '<',
      '<Catch>',
    ];
    for (const text of texts) assertSameOutcome(catch2Reader, referenceCatch2Reader, { path: 'bench.xml', text });
  });

  it("on tags across the end of the reader's window", () => {
    // The fast path reads tags from a 64 Ki window of the text: these tags run longer than
    // its 4 Ki margin, so many start near its end and run past it (a mutant that takes the
    // window's end for a quote, a name's end or the tag's `>` reads other names and values).
    const random = seededRandom(SEED);
    for (let d = 0; d < 6; d++) {
      const parts = ['<Catch name="bench">'];
      for (let k = 0; k < 60; k++) {
        const name = `n${k % 7}${'abcdefgh'[k % 8].repeat(Math.floor(random() * 9000))}`;
        const pad = ' '.repeat(Math.floor(random() * 6000));
        const value = `${Math.floor(random() * 100000)}.${Math.floor(random() * 100)}`;
        const element = d === 5 && k === 30 ? `Catch${'x'.repeat(5000)}` : 'BenchmarkResults';
        parts.push(`<${element} name="${name}"${pad} samples="20"${pad}>`, `<mean${pad} value="${value}"${pad}/>`, `</${element}${pad}>`);
      }
      parts.push('</Catch>');
      const text = parts.join(random() < 0.5 ? '\n' : '');
      assert.ok(text.length > 5 * 65536);
      assert.equal(assertSameOutcome(catch2Reader, referenceCatch2Reader, { path: 'bench.xml', text }), 'read');
      // Cut short anywhere: the reader refuses it as the reference does.
      assertSameOutcome(catch2Reader, referenceCatch2Reader, { path: 'bench.xml', text: text.slice(0, Math.floor(random() * text.length)) });
    }
    // A tag that starts 4,196 units before the end of the first window (a 64 Ki one from the
    // first `<`, moved on once a tag starts within 4 Ki of its end) runs past it in its white space.
    const across = (before: string, tag: string, after: string) => {
      const filler = 61340 - before.length - 7;
      return `${before}<!--${'-'.repeat(filler)}-->${tag}${after}`;
    };
    const gap = ' '.repeat(5000);
    const mean = '<mean value="1"/>';
    for (const text of [
      across(`<Catch><BenchmarkResults name="a">${mean}`, `</BenchmarkResults${gap}x>`, '</Catch>'),
      across(`<Catch><BenchmarkResults name="a">${mean}`, `</BenchmarkResults${gap}>`, '</Catch>'),
      across('<Catch>', `<BenchmarkResults name="a"${gap} name="b">`, `${mean}</BenchmarkResults></Catch>`),
      across('<Catch><BenchmarkResults name="a">', `<mean value="1"${gap} value="2"></mean>`, '</BenchmarkResults></Catch>'),
      across('<Catch><BenchmarkResults name="a">', `<mean value="1"${gap}/>`, '</BenchmarkResults></Catch>'),
      across('<Catch>', `<BenchmarkResults name="${'q'.repeat(5000)}">`, `${mean}</BenchmarkResults></Catch>`),
    ]) {
      assert.equal(text.indexOf('<', 61300), 61340);
      assertSameOutcome(catch2Reader, referenceCatch2Reader, { path: 'bench.xml', text });
    }
    // A tag longer than the whole window (the file is read the general way).
    const long = `<Catch><BenchmarkResults name="${'y'.repeat(70000)}"><mean value="1.5"/></BenchmarkResults><BenchmarkResults name="z"${' '.repeat(70000)}><mean value="2.5"/></BenchmarkResults></Catch>`;
    assert.equal(assertSameOutcome(catch2Reader, referenceCatch2Reader, { path: 'bench.xml', text: long }), 'read');
  });

  it(`on ${CASES} random XML documents`, () => {
    assertSameOnRandom(catch2Reader, referenceCatch2Reader, catch2XmlDocument);
  });
});
