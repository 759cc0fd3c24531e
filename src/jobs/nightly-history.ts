import { closeSync, openSync, renameSync, rmSync, writeSync } from 'node:fs';
import type { SeriesInfo, SeriesPoint, Store, WindowQuery } from '../store/store.ts';
import { hostKey, shortMachineKey, type Fingerprint } from '../model/fingerprint.ts';
import { MAX_FIRST_PARENT } from '../runner/first-parent-chain.ts';
import { seriesKey, type Ack, type Night, type Series } from '../scan/series.ts';
import { seriesFromPoints } from '../scan/series-from-points.ts';
import { COMMIT_SHA, MAX_HISTORY_FILE_BYTES, parseResultsJson, ResultsError } from './results-artifact.ts';
import { HARNESS_NAME } from '../formats/benchbot-json.ts';

/**
 * nightly-history: a branch's nightly series and acks, read from the store
 * a batch of series at a time (what `benchbot scan`, the dashboard and the
 * nightly job scan), and the same evidence as the report job gets it
 * (`history.json` in the results artifact): the series with every night's
 * raw samples, the acks, and the branch's first-parent chain. From these
 * the report job recomputes the scan (what the app bisects) and decides
 * which regression issues recovered, without the runner's store and
 * without a checkout.
 */

/** MAX_HISTORY_VALUES bounds the samples the report job accepts in one history.json. */
export const MAX_HISTORY_VALUES = 20_000_000;

/** NightlyHistory is history.json as the report job uses it; series keys are recomputed, never read. */
export interface NightlyHistory {
  series: Series[];
  acks: Ack[];
  /** firstParent is the branch's first-parent chain, oldest first, back to the oldest night at most. */
  firstParent: string[];
}

/**
 * nightlyHistoryJson is the text of history.json: the series as the scan
 * read them from the store (keys left out: the reader recomputes them;
 * the harness of the newest night where known), the acks, and the
 * first-parent chain (runner/first-parent-chain.ts).
 */
export function nightlyHistoryJson(branch: string, series: readonly Series[], acks: readonly Ack[], firstParent: readonly string[]): string {
  return `${historyHead(branch)}${series.map(seriesJson).join(',')}${historyTail(acks, firstParent)}`;
}

// history.json in three pieces, so that a writer can stream the series: head, the series joined by commas, tail.
const historyHead = (branch: string) => `{"version":1,"branch":${JSON.stringify(branch)},"series":[`;
const historyTail = (acks: readonly Ack[], firstParent: readonly string[]) => `],"acks":${JSON.stringify(acks)},"first_parent":${JSON.stringify(firstParent)}}`;
const seriesJson = (s: Series) => JSON.stringify({ benchmark: s.benchmark, metric: s.metric, unit: s.unit, better: s.better, fingerprint: s.machineKey, ...(s.harness !== undefined ? { harness: s.harness } : {}), nights: s.nights.map(nightJson) });

/**
 * NightlyHistoryFile writes history.json a batch of series at a time, the
 * same text as nightlyHistoryJson of all of them: `add` each batch as it is
 * read, then `finish` with the acks and the first-parent chain (known only
 * once every series was read). It writes to `PATH.partial` and renames that
 * to `path` when finished, so a history cut short is never taken for a
 * whole one; `abandon` removes it.
 */
export class NightlyHistoryFile {
  readonly path: string;
  private readonly partial: string;
  private fd: number | undefined;
  private empty = true;

  constructor(path: string, branch: string) {
    this.path = path;
    this.partial = `${path}.partial`;
    this.fd = openSync(this.partial, 'w');
    this.write(historyHead(branch));
  }

  /** add appends a batch of series. */
  add(batch: readonly Series[]): void {
    for (const s of batch) {
      this.write(`${this.empty ? '' : ','}${seriesJson(s)}`);
      this.empty = false;
    }
  }

  /** finish writes the acks and the first-parent chain and puts the file at `path`. */
  finish(acks: readonly Ack[], firstParent: readonly string[]): void {
    this.write(historyTail(acks, firstParent));
    closeSync(this.open());
    this.fd = undefined;
    renameSync(this.partial, this.path);
  }

