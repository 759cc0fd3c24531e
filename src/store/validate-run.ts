import type { FingerprintHints, Measurement, ReadWarning } from '../model/measurement.ts';
import type { Fingerprint } from '../model/fingerprint.ts';
import type { RunRole } from '../model/run.ts';
import type { IngestRun } from './store.ts';

/** Fail reports a problem at a path inside the value being checked (`measurements[2].values[7]`). */
export type Fail = (path: string, message: string) => never;

const ROLES: readonly RunRole[] = ['base', 'head', 'nightly', 'bisect'];
const WARNING_KINDS = ['error', 'skipped', 'summary-only', 'exit-code', 'note'];
const MAX_KEY = 200;

/**
 * validateRun checks that an untrusted value is an IngestRun and returns a
 * clean copy holding only the known fields; anything else is reported through
 * `fail` with the path of the first problem. Values must be finite: NaN or
 * Infinity in a store would poison every statistic downstream.
 */
export function validateRun(value: unknown, fail: Fail, path = ''): IngestRun {
  const at = (member: string): string => (path === '' ? member : `${path}.${member}`);
  const o = object(value, path || '(run)', fail);
  const run: IngestRun = {
    sha: nonEmpty(o.sha, at('sha'), fail),
    role: role(o.role, at('role'), fail),
    fingerprint: fingerprint(o.fingerprint, at('fingerprint'), fail),
    time: time(o.time, at('time'), fail),
    harness: string(o.harness, at('harness'), fail),
    measurements: array(o.measurements, at('measurements'), fail).map((m, i) => measurement(m, `${at('measurements')}[${i}]`, fail)),
    warnings: array(o.warnings ?? [], at('warnings'), fail).map((w, i) => warning(w, `${at('warnings')}[${i}]`, fail)),
    hints: hints(o.hints ?? {}, at('hints'), fail),
  };
  if (o.ref !== undefined && o.ref !== null) run.ref = string(o.ref, at('ref'), fail);
  if (o.repo !== undefined && o.repo !== null) run.repo = nonEmpty(o.repo, at('repo'), fail);
  if (o.branch !== undefined && o.branch !== null) run.branch = nonEmpty(o.branch, at('branch'), fail);
  if (o.key !== undefined && o.key !== null) {
    run.key = nonEmpty(o.key, at('key'), fail);
    if (run.key.length > MAX_KEY) fail(at('key'), `is ${run.key.length} characters, at most ${MAX_KEY} allowed`);
  }
  if (run.sha.length > MAX_KEY) fail(at('sha'), `is ${run.sha.length} characters, at most ${MAX_KEY} allowed`);
  return run;
}

function measurement(value: unknown, path: string, fail: Fail): Measurement {
  const o = object(value, path, fail);
  const better = o.better;
  if (better !== 'lower' && better !== 'higher') fail(`${path}.better`, `expected "lower" or "higher", got ${describe(better)}`);
  const values = array(o.values, `${path}.values`, fail);
  const out = new Array<number>(values.length);
  for (let i = 0; i < values.length; i++) {
    const v = values[i];
    if (typeof v !== 'number' || !Number.isFinite(v)) fail(`${path}.values[${i}]`, `expected a finite number, got ${describe(v)}`);
    out[i] = v;
  }
  return {
    benchmark: nonEmpty(o.benchmark, `${path}.benchmark`, fail),
    metric: nonEmpty(o.metric, `${path}.metric`, fail),
    unit: string(o.unit, `${path}.unit`, fail),
    better,
    values: out,
  };
}

function warning(value: unknown, path: string, fail: Fail): ReadWarning {
  const o = object(value, path, fail);
  const w: ReadWarning = { message: string(o.message, `${path}.message`, fail) };
  if (o.benchmark !== undefined) w.benchmark = string(o.benchmark, `${path}.benchmark`, fail);
  if (o.kind !== undefined) {
    if (typeof o.kind !== 'string' || !WARNING_KINDS.includes(o.kind)) fail(`${path}.kind`, `expected one of ${WARNING_KINDS.join(', ')}, got ${describe(o.kind)}`);
    w.kind = o.kind as ReadWarning['kind'];
  }
  return w;
}

