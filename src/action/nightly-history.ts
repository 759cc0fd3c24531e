import { spawnSync } from 'node:child_process';
import type { Ack, Night, Series } from '../scan/scan-history.ts';
import { seriesKey } from '../scan/scan-history.ts';
import { COMMIT_SHA, parseResultsJson, ResultsError } from './results-artifact.ts';

/**
 * The nightly's evidence for the report job (`history.json` in the results
 * artifact): the branch's nightly series with every night's raw samples,
 * the acks, and the branch's first-parent chain. From these the report job
 * recomputes the scan (what the app bisects) and decides which regression
 * issues recovered, without the runner's store and without a checkout.
 */

/** MAX_HISTORY_VALUES bounds the samples the report job accepts in one history.json. */
export const MAX_HISTORY_VALUES = 20_000_000;

/** MAX_FIRST_PARENT bounds the first-parent chain shipped for the recovery decision. */
export const MAX_FIRST_PARENT = 50_000;

/** NightlyHistory is history.json as the report job uses it; series keys are recomputed, never read. */
export interface NightlyHistory {
  series: Series[];
  acks: Ack[];
  /** firstParent is the branch's first-parent chain, oldest first, back to the oldest night at most. */
  firstParent: string[];
}

/**
 * nightlyHistoryJson is the text of history.json: the series as the scan
 * read them from the store (keys left out: the reader recomputes them), the
 * acks, and the first-parent chain from firstParentChain.
 */
export function nightlyHistoryJson(branch: string, series: readonly Series[], acks: readonly Ack[], firstParent: readonly string[]): string {
  return JSON.stringify({
    version: 1,
    branch,
    series: series.map((s) => ({ benchmark: s.benchmark, metric: s.metric, unit: s.unit, better: s.better, fingerprint: s.machineKey, nights: s.nights.map(nightJson) })),
    acks,
    first_parent: firstParent,
  });
}

/** nightJson is one night as history.json holds it: the raw samples, and the night's A/B and machine facts when the store has them. */
function nightJson(n: Night): Record<string, unknown> {
  return {
    sha: n.sha,
    time: n.time,
    values: n.values,
    ...(n.median === undefined ? {} : { median: n.median }),
    ...(n.ab ? { ab: { base_sha: n.ab.baseSha, base: n.ab.base, ...(n.ab.head ? { head: n.ab.head } : {}), ...(n.ab.extra ? { extra: n.ab.extra } : {}) } } : {}),
    ...(n.machine ? { machine: n.machine } : {}),
  };
}

/**
 * firstParentChain lists the first-parent commits of `head` in the checkout
 * `repoDir`, oldest first, back to the oldest of `nights` found on the chain
 * (capped at MAX_FIRST_PARENT); empty when git cannot tell.
 */
