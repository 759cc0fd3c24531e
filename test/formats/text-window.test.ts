import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { NameCodes, TextWindow } from '../../src/formats/text-lines.ts';
import { seededRandom } from '../support/random.ts';

// TextWindow copies a text's UTF-16 code units into a typed array for the
// readers' fast paths: every unit must be the very one charCodeAt reads
// (lone surrogates, one-byte and two-byte strings alike), with a 0 after the
// window's last unit and at least its margin (4,096 units) covered.

function randomText(random: () => number, length: number): string {
  const alphabet = ['a', 'b: ', '1', '.', '\n', '\r\n', 'µ', 'μ', '\ud800', '\udfff', '😀', '\u00a0', ' '];
  const twoByte = random() < 0.5;
  let text = '';
  while (text.length < length) {
    const c = alphabet[Math.floor(random() * alphabet.length)];
    if (twoByte || c.charCodeAt(0) < 256) text += c;
  }
  return text.slice(0, length);
}

describe('TextWindow', () => {
  it('holds the units charCodeAt reads, then a 0, as it moves forwards', () => {
    const random = seededRandom(7);
    for (const length of [1, 100, 65_536, 65_537, 70_000, 300_000]) {
      const text = randomText(random, length);
      const window = new TextWindow(text);
      for (let from = 0; from < length; from += 1 + Math.floor(random() * 20_000)) {
        window.cover(from);
        assert.ok(window.base <= from, `base ${window.base} <= ${from}`);
        assert.ok(window.limit >= Math.min(length, from + 4096), `limit ${window.limit} covers ${from}`);
        for (let p = window.base; p < window.limit; p++) {
          if (window.codes[p - window.base] !== text.charCodeAt(p)) assert.fail(`length ${length}: unit ${p} is ${window.codes[p - window.base]}, not ${text.charCodeAt(p)}`);
        }
        assert.equal(window.codes[window.limit - window.base], 0);
      }
    }
  });

  it('NameCodes keeps every name', () => {
    const names = new NameCodes();
    const random = seededRandom(8);
    const added = Array.from({ length: 300 }, (_, i) => randomText(random, i * 7));
    const at = added.map((name) => names.add(name));
    added.forEach((name, k) => {
      for (let i = 0; i < name.length; i++) assert.equal(names.codes[at[k] + i], name.charCodeAt(i));
    });
  });
});