  /** abandon closes and removes the unfinished file (after an error, or to start again). */
  abandon(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    rmSync(this.partial, { force: true });
  }

  private open(): number {
    if (this.fd === undefined) throw new Error(`${this.partial}: already finished or abandoned`);
    return this.fd;
  }

  private write(text: string): void {
    const fd = this.open();
    const bytes = Buffer.from(text);
    for (let at = 0; at < bytes.length; ) at += writeSync(fd, bytes, at, bytes.length - at);
  }
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
 * readNightlyHistory reads and checks history.json. The series' branch is
 * the one this run is for (`branch`), not the file's; every field is
 * checked and the sizes are bounded, since the file comes from the job
 * that ran the repository's code.
 */
export function readNightlyHistory(path: string, branch: string): NightlyHistory {
  const root = parseResultsJson(path, MAX_HISTORY_FILE_BYTES);
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
        // Confirmation sessions of the same pair, run right after the night (jobs/confirm-findings.ts).
        if (ab.extra !== undefined) night.ab.extra = list(ab.extra, `${where}.ab.extra`).slice(0, 8).map((e, k) => ({ base: numbers(object(e, `${where}.ab.extra[${k}]`).base, `${where}.ab.extra[${k}].base`), head: numbers(object(e, `${where}.ab.extra[${k}]`).head, `${where}.ab.extra[${k}].head`) }));
      }
      if (n.machine !== undefined) {
        const machine = object(n.machine, `${where}.machine`);
        night.machine = Object.fromEntries(Object.entries(machine).slice(0, 64).map(([k, v]) => [text(k, `${where}.machine key`, 64), text(v, `${where}.machine.${k}`, 300)]));
      }
      return night;
    });
    // The harness only picks the default threshold of counted work; forged, it moves that between 0.5% and 1%, less than forged samples could.
    const harness = s.harness === undefined ? undefined : typeof s.harness === 'string' && HARNESS_NAME.test(s.harness) ? s.harness : fail(`${at}.harness`, 'is not a harness name such as "pytest-benchmark"');
    const base = { benchmark: text(s.benchmark, `${at}.benchmark`), metric: text(s.metric, `${at}.metric`), unit: text(s.unit, `${at}.unit`, 64), better, machineKey, branch, nights, ...(harness !== undefined ? { harness } : {}) };
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

/** ACK_PREFIX starts the state-table key of every ack: `ack:<series>:<sha>`. */
export const ACK_PREFIX = 'ack:';

/**
 * SEGMENT_FIELDS are the fingerprint facts whose change starts a new
 * segment of a series (never a regression): the setup of one machine
 * rather than the machine. Tool versions count too (`tool:NAME`).
 */
export const SEGMENT_FIELDS = ['kernel', 'microcode', 'governor', 'turbo', 'smt', 'isolatedCpus', 'buildType'] as const;

/** machineFacts are a night's segment facts as strings (what the scan compares night to night). */
export function machineFacts(fp: Fingerprint): Record<string, string> {
  const facts: Record<string, string> = {};
  const bag = fp as Record<string, unknown>;
  for (const field of SEGMENT_FIELDS) if (bag[field] !== undefined) facts[field] = String(bag[field]);
  for (const [tool, version] of Object.entries(fp.toolVersions ?? {})) facts[`tool:${tool}`] = version;
  return facts;
}

/**
 * loadNightlySeries reads a branch's nightly history from the store and
 * groups it into scan series, one per machine (model/fingerprint.ts
 * hostKey, in series names): a kernel, governor or toolchain change on the
 * same machine stays in the series and starts a segment there (`machine` facts
 * per night). Each night gets its interleaved A/B: the base-role run the
 * same nightly job stored (same time, same machine), which measured the
 * previous nightly's commit beside tonight's. Every series at once: what
 * nightlySeriesBatches yields, collected.
 */