function hints(value: unknown, path: string, fail: Fail): FingerprintHints {
  const o = object(value, path, fail);
  const out: FingerprintHints = {};
  for (const [k, v] of Object.entries(o)) {
    if (typeof v === 'string' || typeof v === 'boolean' || (typeof v === 'number' && Number.isFinite(v))) out[k] = v;
    else fail(`${path}.${k}`, `expected a string, finite number or boolean, got ${describe(v)}`);
  }
  return out;
}

const FINGERPRINT_TYPES: Record<string, 'string' | 'number' | 'boolean' | 'strings' | 'record'> = {
  cpuModel: 'string',
  cores: 'number',
  governor: 'string',
  turbo: 'boolean',
  smt: 'boolean',
  isolatedCpus: 'string',
  kernel: 'string',
  memoryBytes: 'number',
  loadAverage: 'number',
  virtualization: 'string',
  runnerLabels: 'strings',
  toolVersions: 'record',
  hostName: 'string',
  buildType: 'string',
};

/** fingerprint checks the known fields' types and keeps unknown fields that are plain JSON, so newer writers still round-trip. */
function fingerprint(value: unknown, path: string, fail: Fail): Fingerprint {
  const o = object(value, path, fail);
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(o)) {
    if (v === undefined) continue;
    const p = `${path}.${k}`;
    switch (FINGERPRINT_TYPES[k]) {
      case 'string':
        out[k] = string(v, p, fail);
        break;
      case 'number':
        if (typeof v !== 'number' || !Number.isFinite(v)) fail(p, `expected a finite number, got ${describe(v)}`);
        out[k] = v;
        break;
      case 'boolean':
        if (typeof v !== 'boolean') fail(p, `expected a boolean, got ${describe(v)}`);
        out[k] = v;
        break;
      case 'strings':
        out[k] = array(v, p, fail).map((s, i) => string(s, `${p}[${i}]`, fail));
        break;
      case 'record': {
        const r = object(v, p, fail);
        out[k] = Object.fromEntries(Object.entries(r).map(([rk, rv]) => [rk, string(rv, `${p}.${rk}`, fail)]));
        break;
      }
      default:
        out[k] = plainJson(v, p, fail);
    }
  }
  return out as Fingerprint;
}

function plainJson(value: unknown, path: string, fail: Fail): unknown {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) fail(path, `expected a finite number, got ${describe(value)}`);
    return value;
  }
  if (Array.isArray(value)) return value.map((v, i) => plainJson(v, `${path}[${i}]`, fail));
  if (typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plainJson(v, `${path}.${k}`, fail)]));
  }
  return fail(path, `expected JSON data, got ${describe(value)}`);
}

function time(value: unknown, path: string, fail: Fail): string {
  const s = nonEmpty(value, path, fail);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(s) || !Number.isFinite(Date.parse(s))) fail(path, `expected an ISO 8601 timestamp, got ${describe(s)}`);
  return s;
}

function role(value: unknown, path: string, fail: Fail): RunRole {
  if (typeof value !== 'string' || !ROLES.includes(value as RunRole)) fail(path, `expected one of ${ROLES.join(', ')}, got ${describe(value)}`);
  return value as RunRole;
}

function object(value: unknown, path: string, fail: Fail): Record<string, unknown> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) fail(path, `expected an object, got ${describe(value)}`);
  return value as Record<string, unknown>;
}

function array(value: unknown, path: string, fail: Fail): unknown[] {
  if (!Array.isArray(value)) fail(path, `expected an array, got ${describe(value)}`);
  return value;
}

function string(value: unknown, path: string, fail: Fail): string {
  if (typeof value !== 'string') fail(path, `expected a string, got ${describe(value)}`);
  if (value.includes('\u0000')) fail(path, 'contains a NUL character');
  return value;
}

function nonEmpty(value: unknown, path: string, fail: Fail): string {
  const s = string(value, path, fail);
  if (s.trim() === '') fail(path, 'must not be empty');
  return s;
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'nothing (missing)';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 40 ? value.slice(0, 40) + '…' : value)}`;
  return typeof value === 'object' ? 'an object' : typeof value;
}
