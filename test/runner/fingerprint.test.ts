import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { availableParallelism, hostname, release, totalmem } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { fingerprintDifferences } from '../../src/compare/hygiene.ts';
import type { Fingerprint } from '../../src/model/fingerprint.ts';
import { fingerprintFromResult, parseFingerprint, runnerLabelsFromEnv, toolVersion } from '../../src/runner/fingerprint.ts';
import { machineKey } from '../../src/model/fingerprint.ts';
import { FINGERPRINT_SCRIPT } from '../../src/runner/fingerprint-script.ts';
import { RunnerError } from '../../src/runner/git-checkout.ts';
import { LocalExecutor } from '../../src/runner/local-executor.ts';

const fixtures = join(import.meta.dirname, '../../fixtures/fingerprint');
const captured = readFileSync(join(fixtures, 'this-machine.txt'), 'utf8');

/** variant rewrites the captured output: keys in `set` replace (or add) lines, keys in `drop` remove them. */
function variant(set: Record<string, string>, drop: string[] = []): string {
  const lines = captured.trimEnd().split('\n').filter((line) => {
    const key = line.slice(0, line.indexOf('='));
    return !(key in set) && !drop.includes(key);
  });
  return [...lines, ...Object.entries(set).map(([k, v]) => `${k}=${v}`)].join('\n') + '\n';
}

/** allowedCpus counts the CPUs this process may run on (what nproc prints), from /proc/self/status. */
function allowedCpus(): number | undefined {
  let status: string;
  try {
    status = readFileSync('/proc/self/status', 'utf8');
  } catch {
    return undefined;
  }
  const list = /^Cpus_allowed_list:\s*(\S+)/m.exec(status)?.[1];
  if (!list) return undefined;
  return list.split(',').reduce((n, range) => {
    const [lo, hi] = range.split('-').map(Number);
    return n + (hi === undefined ? 1 : hi - lo + 1);
  }, 0);
}

const CONTAINER_HINTS = ['dockerenv', 'containerenv', 'cgroup1', 'detect_virt', 'cpuinfo.hypervisor', 'dmi.product_name', 'dmi.sys_vendor'];

test('the captured output of this machine parses to what capture/fingerprint.sh computed from /proc and /sys', () => {
  const expected = JSON.parse(readFileSync(join(fixtures, 'this-machine.expected.json'), 'utf8')) as Fingerprint;
  assert.deepEqual(parseFingerprint(captured), expected);
});

test('the live fingerprint of this machine agrees with node:os', async () => {
  const fp = await new LocalExecutor().fingerprint(['self-hosted', 'linux']);
  assert.equal(fp.cores, allowedCpus() ?? availableParallelism());
  assert.equal(fp.kernel, release());
  assert.equal(fp.hostName, hostname());
  assert.equal(fp.memoryBytes, totalmem());
  assert.ok(typeof fp.loadAverage === 'number' && fp.loadAverage >= 0);
  assert.deepEqual(fp.runnerLabels, ['self-hosted', 'linux']);
});

test('the script is POSIX sh that dash and bash accept, exits 0 and writes nothing on stderr', () => {
  for (const shell of ['dash', 'bash', 'busybox']) {
    const args = shell === 'busybox' ? ['sh', '-c', FINGERPRINT_SCRIPT] : ['-c', FINGERPRINT_SCRIPT];
    const run = spawnSync(shell, args, { encoding: 'utf8' });
    if (run.error) continue; // that shell is not installed here
    assert.equal(run.status, 0, `${shell}: ${run.stderr}`);
    assert.equal(run.stderr, '', shell);
    assert.match(run.stdout, /^format=benchbot-fingerprint-1$/m);
  }
});

