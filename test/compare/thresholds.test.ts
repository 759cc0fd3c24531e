import { test } from 'node:test';
import assert from 'node:assert/strict';
import { globMatches, readPercent, thresholdFor } from '../../src/compare/thresholds.ts';
import { seededRandom } from '../support/random.ts';

test('readPercent reads every number as a percentage and refuses a bare number below 1, naming both readings', () => {
  assert.equal(readPercent('2%'), 0.02);
  assert.equal(readPercent('2'), 0.02);
  assert.equal(readPercent('1'), 0.01);
  assert.equal(readPercent(' 0.5% '), 0.005);
  assert.equal(readPercent('0'), 0);
  for (const [ambiguous, readings] of [['0.5', /0\.5% or 50%/], ['0.02', /0\.02% or 2%/], ['.1', /\.1% or 10%/]] as const) {
    const value = readPercent(ambiguous);
    assert.ok(typeof value === 'object', ambiguous);
    assert.match(value.problem, readings);
  }
  for (const bad of ['', '%', 'two', '-2%', '150%', '100', '2%%', '1e3', '0.5']) assert.equal(typeof readPercent(bad), 'object', bad);
});

test('globs match whole names; the last matching rule wins', () => {
  assert.ok(globMatches('BM_Net*', 'BM_Network/64'));
  assert.ok(!globMatches('BM_Net', 'BM_Network'));
  assert.ok(globMatches('BM_?ort', 'BM_Sort'));
  assert.ok(globMatches('a.b(c)', 'a.b(c)'));
  assert.ok(!globMatches('a.b', 'axb'));
  const rules = [{ glob: 'BM_*', threshold: 0.05 }, { glob: 'BM_Net*', threshold: 0.1 }];
  assert.equal(thresholdFor('BM_Network', 0.02, rules), 0.1);
  assert.equal(thresholdFor('BM_Sort', 0.02, rules), 0.05);
  assert.equal(thresholdFor('Other', 0.02, rules), 0.02);
});

test('globs: * takes any run (also none), ? exactly one character, regex syntax is literal', () => {
  const cases: [string, string, boolean][] = [
    ['*', '', true],
    ['*', 'anything/at all', true],
    ['?', '', false],
    ['?', 'µ', true],
    ['??', '𝔸', false],
    ['a*b*c', 'abc', true],
    ['a*b*c', 'aXbYbZc', true],
    ['a*b*c', 'aXbYbZ', false],
    ['*/64', 'BM_Sort/1024/64', true],
    ['*/64', 'BM_Sort/640', false],
    ['BM_*_mean', 'BM_a_mean_b_mean', true],
    ['**a**', 'xay', true],
    ['a?c*', 'abcdef', true],
    ['a?c', 'ac', false],
    ['[ab]', 'a', false],
    ['[ab]', '[ab]', true],
    ['x+', 'xx', false],
    ['^a$', '^a$', true],
    ['a\\*', 'a\\bc', true],
    ['line*', 'line\nbreak', true],
  ];
  for (const [glob, name, expected] of cases) assert.equal(globMatches(glob, name), expected, `${glob} vs ${JSON.stringify(name)}`);
});

test('a glob made to backtrack (*a*a*...*b against 60 a) is decided at once', () => {
  const glob = '*a*a*a*a*a*a*a*a*a*a*a*b';
  const started = performance.now();
  assert.equal(globMatches(glob, 'a'.repeat(60)), false);
  assert.equal(globMatches(glob, 'a'.repeat(60) + 'b'), true);
  assert.equal(thresholdFor('a'.repeat(60), 0.02, [{ glob, threshold: 0.5 }]), 0.02);
  // A RegExp built from this glob ran for minutes; the matcher takes microseconds. 2 s leaves room for a loaded machine.
  assert.ok(performance.now() - started < 2000, `took ${performance.now() - started} ms`);
});

test('globMatches agrees with an anchored regular expression on short random globs and names', () => {
  const random = seededRandom(7);
  const pick = (alphabet: string, max: number) => Array.from({ length: Math.floor(random() * max) }, () => alphabet[Math.floor(random() * alphabet.length)]).join('');
  for (let i = 0; i < 5000; i++) {
    const glob = pick('ab*?', 7);
    const name = pick('ab', 9);
    // Fine as a reference on inputs this short; never on names from a PR.
    const reference = new RegExp(`^${glob.replace(/\*/g, '.*').replace(/\?/g, '.')}$`, 's');
    assert.equal(globMatches(glob, name), reference.test(name), `${glob} vs ${name}`);
  }
});
