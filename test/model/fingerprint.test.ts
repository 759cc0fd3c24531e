import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { hostKey, machineKey, shortMachineKey } from '../../src/model/fingerprint.ts';
import type { Fingerprint } from '../../src/model/fingerprint.ts';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

const FP: Fingerprint = {
  toolVersions: { go: '1.22' }, hostName: 'bench-1', kernel: '6.8.0', cpuModel: 'AMD EPYC 7763', cores: 8,
  governor: 'performance', turbo: false, memoryBytes: 16e9, loadAverage: 0.3, runnerLabels: ['self-hosted'],
};

// Stored histories keep these keys (the store's machine_key, the machine part of series names, acks):
// the JSON they hash must not change, whatever order the fingerprint was built in.
test('machineKey is the SHA-256 of the machine fields as ordered JSON pairs, as stored', () => {
  const fields = '[["cpuModel","AMD EPYC 7763"],["cores",8],["governor","performance"],["turbo",false],["kernel","6.8.0"],["memoryBytes",16000000000],["hostName","bench-1"]]';
  assert.equal(machineKey(FP), sha256(fields));
  assert.match(machineKey(FP), /^[0-9a-f]{64}$/);
});

test('hostKey is 12 hex digits of the host fields alone: a kernel or governor change keeps it, another CPU does not', () => {
  assert.equal(hostKey(FP), sha256('[["cpuModel","AMD EPYC 7763"],["cores",8],["memoryBytes",16000000000],["hostName","bench-1"]]').slice(0, 12));
  assert.equal(hostKey({ ...FP, kernel: '6.9.1', governor: 'powersave' }), hostKey(FP));
  assert.notEqual(machineKey({ ...FP, kernel: '6.9.1' }), machineKey(FP));
  assert.notEqual(hostKey({ ...FP, cpuModel: 'AMD EPYC 9654' }), hostKey(FP));
});

test('shortMachineKey keeps the first 12 hex digits', () => {
  assert.equal(shortMachineKey(machineKey(FP)), machineKey(FP).slice(0, 12));
  assert.equal(shortMachineKey(machineKey(FP)).length, 12);
});
