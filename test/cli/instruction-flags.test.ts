import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instructionFlagsUsage, parseInstructionFlags } from '../../src/cli/instruction-flags.ts';
import { UsageError } from '../../src/cli/usage-error.ts';
import { DEFAULT_COUNT_REPEATS, defaultCountRepeats, LAYOUT_SAMPLED_REPEATS, layoutPad } from '../../src/runner/valgrind-count.ts';

test('parseInstructionFlags: repeats only when given (or the command has its own), else the harness decides', () => {
  assert.deepEqual(parseInstructionFlags({ instructions: true }), {});
  assert.deepEqual(parseInstructionFlags({ instructions: true, 'instructions-repeats': '4' }), { repeats: 4 });
  // bisect's own default: one count per probe.
  assert.deepEqual(parseInstructionFlags({ instructions: true }, 1), { repeats: 1 });
  assert.deepEqual(parseInstructionFlags({ instructions: true, 'instructions-repeats': '2' }, 1), { repeats: 2 });
  assert.throws(() => parseInstructionFlags({ instructions: true, 'instructions-repeats': '0' }), UsageError);
  assert.throws(() => parseInstructionFlags({ 'instructions-repeats': '3' }), (e: Error) => e instanceof UsageError && /--instructions-repeats needs --instructions/.test(e.message));
  assert.equal(parseInstructionFlags({}), undefined);
});

test('defaultCountRepeats: CPython is counted in more layouts than the compiled harnesses', () => {
  assert.equal(defaultCountRepeats('pytest-benchmark'), LAYOUT_SAMPLED_REPEATS);
  for (const h of ['google-benchmark', 'go', 'criterion', 'command']) assert.equal(defaultCountRepeats(h), DEFAULT_COUNT_REPEATS, h);
  assert.ok(LAYOUT_SAMPLED_REPEATS >= 5, 'one repeat per side is set aside from 5 on (compare/work-verdict.ts)');
  assert.match(instructionFlagsUsage(), /default 3; 5 for pytest-benchmark/);
  assert.match(instructionFlagsUsage(1), /counts per side \(default 1\)/);
});

test('layoutPad: each repeat of a layout-sampled harness gets another environment size, the same on both sides; others none', () => {
  const sizes = [1, 2, 3, 4, 5].map((r) => layoutPad('pytest-benchmark', r).BENCHBOT_LAYOUT_PAD?.length ?? 0);
  assert.equal(sizes[0], 0, 'the first repeat runs in the environment as given');
  assert.equal(new Set(sizes).size, 5, `five sizes: ${sizes}`);
  assert.deepEqual(layoutPad('pytest-benchmark', 3), layoutPad('pytest-benchmark', 3));
  for (const h of ['google-benchmark', 'go', 'command']) assert.deepEqual(layoutPad(h, 3), {}, h);
});