export async function loadNightlySeries(store: Store, options: NightlyOptions): Promise<Series[]> {
  const all: Series[] = [];
  for await (const batch of nightlySeriesBatches(store, options)) for (const s of batch) all.push(s);
  return all;
}

/** NightlyOptions select a branch's nightly history: `nights` per series (default SCAN_NIGHTS), `batch` stored series per batch (default SCAN_BATCH). */
export interface NightlyOptions {
  branch: string;
  repo?: string;
  nights?: number;
  batch?: number;
}

/**
 * SCAN_BATCH is how many stored series nightlySeriesBatches reads at a
 * time: the scan's memory follows it, not the number of series (a batch of
 * 500 series x 90 nights, with raw samples for 40 of them and their A/B,
 * is some tens of MB).
 */
export const SCAN_BATCH = 500;

/**
 * nightlySeriesBatches is loadNightlySeries a batch of series at a time,
 * in the same order: the store's series of one benchmark on one machine
 * (its metrics; kernels, governors, toolchains) always in the same batch, read
 * through the per-series index with the A/B runs of those series alone, so
 * a scan of 10,000 series holds one batch, not the history.
 */
export async function* nightlySeriesBatches(store: Store, options: NightlyOptions): AsyncGenerator<Series[]> {
  // The newest nights of each series only (SCAN_NIGHTS): older history stays in the store, and so does the A/B of older nights.
  // Raw samples only for nights a finding can count them in (max-age + 10); the 50 nights before those take part by their medians.
  const nights = options.nights ?? SCAN_NIGHTS;
  const size = options.batch ?? SCAN_BATCH;
  if (!Number.isInteger(size) || size < 1) throw new RangeError(`batch: give a positive whole number of series, got ${size}`);
  const infos = await store.listSeries({ role: 'nightly', branch: options.branch, repo: options.repo, machines: true });
  // One scan series per benchmark x metric x machine: the store's series of that machine's setups go together, and so do
  // a benchmark's metrics on one machine (its real_time and cpu_time are one measurement: timeFamilies).
  const hostOf = new Map<string, string>();
  const groups = new Map<string, SeriesInfo[]>();
  for (const info of infos) {
    let host = hostOf.get(info.machineKey);
    if (host === undefined) hostOf.set(info.machineKey, (host = info.machine ? hostKey(info.machine) : shortMachineKey(info.machineKey)));
    const k = `${info.benchmark}\u0000${host}`;
    let group = groups.get(k);
    if (!group) groups.set(k, (group = []));
    group.push(info);
  }
  // The A/B runs of a nightly series: base- and head-role series of the same machine key, benchmark and metric (any branch).
  // A series of no known machine (imported from github-action-benchmark, which records none) takes those of any machine:
  // its confirmation is an interleaved A/B wherever it could be measured.
  const abKey = (i: SeriesInfo) => `${i.machineKey}\u0000${i.benchmark}\u0000${i.metric}`;
  const index = async (role: 'base' | 'head') => {
    const byKey = new Map<string, number[]>();
    const add = (key: string, id: number) => {
      let ids = byKey.get(key);
      if (!ids) byKey.set(key, (ids = []));
      ids.push(id);
    };
    for (const i of await store.listSeries({ role, repo: options.repo })) {
      add(abKey(i), i.id);
      add(anyMachineKey(i), i.id);
    }
    return byKey;
  };
  const bases = await index('base');
  const heads = await index('head');
  let batch: SeriesInfo[] = [];
  const flush = async () => {
    const b = batch;
    batch = [];
    return b.length === 0 ? [] : readNightlyBatch(store, options.branch, options.repo, b, nights, bases, heads, abKey);
  };
  for (const group of groups.values()) {
    for (const info of group) batch.push(info);
    if (batch.length >= size) yield await flush();
  }
  if (batch.length > 0) yield await flush();
}

/** ANY_MACHINE stands for the machine in the A/B keys of a series whose runs name none (isUnknownMachine). */
const ANY_MACHINE = '*';