test('turbo: intel_pstate/no_turbo wins over cpufreq/boost', () => {
  assert.equal(parseFingerprint(variant({ no_turbo: '1' })).turbo, false);
  assert.equal(parseFingerprint(variant({ no_turbo: '0', boost: '0' })).turbo, true);
  assert.equal(parseFingerprint(variant({ boost: '1' })).turbo, true);
  assert.equal(parseFingerprint(variant({ boost: '0' })).turbo, false);
  assert.equal(parseFingerprint(variant({}, ['no_turbo', 'boost'])).turbo, undefined);
});

test('governor, SMT and isolated CPUs', () => {
  const fp = parseFingerprint(variant({ governor: 'performance', smt_active: '0', smt_control: 'off', isolated: '2-3' }));
  assert.equal(fp.governor, 'performance');
  assert.equal(fp.smt, false);
  assert.equal(fp.isolatedCpus, '2-3');
  assert.equal(parseFingerprint(variant({ smt_active: '1' })).smt, true);
  assert.equal(parseFingerprint(variant({ smt_control: 'on' }, ['smt_active'])).smt, true);
  assert.equal(parseFingerprint(variant({}, ['smt_active', 'smt_control', 'isolated'])).smt, undefined);
  assert.equal(parseFingerprint(variant({ isolated: '' })).isolatedCpus, 'none');
  assert.equal(parseFingerprint(variant({}, ['isolated'])).isolatedCpus, undefined);
});

test('virtualization: container hints win, then VM hints, then bare metal', () => {
  const bare = variant({}, CONTAINER_HINTS);
  assert.equal(parseFingerprint(bare).virtualization, 'bare-metal');
  assert.equal(parseFingerprint(variant({ detect_virt: 'none' }, CONTAINER_HINTS)).virtualization, 'bare-metal');
  assert.equal(parseFingerprint(variant({ 'cpuinfo.hypervisor': 'yes' }, CONTAINER_HINTS)).virtualization, 'vm');
  assert.equal(parseFingerprint(variant({ detect_virt: 'kvm' }, CONTAINER_HINTS)).virtualization, 'vm');
  assert.equal(parseFingerprint(variant({ 'dmi.product_name': 'VMware Virtual Platform' }, CONTAINER_HINTS)).virtualization, 'vm');
  assert.equal(parseFingerprint(variant({ 'dmi.product_name': 'PowerEdge R650' }, CONTAINER_HINTS)).virtualization, 'bare-metal');
  for (const hint of [{ dockerenv: 'yes' }, { containerenv: 'yes' }, { cgroup1: '0::/kubepods/besteffort/pod1' }, { detect_virt: 'podman' }] as Record<string, string>[]) {
    assert.equal(parseFingerprint(variant({ ...hint, 'cpuinfo.hypervisor': 'yes' }, CONTAINER_HINTS)).virtualization, 'container', JSON.stringify(hint));
  }
  assert.equal(parseFingerprint(variant({}, [...CONTAINER_HINTS, 'cpuinfo.flags_seen'])).virtualization, undefined);
});

test('non-x86 and non-Linux machines (handwritten outputs)', () => {
  const arm = parseFingerprint('format=benchbot-fingerprint-1\ncpuinfo.CPU implementer=0x41\ncpuinfo.CPU part=0xd0c\nnproc=8\nandroid.model=Pixel 8\nandroid.soc=Tensor G3\nloadavg=0.10 0.20 0.30 1/100 200\n');
  assert.equal(arm.cpuModel, 'Tensor G3 (ARM implementer 0x41 part 0xd0c)');
  assert.equal(arm.cores, 8);
  assert.equal(arm.virtualization, 'bare-metal');
  assert.equal(arm.loadAverage, 0.1);
  const oldArm = parseFingerprint('format=benchbot-fingerprint-1\ncpuinfo.Processor=ARMv7 Processor rev 10 (v7l)\ncpuinfo.processors=4\n');
  assert.equal(oldArm.cpuModel, 'ARMv7 Processor rev 10 (v7l)');
  assert.equal(oldArm.cores, 4);
  const mac = parseFingerprint('format=benchbot-fingerprint-1\nsysctl.brand=Apple M2\nsysctl.ncpu=8\nsysctl.memsize=17179869184\nsysctl.loadavg={ 1.25 1.50 1.75 }\nkernel=23.1.0\n');
  assert.deepEqual(mac, { cpuModel: 'Apple M2', cores: 8, memoryBytes: 17179869184, loadAverage: 1.25, kernel: '23.1.0' });
  assert.deepEqual(parseFingerprint(''), {});
  assert.deepEqual(parseFingerprint('garbage\n\u0000\u0001=\n=x\n'), {});
});

