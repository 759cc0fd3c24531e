import { spawnSync } from 'node:child_process';
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { parsePercent } from '../compare/thresholds.ts';
import { confirmedRegressions, renderScanMarkdown, toScanJson } from '../report/scan-report.ts';
import { HistoryScan, seriesKey } from '../scan/scan-history.ts';
import type { Ack, Night, Series } from '../scan/scan-history.ts';
import { seriesFromPoints } from '../scan/series-from-points.ts';
import { openStore } from '../store/open-store.ts';
import type { SeriesInfo, SeriesPoint, Store, WindowQuery } from '../store/store.ts';
import { hostKey, shortMachineKey, type Fingerprint } from '../model/fingerprint.ts';
import { UsageError } from './usage-error.ts';

export const SCAN_USAGE = `usage: benchbot scan [--store URL] [--branch main] [--repository OWNER/NAME] [--output markdown|json] [--threshold 2%]

Scans the nightly history (runs stored with role nightly) of one branch for
regressions: per series (benchmark x metric x machine), E-divisive change
points and a fast alert on nightly medians, each reported as a regression
only once the interleaved A/B of its last good and first bad commit (stored
by the nightly job) confirms it, else as awaiting; FDR across all series.
A machine change (kernel, governor, toolchain) starts a new segment.
Acknowledged changes (benchbot ack) start a new baseline.

options:
  --store URL         history store: a SQLite path or postgres://… (default .benchbot/benchbot.db; env BENCHBOT_DATABASE_URL)
  --branch NAME       branch whose nightlies to scan (default main)
  --repository O/N   only runs stored for this GitHub repository, OWNER/NAME (default: any); also links
                      commits in markdown
  --output O          markdown | json (default markdown)
  --threshold X       smallest change that matters (default 2%)
  --max-age N         do not report changes whose first bad night is more than N nights old (default 30)

exit status: 0 no confirmed regression, 1 at least one (a one-night watch does not count), 2 usage or store error`;

export const ACK_USAGE = `usage: benchbot ack SERIES --at SHA --reason TEXT [--store URL] [--time ISO] [--repo DIR]

Marks an expected change of one series (as benchbot scan names it,
BRANCH:BENCHMARK:METRIC:MACHINE) at a commit: the next scans do not alert
at or before it, and a new baseline starts there.

options:
  --at SHA            the commit of the change: a nightly's SHA (a prefix of at least 7 is enough) or, with a time, any commit
  --reason TEXT       why the change is expected (required; kept with the ack)
  --time ISO          when SHA is not a nightly: the baseline starts at the first nightly at or after this time
                      (default: the commit's committer date, read from --repo)
  --repo DIR          repository to read that date from (default .)
  --store URL         history store (default .benchbot/benchbot.db; env BENCHBOT_DATABASE_URL)`;

/** ACK_PREFIX starts the state-table key of every ack: `ack:<series>:<sha>`. */
export const ACK_PREFIX = 'ack:';