/** anyMachineKey is the A/B key of a series' benchmark and metric on any machine. */
const anyMachineKey = (i: Pick<SeriesInfo, 'benchmark' | 'metric'>) => `${ANY_MACHINE}\u0000${i.benchmark}\u0000${i.metric}`;

/** isUnknownMachine tells a series whose runs carry no fingerprint at all (history imported from github-action-benchmark). */
export function isUnknownMachine(machine: Fingerprint | undefined): boolean {
  return machine !== undefined && Object.keys(machine).length === 0;
}

/** readNightlyBatch reads one batch of stored nightly series (whole scan series) with their A/B runs and groups them into scan series. */
async function readNightlyBatch(
  store: Store, branch: string, repo: string | undefined, infos: readonly SeriesInfo[], nights: number,
  bases: ReadonlyMap<string, number[]>, heads: ReadonlyMap<string, number[]>, abKey: (i: SeriesInfo) => string,
): Promise<Series[]> {
  const read = async (query: WindowQuery) => {
    const out: SeriesPoint[] = [];
    for await (const windows of store.seriesWindows(query)) for (const w of windows) for (const p of w.window) out.push(p);
    return out;
  };
  const ids = infos.map((i) => i.id);
  const points = await read({ role: 'nightly', branch, repo, series: ids, nights, valuesNights: Math.max(1, nights - 50), fingerprints: true, batch: ids.length });
  let oldest = Infinity;
  for (const p of points) oldest = Math.min(oldest, Date.parse(p.time));
  if (!Number.isFinite(oldest)) return [];
  const since = new Date(oldest).toISOString();
  const keyOf = (i: SeriesInfo) => (isUnknownMachine(i.machine) ? anyMachineKey(i) : abKey(i));
  const abIds = (m: ReadonlyMap<string, number[]>) => [...new Set(infos.flatMap((i) => m.get(keyOf(i)) ?? []))];
  const readAb = async (role: 'base' | 'head', series: number[]) => {
    if (series.length === 0) return [];
    // Oldest first across series, as the runs were stored (a stable sort keeps each series' order within a time).
    return (await read({ role, repo, series, since, valuesNights: Infinity, batch: series.length })).sort((a, b) => Date.parse(a.time) - Date.parse(b.time));
  };
  const allBases = await readAb('base', abIds(bases));
  const allHeads = await readAb('head', abIds(heads));
  const shas = new Set(points.map((p) => p.sha));
  const abOf = new Map<string, SeriesPoint>();
  for (const b of allBases) abOf.set(`${b.time}\u0000${b.machineKey}\u0000${b.benchmark}\u0000${b.metric}`, b);
  // Confirmation A/Bs (and any PR run of the same pair): head-role runs at a nightly's commit with a base run of the same time.
  const extraOf = new Map<string, Array<{ base: number[]; head: number[]; baseSha: string; timeMs: number }>>();
  for (const h of allHeads) {
    if (!shas.has(h.sha) || !h.values || h.values.length === 0) continue;
    const base = abOf.get(`${h.time}\u0000${h.machineKey}\u0000${h.benchmark}\u0000${h.metric}`);
    if (!base?.values || base.values.length === 0) continue;
    for (const k of [`${h.sha}\u0000${h.machineKey}\u0000${h.benchmark}\u0000${h.metric}`, `${h.sha}\u0000${ANY_MACHINE}\u0000${h.benchmark}\u0000${h.metric}`]) {
      if (!extraOf.has(k)) extraOf.set(k, []);
      (extraOf.get(k) as Array<{ base: number[]; head: number[]; baseSha: string; timeMs: number }>).push({ base: base.values, head: h.values, baseSha: base.sha, timeMs: Date.parse(h.time) });
    }
  }
  const facts = new Map<string, Record<string, string>>();
  const hosts = new Map<string, string>();
  const byHost: SeriesPoint[] = points.map((p) => {
    let host = hosts.get(p.runId);
    if (host === undefined) hosts.set(p.runId, (host = p.fingerprint ? hostKey(p.fingerprint) : shortMachineKey(p.machineKey)));
    if (p.fingerprint && !facts.has(p.runId)) facts.set(p.runId, machineFacts(p.fingerprint));
    return { ...p, machineKey: host };
  });
  const series = seriesFromPoints(byHost, branch).map((s) => ({ ...s, key: seriesKey(s) }));
  // Attach per night what seriesFromPoints does not know: the machine facts and the A/B of the same job.
  const runIdsBySeries = new Map<string, SeriesPoint[]>();
  const originalOf = new Map<SeriesPoint, SeriesPoint>();
  byHost.forEach((p, i) => {
    originalOf.set(p, points[i]);
    const k = `${p.benchmark}\u0000${p.metric}\u0000${p.machineKey}`;
    if (!runIdsBySeries.has(k)) runIdsBySeries.set(k, []);
    (runIdsBySeries.get(k) as SeriesPoint[]).push(p);
  });
  return series.map((s) => {
    const ps = runIdsBySeries.get(`${s.benchmark}\u0000${s.metric}\u0000${s.machineKey}`) ?? [];
    // A session before the series' own window is none of its nights' A/B, however the series were batched.
    const firstMs = s.nights.length > 0 ? Date.parse(s.nights[0].time) : Infinity;
    const nights = s.nights.map((night, i) => {
      const p = ps[i] ? originalOf.get(ps[i]) : undefined;
      if (!p) return night;
      const base = abOf.get(`${p.time}\u0000${p.machineKey}\u0000${p.benchmark}\u0000${p.metric}`);
      const machine = facts.get(p.runId);
      const abMachine = isUnknownMachine(p.fingerprint) ? ANY_MACHINE : p.machineKey;
      const extra = (extraOf.get(`${p.sha}\u0000${abMachine}\u0000${p.benchmark}\u0000${p.metric}`) ?? []).filter((e) => e.timeMs >= firstMs && (e.baseSha === base?.sha || (base === undefined && e.baseSha === s.nights[i - 1]?.sha)));
      let ab: Night['ab'];
      if (base?.values && base.values.length > 0) ab = { baseSha: base.sha, base: base.values, ...(extra.length > 0 ? { extra: extra.map(({ base: b, head }) => ({ base: b, head })) } : {}) };
      // A night without its own A/B (an older store) confirmed afterwards: the first confirmation session is its A/B.
      else if (extra.length > 0) ab = { baseSha: extra[0].baseSha, base: extra[0].base, head: extra[0].head, ...(extra.length > 1 ? { extra: extra.slice(1).map(({ base: b, head }) => ({ base: b, head })) } : {}) };
      return { ...night, ...(machine ? { machine } : {}), ...(ab ? { ab } : {}) };
    });
    return { ...s, nights };
  });
}