export function firstParentChain(repoDir: string, head: string, nights: readonly Series[]): string[] {
  const stopAt = new Set(nights.flatMap((s) => s.nights.map((n) => n.sha)));
  const out = spawnSync('git', ['-C', repoDir, 'rev-list', '--first-parent', `--max-count=${MAX_FIRST_PARENT}`, head], { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  if (out.status !== 0) return [];
  const chain = out.stdout.split('\n').filter((l) => l !== '');
  let last = -1;
  chain.forEach((sha, i) => {
    if (stopAt.has(sha)) last = i;
  });
  return (last === -1 ? chain : chain.slice(0, last + 1)).reverse();
}

/**
 * readNightlyHistory reads and checks history.json. The series' branch is
 * the one this run is for (`branch`), not the file's; every field is
 * checked and the sizes are bounded, since the file comes from the job
 * that ran the repository's code.
 */
export function readNightlyHistory(path: string, branch: string): NightlyHistory {
  const root = parseResultsJson(path);
  const fail = (where: string, what: string): never => {
    throw new ResultsError(`${path}: ${where} ${what}`);
  };
  if (root.version !== 1) fail('version', 'is not 1');
  const text = (value: unknown, where: string, max = 1000): string => (typeof value === 'string' && value.length > 0 && value.length <= max ? value : fail(where, `is not a string of 1 to ${max} characters`));
  const sha = (value: unknown, where: string): string => (typeof value === 'string' && COMMIT_SHA.test(value) ? value : fail(where, 'is not a full commit SHA'));
  const list = (value: unknown, where: string): unknown[] => (Array.isArray(value) ? value : fail(where, 'is not an array'));
  const object = (value: unknown, where: string): Record<string, unknown> => (typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Record<string, unknown>) : fail(where, 'is not an object'));
  let total = 0;
  const numbers = (value: unknown, where: string): number[] => {
    const items = list(value, where);
    total += items.length;
    if (total > MAX_HISTORY_VALUES) fail('series', `hold more than ${MAX_HISTORY_VALUES} samples`);
    if (!items.every((v) => typeof v === 'number' && Number.isFinite(v))) fail(where, 'are not all finite numbers');
    return items as number[];
  };
  const series: Series[] = list(root.series, 'series').map((item, i) => {
    const at = `series[${i}]`;
    const s = object(item, at);
    const better: Series['better'] = s.better === 'lower' || s.better === 'higher' ? s.better : fail(`${at}.better`, 'is not "lower" or "higher"');
    const machineKey = typeof s.fingerprint === 'string' && /^[0-9a-f]{1,64}$/.test(s.fingerprint) ? s.fingerprint : fail(`${at}.fingerprint`, 'is not a hex machine key');
    const nights = list(s.nights, `${at}.nights`).map((nightItem, j): Night => {
      const where = `${at}.nights[${j}]`;
      const n = object(nightItem, where);
      const night: Night = { sha: sha(n.sha, `${where}.sha`), time: text(n.time, `${where}.time`, 64), values: numbers(n.values, `${where}.values`) };
      if (n.median !== undefined) night.median = typeof n.median === 'number' && Number.isFinite(n.median) ? n.median : fail(`${where}.median`, 'is not a finite number');
      if (n.ab !== undefined) {
        const ab = object(n.ab, `${where}.ab`);
        night.ab = { baseSha: sha(ab.base_sha, `${where}.ab.base_sha`), base: numbers(ab.base, `${where}.ab.base`), ...(ab.head === undefined ? {} : { head: numbers(ab.head, `${where}.ab.head`) }) };
        // Confirmation sessions of the same pair, run right after the night (runner/confirm-findings.ts).
        if (ab.extra !== undefined) night.ab.extra = list(ab.extra, `${where}.ab.extra`).slice(0, 8).map((e, k) => ({ base: numbers(object(e, `${where}.ab.extra[${k}]`).base, `${where}.ab.extra[${k}].base`), head: numbers(object(e, `${where}.ab.extra[${k}]`).head, `${where}.ab.extra[${k}].head`) }));
      }
      if (n.machine !== undefined) {
        const machine = object(n.machine, `${where}.machine`);
        night.machine = Object.fromEntries(Object.entries(machine).slice(0, 64).map(([k, v]) => [text(k, `${where}.machine key`, 64), text(v, `${where}.machine.${k}`, 300)]));
      }
      return night;
    });
    const base = { benchmark: text(s.benchmark, `${at}.benchmark`), metric: text(s.metric, `${at}.metric`), unit: text(s.unit, `${at}.unit`, 64), better, machineKey, branch, nights };
    return { ...base, key: seriesKey(base) };
  });
  const acks: Ack[] = list(root.acks ?? [], 'acks').map((item, i) => {
    const a = object(item, `acks[${i}]`);
    return {
      series: text(a.series, `acks[${i}].series`, 2000),
      sha: text(a.sha, `acks[${i}].sha`, 64),
      ...(a.time === undefined ? {} : { time: text(a.time, `acks[${i}].time`, 64) }),
      ...(a.reason === undefined ? {} : { reason: text(a.reason, `acks[${i}].reason`, 2000) }),
    };
  });
  const chain = list(root.first_parent ?? [], 'first_parent');
  if (chain.length > MAX_FIRST_PARENT) fail('first_parent', `has more than ${MAX_FIRST_PARENT} commits`);
  return { series, acks, firstParent: chain.map((c, i) => sha(c, `first_parent[${i}]`)) };
}

/**
 * firstBadNight is the index of the first night of `nights` that contains
 * commit `start`: the night at `start` itself, else the first night at or
 * after `start` on the branch's first-parent chain (bisect culprits are
 * first-parent merges). -1 when no night does.
 */
export function firstBadNight(nights: Series['nights'], start: string, firstParent: readonly string[]): number {
  const exact = nights.findIndex((n) => n.sha === start);
  if (exact !== -1) return exact;
  const position = new Map(firstParent.map((sha, i) => [sha, i]));
  const from = position.get(start);
  if (from === undefined) return -1;
  return nights.findIndex((n) => (position.get(n.sha) ?? -1) >= from);
}