function parse(args: string[], options: ParseArgsOptionsConfig, positionals: boolean) {
  try {
    return parseArgs({ args, options, allowPositionals: positionals });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

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
  if (!Number.isInteger(size) || size < 1) throw new UsageError(`batch: give a positive whole number of series, got ${size}`);
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
  const abKey = (i: SeriesInfo) => `${i.machineKey}\u0000${i.benchmark}\u0000${i.metric}`;
  const index = async (role: 'base' | 'head') => {
    const byKey = new Map<string, number[]>();
    for (const i of await store.listSeries({ role, repo: options.repo })) {
      let ids = byKey.get(abKey(i));
      if (!ids) byKey.set(abKey(i), (ids = []));
      ids.push(i.id);
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
  const abIds = (m: ReadonlyMap<string, number[]>) => [...new Set(infos.flatMap((i) => m.get(abKey(i)) ?? []))];
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
    const k = `${h.sha}\u0000${h.machineKey}\u0000${h.benchmark}\u0000${h.metric}`;
    if (!extraOf.has(k)) extraOf.set(k, []);
    (extraOf.get(k) as Array<{ base: number[]; head: number[]; baseSha: string; timeMs: number }>).push({ base: base.values, head: h.values, baseSha: base.sha, timeMs: Date.parse(h.time) });
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
      const extra = (extraOf.get(`${p.sha}\u0000${p.machineKey}\u0000${p.benchmark}\u0000${p.metric}`) ?? []).filter((e) => e.timeMs >= firstMs && (e.baseSha === base?.sha || (base === undefined && e.baseSha === s.nights[i - 1]?.sha)));
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

/** runScan implements `benchbot scan`. */
export async function runScan(args: string[], out: (text: string) => void): Promise<number> {
  const { values: v } = parse(args, {
    store: { type: 'string' }, branch: { type: 'string' }, repository: { type: 'string' }, repo: { type: 'string' }, output: { type: 'string' },
    threshold: { type: 'string' }, 'max-age': { type: 'string' },
  }, false);
  if (v.repo !== undefined) throw new UsageError(`--repo ${String(v.repo)}: --repo is a directory in every benchbot command; scan takes the GitHub repository as --repository OWNER/NAME`);
  const output = (v.output as string | undefined) ?? 'markdown';
  if (output !== 'markdown' && output !== 'json') throw new UsageError(`--output ${output}: use markdown or json`);
  const threshold = v.threshold === undefined ? 0.02 : parsePercent(v.threshold as string);
  if (threshold === undefined || threshold <= 0) throw new UsageError(`--threshold ${v.threshold}: give a percentage such as 2%`);
  const maxAge = v['max-age'] === undefined ? 30 : Number(v['max-age']);
  if (!Number.isInteger(maxAge) || maxAge < 1) throw new UsageError(`--max-age ${v['max-age']}: give a whole number of nights, e.g. 30`);
  const branch = (v.branch as string | undefined) ?? 'main';
  const repo = v.repository as string | undefined;
  const store = await openStore(v.store as string | undefined, { cwd: process.cwd() });
  try {
    // A batch of series at a time, the false discovery rate across all of them at the end.
    const scan = new HistoryScan({ threshold, acks: await loadAcks(store), maxAgeNights: maxAge });
    const shas = new Set<string>();
    let oldest = Infinity;
    for await (const batch of nightlySeriesBatches(store, { branch, repo, nights: Math.max(SCAN_NIGHTS, maxAge + 60) })) {
      scan.add(batch);
      for (const s of batch) {
        for (const n of s.nights) shas.add(n.sha);
        if (s.nights.length > 0) oldest = Math.min(oldest, Date.parse(s.nights[0].time));
      }
    }
    // An ack older than every night read is no news (acksInWindow).
    const result = scan.result({ ackCounts: (a) => shas.has(a.sha) || (a.time !== undefined && Date.parse(a.time) >= oldest) });
    if (scan.series === 0) result.warnings.unshift(`no nightly runs of branch ${branch}${repo ? ` in ${repo}` : ''} in ${store.location}; store them with role nightly, or check --branch and --repository`);
    const repoUrl = repo && /^[\w.-]+\/[\w.-]+$/.test(repo) ? `${(process.env.GITHUB_SERVER_URL ?? 'https://github.com').replace(/\/+$/, '')}/${repo}` : undefined;
    const options = { series: scan.series, threshold, branch, repoUrl };
    out(output === 'json' ? JSON.stringify(toScanJson(result, options), null, 2) : renderScanMarkdown(result, options));
    return confirmedRegressions(result).length > 0 ? 1 : 0;
  } finally {
    await store.close();
  }
}

/** runAck implements `benchbot ack`. */
export async function runAck(args: string[], out: (text: string) => void): Promise<number> {
  const { values: v, positionals } = parse(args, {
    at: { type: 'string' }, reason: { type: 'string' }, store: { type: 'string' }, time: { type: 'string' }, repo: { type: 'string' },
  }, true);
  if (positionals.length !== 1) throw new UsageError('ack needs exactly one SERIES, as benchbot scan names it (BRANCH:BENCHMARK:METRIC:MACHINE)');
  const wanted = positionals[0];
  const at = v.at as string | undefined;
  const reason = (v.reason as string | undefined)?.trim();
  if (!at) throw new UsageError('--at is required: the commit of the expected change');
  if (!reason) throw new UsageError('--reason is required: say why the change is expected');
  const time = v.time as string | undefined;
  if (time !== undefined && !Number.isFinite(Date.parse(time))) throw new UsageError(`--time ${time}: give an ISO 8601 time, e.g. 2026-03-01T02:00:00Z`);
  const colon = wanted.indexOf(':');
  if (colon <= 0) throw new UsageError(`SERIES ${wanted}: write it as benchbot scan does, BRANCH:BENCHMARK:METRIC:MACHINE`);
  const branch = wanted.slice(0, colon);
  const store = await openStore(v.store as string | undefined, { cwd: process.cwd() });
  try {
    // Batch by batch: only the series asked for is kept, and the names of the others for the message.
    const all: string[] = [];
    let series: Series | undefined;
    for await (const batch of nightlySeriesBatches(store, { branch })) {
      for (const s of batch) {
        all.push(s.key as string);
        if (s.key === wanted && !series) series = s;
      }
    }
    if (!series) {
      const close = all.filter((k) => k.startsWith(wanted) || wanted.startsWith(k.slice(0, k.lastIndexOf(':'))));
      throw new UsageError(`SERIES ${wanted}: no such nightly series in ${store.location}${close.length > 0 ? `; did you mean ${close.slice(0, 5).join(', ')}?` : `; benchbot scan --output json lists them (${all.length} on branch ${branch})`}`);
    }
    const nights = series.nights.filter((n) => at.length >= 7 && n.sha.startsWith(at));
    if (nights.length > 1 && new Set(nights.map((n) => n.sha)).size > 1) throw new UsageError(`--at ${at}: ambiguous, matches ${[...new Set(nights.map((n) => n.sha))].join(', ')}; give more digits`);
    let sha = nights[0]?.sha ?? at;
    let ackTime = time;
    if (nights.length === 0 && ackTime === undefined) {
      const log = spawnSync('git', ['-C', (v.repo as string | undefined) ?? '.', 'log', '-1', '--format=%H %cI', at], { encoding: 'utf8' });
      const [full, date] = log.status === 0 ? log.stdout.trim().split(' ') : [];
      if (!full || !date) throw new UsageError(`--at ${at}: not a nightly of ${wanted}, and not a commit of ${(v.repo as string | undefined) ?? 'this repository'}; give --time ISO (the baseline starts at the first nightly at or after it) or --repo DIR`);
      sha = full;
      ackTime = date;
    }
    const ack: Ack & { createdAt: string } = { series: wanted, sha, ...(ackTime !== undefined ? { time: ackTime } : {}), reason, createdAt: new Date().toISOString() };
    await store.putState(`${ACK_PREFIX}${wanted}:${sha}`, ack);
    out(`acknowledged ${wanted} at ${sha}${ackTime !== undefined ? ` (from ${ackTime})` : ''}: ${reason}`);
    return 0;
  } finally {
    await store.close();
  }
}