/**
 * SCAN_NIGHTS is how many of each series' newest nights the scan reads: the
 * 30 nights a change may be old (--max-age) and 60 before them to judge it
 * against (E-divisive's 30-night windows, the history test's baseline).
 */
export const SCAN_NIGHTS = 90;

/** acksInWindow drops the acks older than every night loaded: their baseline starts before the window anyway. */
export function acksInWindow(acks: readonly Ack[], series: readonly Series[]): Ack[] {
  const shas = new Set(series.flatMap((s) => s.nights.map((n) => n.sha)));
  const oldest = Math.min(...series.map((s) => (s.nights.length > 0 ? Date.parse(s.nights[0].time) : Infinity)));
  return acks.filter((a) => shas.has(a.sha) || (a.time !== undefined && Date.parse(a.time) >= oldest));
}

/** loadAcks reads every stored ack. */
export async function loadAcks(store: Store): Promise<Ack[]> {
  const entries = await store.listState(ACK_PREFIX);
  const acks: Ack[] = [];
  for (const e of entries) {
    const v = e.value as Partial<Ack> | null;
    if (v && typeof v.series === 'string' && typeof v.sha === 'string') acks.push({ series: v.series, sha: v.sha, ...(typeof v.time === 'string' ? { time: v.time } : {}), ...(typeof v.reason === 'string' ? { reason: v.reason } : {}) });
  }
  return acks;
}
