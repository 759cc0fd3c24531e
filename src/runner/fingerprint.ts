import type { Fingerprint } from '../model/fingerprint.ts';
import type { CommandResult } from './executor.ts';
import { RunnerError } from './git-checkout.ts';

/** FINGERPRINT_FORMAT is the first line FINGERPRINT_SCRIPT prints; its absence means the script did not run. */
export const FINGERPRINT_FORMAT = 'format=benchbot-fingerprint-1';

// systemd-detect-virt's names for containers; anything else but `none` is a VM.
const CONTAINER_VIRTS = new Set(['docker', 'podman', 'lxc', 'lxc-libvirt', 'systemd-nspawn', 'openvz', 'rkt', 'wsl', 'proot', 'pouch', 'container-other']);
// DMI product / vendor names of common hypervisors and clouds.
const VM_DMI = /\b(KVM|QEMU|VirtualBox|VMware|Virtual Machine|HVM domU|Xen|Bochs|Parallels|Google Compute Engine|Standard PC|BHYVE|OpenStack|Hyper-V)\b/i;

/**
 * parseFingerprint reads the `key=value` lines FINGERPRINT_SCRIPT prints into
 * a Fingerprint. It is lenient: unknown keys and lines are ignored, and a
 * field stays undefined when the machine did not say. Runner labels are not
 * part of the output; the caller adds them.
 */
export function parseFingerprint(text: string): Fingerprint {
  const facts = new Map<string, string>();
  for (const line of text.split(/\r?\n/)) {
    const eq = line.indexOf('=');
    if (eq <= 0) continue;
    const key = line.slice(0, eq).trim();
    if (!facts.has(key)) facts.set(key, line.slice(eq + 1).trim());
  }
  const get = (key: string): string | undefined => facts.get(key);
  const fp: Fingerprint = {};

  const cpuModel = cpuModelOf(get);
  if (cpuModel) fp.cpuModel = cpuModel;

  for (const key of ['nproc', 'sysctl.ncpu', 'online', 'cpuinfo.processors']) {
    const n = Number(get(key));
    if (Number.isInteger(n) && n > 0) {
      fp.cores = n;
      break;
    }
  }

  const governor = get('governor');
  if (governor) fp.governor = governor;

  const noTurbo = get('no_turbo');
  const boost = get('boost');
  if (noTurbo === '0' || noTurbo === '1') fp.turbo = noTurbo === '0';
  else if (boost === '0' || boost === '1') fp.turbo = boost === '1';

  const smtActive = get('smt_active');
  const smtControl = get('smt_control');
  if (smtActive === '0' || smtActive === '1') fp.smt = smtActive === '1';
  else if (smtControl === 'on') fp.smt = true;
  else if (smtControl === 'off' || smtControl === 'forceoff' || smtControl === 'notsupported') fp.smt = false;

  const isolated = get('isolated');
  if (isolated !== undefined) fp.isolatedCpus = isolated === '' ? 'none' : isolated;

  const kernel = get('kernel');
  if (kernel) fp.kernel = kernel;

  const memTotal = /^(\d+)\s*kB$/i.exec(get('meminfo.MemTotal') ?? '');
  const memsize = /^\d+$/.exec(get('sysctl.memsize') ?? '');
  if (memTotal) fp.memoryBytes = Number(memTotal[1]) * 1024;
  else if (memsize) fp.memoryBytes = Number(memsize[0]);

  const load = /^\{?\s*(\d+(?:\.\d+)?)/.exec(get('loadavg') ?? get('sysctl.loadavg') ?? '');
  if (load) fp.loadAverage = Number(load[1]);

  const virtualization = virtualizationOf(get);
  if (virtualization) fp.virtualization = virtualization;

  const hostName = get('hostname');
  if (hostName) fp.hostName = hostName;

  const tools: Record<string, string> = {};
  for (const [key, value] of facts) {
    if (key.startsWith('tool.') && value !== '') tools[key.slice('tool.'.length)] = toolVersion(value);
  }
  if (Object.keys(tools).length > 0) fp.toolVersions = tools;
  return fp;
}

function cpuModelOf(get: (key: string) => string | undefined): string | undefined {
  const clean = (s: string | undefined): string | undefined => (s ? s.replace(/\s+/g, ' ').trim() || undefined : undefined);
  const processor = get('cpuinfo.Processor');
  const arm = get('cpuinfo.CPU implementer') && get('cpuinfo.CPU part') ? `ARM implementer ${get('cpuinfo.CPU implementer')} part ${get('cpuinfo.CPU part')}` : undefined;
  const android = get('android.soc') ?? get('android.model');
  return clean(
    get('cpuinfo.model name') ??
      get('sysctl.brand') ??
      get('cpuinfo.Hardware') ??
      (processor && !/^\d+$/.test(processor) ? processor : undefined) ??
      get('cpuinfo.cpu model') ??
      get('cpuinfo.cpu') ??
      (android && arm ? `${android} (${arm})` : (android ?? arm)),
  );
}

function virtualizationOf(get: (key: string) => string | undefined): string | undefined {
  const virt = get('detect_virt');
  if (get('dockerenv') !== undefined || get('containerenv') !== undefined || get('cgroup1') || (virt && CONTAINER_VIRTS.has(virt))) return 'container';
  const dmi = `${get('dmi.product_name') ?? ''} ${get('dmi.sys_vendor') ?? ''}`;
  if ((virt && virt !== 'none') || get('cpuinfo.hypervisor') !== undefined || VM_DMI.test(dmi)) return 'vm';
  if (virt === 'none' || get('cpuinfo.flags_seen') !== undefined || get('android.model') !== undefined) return 'bare-metal';
  return undefined;
}

/**
 * toolVersion pulls the version out of a tool's first `--version` line: the
 * first dotted number outside parentheses, so `gcc (Debian 12.2.0-14) 12.2.0`
 * gives 12.2.0 and `go version go1.22.1 linux/amd64` gives 1.22.1. A line
 * without one is kept whole.
 */
export function toolVersion(line: string): string {
  const outside = line.replace(/\([^)]*\)/g, ' ');
  const match = /\d+(?:\.\d+)+(?:[-_+~][0-9A-Za-z.]+)*/.exec(outside);
  return match ? match[0] : line.trim();
}

/** runnerLabelsFromEnv splits RUNNER_LABELS (commas or spaces) into labels; [] when unset. */
export function runnerLabelsFromEnv(env: Record<string, string | undefined>): string[] {
  return (env.RUNNER_LABELS ?? '').split(/[\s,]+/).filter((label) => label !== '');
}

/**
 * fingerprintFromResult parses the fingerprint script's result, or throws a
 * RunnerError saying where it failed when the script produced nothing (the
 * executor could not run commands at all).
 */
export function fingerprintFromResult(result: CommandResult, where: string): Fingerprint {
  if (!result.stdout.includes(FINGERPRINT_FORMAT)) {
    const why = result.timedOut ? 'timed out' : `exit ${result.exitCode ?? result.signal}`;
    const tail = result.stderr.trim().split('\n').slice(-5).join(' | ');
    throw new RunnerError(`cannot read the machine fingerprint ${where} (${why})${tail ? `: ${tail}` : ''}`);
  }
  return parseFingerprint(result.stdout);
}
