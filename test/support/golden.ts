import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * assertGolden compares text with a committed golden file; with
 * UPDATE_GOLDEN=1 it rewrites the file instead (review the diff before committing).
 */
export function assertGolden(path: string, actual: string): void {
  if (process.env.UPDATE_GOLDEN === '1' || !existsSync(path)) {
    if (process.env.UPDATE_GOLDEN !== '1') assert.fail(`golden file ${path} is missing; run with UPDATE_GOLDEN=1 to create it`);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, actual);
    return;
  }
  assert.equal(actual, readFileSync(path, 'utf8'), `${path} differs; if the change is intended, rerun with UPDATE_GOLDEN=1`);
}
