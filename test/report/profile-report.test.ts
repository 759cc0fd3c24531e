// The differential profile's renderers: what a reader sees (the function
// the change lives in, with its share), and function names as hostile as
// benchmark names (C++ templates hold < > | * & `, and a profiled program can
// name its functions anything) inert in the markdown and the terminal.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { describe, it } from 'node:test';
import { parseCallgrind } from '../../src/formats/callgrind-profile.ts';
import { parsePerfScript } from '../../src/formats/perf-script-profile.ts';
import { diffProfiles } from '../../src/compare/profile-diff.ts';
import type { ProfileDiff } from '../../src/model/profile-diff.ts';
import { renderProfile, renderProfileMarkdown, renderProfileText } from '../../src/report/profile-report.ts';
import { ATTACK, hostileString, liveText, outsideCode, parseMarkdown, random, structure } from './markdown-tree.ts';

const DIR = join(import.meta.dirname, '../../fixtures/callgrind');
const profile = (name: string) => parseCallgrind(readFileSync(join(DIR, `${name}.out`), 'utf8'), `${name}.out`);
const DIFF = diffProfiles('BM_Mix', { profile: profile('base'), iterations: 20, sha: 'a'.repeat(40) }, { profile: profile('head'), iterations: 30, sha: 'b'.repeat(40) }, { top: 4 });

/** named is DIFF with every name and object (and the benchmark) replaced by text(i). */
function named(text: (i: number) => string): ProfileDiff {
  return {
    ...DIFF,
    benchmark: text(0),
    self: DIFF.self.map((f, i) => ({ ...f, name: text(10 + i), object: text(20 + i) })),
    inclusive: DIFF.inclusive.map((f, i) => ({ ...f, name: text(30 + i), object: text(40 + i) })),
  };
}

const TEMPLATES = [
  'std::map<int, long*>::operator[](int const&)',
  'operator|(Flags, Flags)',
  'long sum_values<int, long>(std::map<int, long*, std::less<int>, std::allocator<std::pair<int const, long*> > > const&)',
  'auto f<`x`>::operator**() &&',
  'BM_Sort<int>/8 | x',
];

/**
 * shape is the markdown's structure with the folded block's `<summary>`
 * line set aside: it is one raw HTML node, so its text is part of the node;
 * summaryIsInert checks that text on its own.
 */
function shape(markdown: string): string[] {
  return structure(markdown).map((node) => (node.startsWith('html "<details><summary>') ? 'html <details><summary>…</summary>' : node));
}