test('toolVersion takes the first dotted version outside parentheses', () => {
  const cases: [string, string][] = [
    ['gcc (Debian 12.2.0-14+deb12u1) 12.2.0', '12.2.0'],
    ['Apple clang version 15.0.0 (clang-1500.1.0.2.5)', '15.0.0'],
    ['Ubuntu clang version 14.0.0-1ubuntu1.1', '14.0.0-1ubuntu1.1'],
    ['go version go1.22.1 linux/amd64', '1.22.1'],
    ['rustc 1.77.0-nightly (abc 2024-01-01)', '1.77.0-nightly'],
    ['v24.9.0', '24.9.0'],
    ['Python 3.11.7', '3.11.7'],
    ['openjdk version "17.0.15" 2025-04-15', '17.0.15'],
    ['java version "1.8.0_392"', '1.8.0_392'],
    ['some tool without numbers', 'some tool without numbers'],
  ];
  for (const [line, version] of cases) assert.equal(toolVersion(line), version, line);
});

test('machineKey ignores load, tools and labels, and notices machine changes', () => {
  const fp = parseFingerprint(captured);
  const busier = { ...parseFingerprint(variant({ loadavg: '7.00 6.00 5.00 9/300 1', 'tool.gcc': 'gcc 13.1.0' })), runnerLabels: ['x'] };
  assert.equal(machineKey(busier), machineKey(fp));
  const reordered = Object.fromEntries(Object.entries(fp).reverse()) as Fingerprint;
  assert.equal(machineKey(reordered), machineKey(fp));
  for (const change of [{ governor: 'performance' }, { no_turbo: '1' }, { smt_active: '1' }, { kernel: '6.1.0-18-amd64' }, { hostname: 'other' }, { isolated: '1' }] as Record<string, string>[]) {
    assert.notEqual(machineKey(parseFingerprint(variant(change))), machineKey(fp), JSON.stringify(change));
  }
});

test('fingerprintDifferences (compare/hygiene.ts) flags parsed fingerprints that differ', () => {
  const side = (fingerprint: Fingerprint) => ({ hints: {}, fingerprint, warnings: [] });
  const on = parseFingerprint(variant({ no_turbo: '0', governor: 'powersave' }));
  const off = parseFingerprint(variant({ no_turbo: '1', governor: 'performance', loadavg: '3.00 1 1 1/1 1' }));
  assert.deepEqual(fingerprintDifferences(side(on), side(off)), ['governor: powersave vs performance', 'turbo: true vs false']);
  assert.deepEqual(fingerprintDifferences(side(on), side(parseFingerprint(variant({ no_turbo: '0', governor: 'powersave', 'tool.gcc': 'gcc 14.1.0' })))), []);
});

test('runnerLabelsFromEnv splits RUNNER_LABELS on commas and spaces', () => {
  assert.deepEqual(runnerLabelsFromEnv({ RUNNER_LABELS: 'self-hosted, linux,x64  bench' }), ['self-hosted', 'linux', 'x64', 'bench']);
  assert.deepEqual(runnerLabelsFromEnv({}), []);
});

test('fingerprintFromResult refuses output without the format line', () => {
  const result = { exitCode: 127, signal: null, stdout: '', stderr: 'sh: not found', durationMs: 1, timedOut: false };
  assert.throws(() => fingerprintFromResult(result, 'on device (x {cmd})'), (error: unknown) => error instanceof RunnerError && /on device \(x \{cmd\}\) \(exit 127\): sh: not found/.test(error.message));
});
