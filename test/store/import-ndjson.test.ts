import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FormatError } from '../../src/formats/format-error.ts';
import { parseNdjsonHistory } from '../../src/store/import-ndjson.ts';

const HEADER = '{"format":"benchbot-history","version":1}';
const RUN = {
  type: 'run',
  id: 'r1',
  repo: 'o/r',
  sha: 'abc',
  role: 'head',
  fingerprint: { cores: 4, futureField: { nested: [1, 'x'] } },
  time: '2024-01-01T00:00:00Z',
  harness: 'hyperfine',
  measurements: [{ benchmark: 'b', metric: 'time', unit: 's', better: 'lower', values: [1, 2] }],
  warnings: [],
  hints: {},
};

function parse(lines: string[]): unknown {
  return parseNdjsonHistory(lines, 'h.ndjson');
}

test('a history export parses into runs keyed by their exported id; blank lines and CRLF are fine', () => {
  const runs = parseNdjsonHistory([HEADER + '\r', '', JSON.stringify(RUN), '   '], 'h.ndjson');
  assert.equal(runs.length, 1);
  assert.equal(runs[0].key, 'r1');
  assert.equal(runs[0].repo, 'o/r');
  assert.deepEqual(runs[0].fingerprint, RUN.fingerprint, 'unknown fingerprint fields survive for newer writers');
});

test('hostile lines are FormatErrors naming file, line and path', () => {
  const line = (o: unknown) => JSON.stringify(o);
  const cases: [string, string[], RegExp][] = [
    ['empty', [], /^h\.ndjson: file is empty/],
    ['no header', [line(RUN)], /^h\.ndjson:1: not a benchbot history export/],
    ['future version', ['{"format":"benchbot-history","version":2}'], /^h\.ndjson:1: history export version 2 is not supported/],
    ['broken JSON', [HEADER, '{"type":"run",'], /^h\.ndjson:2: invalid JSON/],
    ['array line', [HEADER, '', '[1,2]'], /^h\.ndjson:3: expected a JSON object$/],
    ['unknown type', [HEADER, line({ ...RUN, type: 'state' })], /^h\.ndjson:2: type: expected "run", got "state"$/],
    ['no id', [HEADER, line({ ...RUN, id: undefined })], /^h\.ndjson:2: id: expected the run id/],
    ['bad role', [HEADER, line({ ...RUN, role: 'tail' })], /^h\.ndjson:2: role: expected one of base, head, nightly, bisect, got the string "tail"$/],
    ['bad value', [HEADER, line(RUN), line({ ...RUN, measurements: [{ ...RUN.measurements[0], values: [1, null] }] })], /^h\.ndjson:3: measurements\[0\]\.values\[1\]: expected a finite number, got null$/],
    ['bad direction', [HEADER, line({ ...RUN, measurements: [{ ...RUN.measurements[0], better: 'up' }] })], /^h\.ndjson:2: measurements\[0\]\.better: expected "lower" or "higher"/],
    ['NUL in name', [HEADER, line({ ...RUN, sha: 'a\u0000b' })], /^h\.ndjson:2: sha: contains a NUL character$/],
    ['fingerprint type', [HEADER, line({ ...RUN, fingerprint: { cores: 'four' } })], /^h\.ndjson:2: fingerprint\.cores: expected a finite number/],
    ['hint type', [HEADER, line({ ...RUN, hints: { a: [1] } })], /^h\.ndjson:2: hints\.a: expected a string, finite number or boolean/],
    ['huge id', [HEADER, line({ ...RUN, id: 'x'.repeat(201) })], /^h\.ndjson:2: id: is 201 characters, at most 200 allowed$/],
  ];
  for (const [name, lines, pattern] of cases) {
    assert.throws(() => parse(lines), (e: unknown) => e instanceof FormatError && pattern.test(e.message), name);
  }
});