/** summaryIsInert: the `<summary>` line holds no tag but benchbot's own, no comment, and no character reference left open. */
function summaryIsInert(markdown: string): void {
  const line = markdown.split('\n')[0];
  const m = /^<details><summary>(.*)<\/summary>$/.exec(line);
  assert.ok(m, line);
  const inner = (m as RegExpExecArray)[1].replace(/<\/?code>/g, '');
  assert.ok(!/[<>]/.test(inner), `no tag from the names: ${line}`);
  assert.ok(!/&(?!(?:lt|gt|amp|#\d+);)/.test(inner), `every & starts an entity: ${line}`);
}

describe('renderProfile', () => {
  it('says the whole change and the function it lives in, with its share, first', () => {
    const text = renderProfileText(DIFF);
    assert.match(text.split('\n')[0], /^where BM_Mix changed: \+777 instructions per iteration \(\+7\.58%\), 98\.8% of it in mix_bits\(unsigned long\)$/);
    assert.match(text, /\n\s+\+768\s+98\.8%\s+3,392\s+4,160\s+mix_bits\(unsigned long\)\s+\[profiled\]\n/);
    assert.match(text, /20 iterations.*30 iterations/);
    const markdown = renderProfileMarkdown(DIFF);
    assert.match(markdown, /^<details><summary>Where <code>BM_Mix<\/code> changed: \+777 instructions per iteration \(\+7\.58%\), 98\.8% of it in <code>mix_bits\(unsigned long\)<\/code><\/summary>/);
    assert.ok(markdown.endsWith('</details>'));
    assert.deepEqual(JSON.parse(renderProfile(DIFF, 'json')), JSON.parse(JSON.stringify(DIFF)));
  });

  it('shows C++ names as written: decoded, the markdown reads the exact name', () => {
    const markdown = renderProfileMarkdown(named((i) => TEMPLATES[i === 0 ? 4 : i % 4]));
    const tree = JSON.stringify(parseMarkdown(markdown));
    for (const name of TEMPLATES.slice(0, 4)) assert.ok(tree.includes(JSON.stringify(name).slice(1, -1)), name);
    assert.deepEqual(shape(markdown), shape(renderProfileMarkdown(named((i) => `harmless${i}`))));
    summaryIsInert(markdown);
    assert.ok(markdown.split('\n')[0].includes('<code>BM_Sort&lt;int&gt;/8 &#124; x</code>'), markdown.split('\n')[0]);
  });

  it('keeps hostile names inert: no tag, link, block, marker or mention comes from them', () => {
    const next = random(23);
    const cases: ((i: number) => string)[] = [(i) => `${ATTACK} ${i}`, ...Array.from({ length: 30 }, () => {
      const strings = new Map<number, string>();
      return (i: number) => {
        if (!strings.has(i)) strings.set(i, hostileString(next));
        return strings.get(i) as string;
      };
    })];
    const plain = renderProfileMarkdown(named((i) => `harmless${i}`));
    for (const t of cases) {
      const hostile = renderProfileMarkdown(named(t));
      assert.deepEqual(shape(hostile), shape(plain), `structure: ${hostile}`);
      summaryIsInert(hostile);
      assert.deepEqual(liveText(hostile), liveText(plain), `live text: ${hostile}`);
      assert.ok(!outsideCode(hostile).includes('<!--'), hostile);
      const text = renderProfileText(named(t));
      assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/.test(text), 'no control characters in the terminal');
      assert.equal(text.split('\n').length, renderProfileText(named((i) => `harmless${i}`)).split('\n').length, 'a name is one line');
    }
  });
});

describe('renderProfile of a sampled (perf record) profile', () => {
  const PERF = join(import.meta.dirname, '../../fixtures/perf-record');
  const within = (fn: string) => fn === 'one_iteration';
  const read = (name: string) => parsePerfScript(gunzipSync(readFileSync(join(PERF, `${name}.txt.gz`))).toString('utf8'), `${name}.txt`, { within });
  const SAMPLED = diffProfiles('BM_Mix', { profile: read('cpp-base'), iterations: 400_000, sha: 'a'.repeat(40) }, { profile: read('cpp-head'), iterations: 400_000, sha: 'b'.repeat(40) }, { top: 6 });
  const sampledNamed = (text: (i: number) => string): ProfileDiff => ({
    ...SAMPLED,
    benchmark: text(0),
    self: SAMPLED.self.map((f, i) => ({ ...f, name: text(10 + i), object: text(20 + i) })),
    inclusive: SAMPLED.inclusive.map((f, i) => ({ ...f, name: text(30 + i), object: text(40 + i) })),
  });

  it('gives each side\'s samples, every share with its sampling error, and marks noise', () => {
    const text = renderProfileText(SAMPLED);
    assert.match(text.split('\n')[0], /^where BM_Mix changed: \+[\d,.]+ ns of CPU time per iteration \(\+[\d.]+%\), [\d.]+% ±[\d.]+ of it in mix_bits$/);
    assert.match(text, /[\d,]+ samples, head b{12} .* [\d,]+ samples \(perf, cpu-clock\)/);
    assert.match(text, /sampled: ± is one standard error from the sample counts \(Poisson\); \(noise\) marks/);
    for (const row of SAMPLED.self) if (row.noise) assert.ok(text.includes(`${(row.share! * 100).toFixed(1)}% ±${(row.shareError! * 100).toFixed(1)} (noise)`), text);
    const markdown = renderProfileMarkdown(SAMPLED);
    assert.match(markdown, /\| [+-][\d,.]+ \| -?[\d.]+% ±[\d.]+( \(noise\))? \| /);
  });

  it('keeps hostile names inert in a sampled profile too', () => {
    const next = random(29);
    const plain = renderProfileMarkdown(sampledNamed((i) => `harmless${i}`));
    for (let k = 0; k < 20; k++) {
      const strings = new Map<number, string>();
      const t = (i: number) => {
        if (!strings.has(i)) strings.set(i, hostileString(next));
        return strings.get(i) as string;
      };
      const hostile = renderProfileMarkdown(sampledNamed(t));
      assert.deepEqual(shape(hostile), shape(plain), `structure: ${hostile}`);
      summaryIsInert(hostile);
      assert.deepEqual(liveText(hostile), liveText(plain), `live text: ${hostile}`);
    }
  });

  it('reads a hostile symbol from perf script and shows it only through the inert path', () => {
    const name = '<img src=x onerror=alert(1)> @octocat [x](https://evil.example) `|` <!-- x';
    const sample = (fn: string) => `100000 cpu-clock:u:\n\t1 ${fn} (/w/bench)\n\t2 BM_X(benchmark::State&) (/w/bench)\n\n`;
    const base = parsePerfScript(sample('harmless').repeat(200) + sample(name).repeat(200), 'base.txt');
    const head = parsePerfScript(sample('harmless').repeat(200) + sample(name).repeat(600), 'head.txt');
    const diff = diffProfiles('BM_X', { profile: base, iterations: 1 }, { profile: head, iterations: 1 });
    assert.equal(diff.self[0].name, name);
    const markdown = renderProfileMarkdown(diff);
    summaryIsInert(markdown);
    assert.ok(!outsideCode(markdown).includes('<!--'), markdown);
    assert.deepEqual(liveText(markdown).filter((l) => /octocat|evil/.test(l)), [], markdown);
    assert.ok(!structure(markdown).some((n) => /^(link|image)\b/.test(n)), markdown);
  });
});
