import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { join } from 'node:path';
import type { SourceFile, ReadResult } from '../../src/formats/reader.ts';

export const FIXTURES = fileURLToPath(new URL('../../fixtures/', import.meta.url));

/** loadFixture reads a fixture by its path under fixtures/. */
export function loadFixture(relative: string): SourceFile {
  const path = join(FIXTURES, relative);
  return { path: `fixtures/${relative}`, text: readFileSync(path, 'utf8') };
}

/**
 * Expected is what a capture script computed independently (python/jq) from
 * a fixture: `fixtures/x/y.json` has `fixtures/x/y.expected.json`.
 */
export interface Expected {
  measurements: { benchmark: string; metric: string; unit: string; better: 'lower' | 'higher'; values: number[] }[];
  warnings: number;
  hints?: Record<string, string | number | boolean>;
}

export function expectedFor(relative: string): Expected {
  const path = join(FIXTURES, relative.replace(/(\.[a-z]+)?$/, '.expected.json'));
  return JSON.parse(readFileSync(path, 'utf8')) as Expected;
}

/** assertMatchesExpected compares a reader's result with the capture script's independent reading, values to 1e-12 relative. */
export function assertMatchesExpected(result: ReadResult, expected: Expected): void {
  const key = (m: { benchmark: string; metric: string }) => `${m.benchmark}\u0000${m.metric}`;
  const got = new Map(result.measurements.map((m) => [key(m), m]));
  assert.equal(result.measurements.length, expected.measurements.length, `measurement count: got ${[...got.keys()].map((k) => k.replace('\u0000', ' / ')).join(', ')}`);
  for (const want of expected.measurements) {
    const m = got.get(key(want));
    assert.ok(m, `missing measurement ${want.benchmark} / ${want.metric}`);
    assert.equal(m.unit, want.unit, `${want.benchmark} / ${want.metric} unit`);
    assert.equal(m.better, want.better, `${want.benchmark} / ${want.metric} direction`);
    assert.equal(m.values.length, want.values.length, `${want.benchmark} / ${want.metric} value count`);
    m.values.forEach((v, i) => {
      const w = want.values[i];
      assert.ok(Math.abs(v - w) <= 1e-12 * Math.max(1, Math.abs(w)), `${want.benchmark} / ${want.metric}[${i}]: got ${v}, want ${w}`);
    });
  }
  assert.equal(result.warnings.length, expected.warnings, `warning count: ${JSON.stringify(result.warnings)}`);
  if (expected.hints) {
    for (const [k, v] of Object.entries(expected.hints)) assert.deepEqual(result.hints[k], v, `hint ${k}`);
  }
}
