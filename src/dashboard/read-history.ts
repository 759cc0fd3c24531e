/**
 * read-history: the dashboard's reads from the store, shared by the static
 * writer (write-site.ts) and `benchbot serve` (dashboard-handler.ts). The
 * store's series (one per machine setup) are grouped as the nightly scan
 * groups them (model/fingerprint.ts hostKey: a kernel or toolchain change on the
 * same machine stays one series), read in columns, a batch at a time.
 */
import { DEFAULT_COMPARE_OPTIONS, compareRuns } from '../compare/compare-runs.ts';
import { hostKey, type Fingerprint } from '../model/fingerprint.ts';
import { ACK_PREFIX } from '../jobs/nightly-history.ts';
import type { RunRef, SeriesHistory, Store } from '../store/store.ts';
import type { DashboardAck, DashboardIssue, DashboardPr, DashboardSeries, RunRow } from './site-model.ts';

/** HistoryFilter narrows what the dashboard shows: a repository and a branch (undefined: all). */
export interface HistoryFilter {
  repo?: string;
  branch?: string;
  benchmark?: string;
  metric?: string;
}

/** SeriesGroup is one dashboard series before it is put in columns: the store series it is made of. */
export interface SeriesGroup {
  repo?: string;
  branch: string;
  benchmark: string;
  metric: string;
  machine: string;
  machineLabel: string;
  parts: SeriesHistory[];
}

/** machineLabel is what a machine is called on the pages: its host name, else its CPU, else its key. */
export function machineLabel(fp: Fingerprint, key: string): string {
  const name = fp.hostName ?? fp.cpuModel ?? `machine ${key}`;
  return name.length > 80 ? `${name.slice(0, 79)}…` : name;
}

/**
 * readGroups reads every nightly series matching `filter`, with the raw
 * samples of the newest `samplesNights` nights, grouped by repository,
 * branch, benchmark, metric and machine.
 */
export async function readGroups(store: Store, filter: HistoryFilter, samplesNights: number): Promise<SeriesGroup[]> {
  const groups = new Map<string, SeriesGroup>();
  const hostOf = new WeakMap<Fingerprint, string>();
  for await (const batch of store.seriesHistories({ role: 'nightly', repo: filter.repo, branch: filter.branch, benchmark: filter.benchmark, metric: filter.metric, valuesNights: samplesNights })) {
    for (const h of batch) {
      const fp = h.runs[h.runs.length - 1].fingerprint;
      let machine = hostOf.get(fp);
      if (machine === undefined) hostOf.set(fp, (machine = hostKey(fp)));
      const branch = h.branch ?? '';
      const key = `${h.repo ?? ''}\u0000${branch}\u0000${h.benchmark}\u0000${h.metric}\u0000${machine}`;
      let group = groups.get(key);
      if (!group) groups.set(key, (group = { repo: h.repo, branch, benchmark: h.benchmark, metric: h.metric, machine, machineLabel: machineLabel(fp, machine), parts: [] }));
      group.parts.push(h);
    }
  }
  return [...groups.values()];
}

/** RunTable numbers the runs the series refer to, oldest first. */
export class RunTable {
  private readonly index = new Map<string, number>();
  readonly rows: RunRow[] = [];

  /** of numbers every run of the groups (by run id), in time order. */
  static of(groups: readonly SeriesGroup[]): RunTable {
    const seen = new Map<string, RunRef>();
    for (const g of groups) for (const p of g.parts) for (const r of p.runs) seen.set(r.id, r);
    const table = new RunTable();
    const sorted = [...seen.values()].map((r) => ({ r, t: Date.parse(r.time) })).sort((a, b) => a.t - b.t);
    for (const { r, t } of sorted) {
      table.index.set(r.id, table.rows.length);
      table.rows.push({ sha: r.sha, timeMs: t });
    }
    return table;
  }

  indexOf(run: RunRef): number {
    return this.index.get(run.id) as number;
  }

  has(run: RunRef): boolean {
    return this.index.has(run.id);
  }
}

/** toSeries puts a group in columns, its parts merged in time order. */
export function toSeries(group: SeriesGroup, runs: RunTable): DashboardSeries {
  const newest = group.parts.reduce((a, b) => (Date.parse(a.runs[a.runs.length - 1].time) >= Date.parse(b.runs[b.runs.length - 1].time) ? a : b));
  const base = { repo: group.repo, branch: group.branch, benchmark: group.benchmark, metric: group.metric, unit: newest.unit, better: newest.better, machine: group.machine, machineLabel: group.machineLabel };
  if (group.parts.length === 1) {
    const p = group.parts[0];
    return { ...base, run: p.runs.map((r) => runs.indexOf(r)), n: p.n, median: p.median, lo: p.lo, hi: p.hi, values: p.values };
  }
  const nights = group.parts.flatMap((p) => p.runs.map((r, i) => ({ p, i, run: runs.indexOf(r) }))).sort((a, b) => a.run - b.run);
  return {
    ...base,
    run: nights.map((x) => x.run),
    n: nights.map((x) => x.p.n[x.i]),
    median: nights.map((x) => x.p.median[x.i]),
    lo: nights.map((x) => x.p.lo[x.i]),
    hi: nights.map((x) => x.p.hi[x.i]),
    values: nights.map((x) => x.p.values[x.i]),
  };
}

/** readAcks reads the stored acks (`benchbot ack`), skipping malformed entries. */
export async function readAcks(store: Store): Promise<DashboardAck[]> {
  const out: DashboardAck[] = [];
  for (const e of await store.listState(ACK_PREFIX)) {
    const v = e.value as Record<string, unknown> | null;
    if (!v || typeof v.series !== 'string' || typeof v.sha !== 'string') continue;
    out.push({ series: v.series, sha: v.sha, ...(typeof v.time === 'string' ? { time: v.time } : {}), ...(typeof v.reason === 'string' ? { reason: v.reason } : {}) });
  }
  return out;
}

/** ISSUE_PREFIX starts the app's regression issue records (app/app-state.ts): `issue:<owner>/<repo>:<series>`. */
export const ISSUE_PREFIX = 'issue:';

/** readIssues reads the regression issues the app filed, with the culprit bisection named when it was recorded. */
export async function readIssues(store: Store): Promise<DashboardIssue[]> {
  const out: DashboardIssue[] = [];
  for (const e of await store.listState(ISSUE_PREFIX)) {
    const rest = e.key.slice(ISSUE_PREFIX.length);
    const colon = rest.indexOf(':');
    const v = e.value as Record<string, unknown> | null;
    if (colon < 0 || !v || !Number.isInteger(v.number) || typeof v.url !== 'string') continue;
    const c = v.culprit as Record<string, unknown> | null | undefined;
    const culprit = c && typeof c.sha === 'string' && /^[0-9a-f]{7,64}$/i.test(c.sha)
      ? { sha: c.sha, ...(typeof c.subject === 'string' ? { subject: c.subject } : {}), ...(Number.isInteger(c.pr) ? { pr: c.pr as number } : {}) }
      : undefined;
    out.push({ repo: rest.slice(0, colon), series: rest.slice(colon + 1), number: v.number as number, url: v.url, ...(culprit ? { culprit } : {}) });
  }
  return out;
}

/**
 * readPrs reads the newest `limit` PR checks in the store (head runs and
 * the base run stored with each, same time and machine) and recomputes
 * their verdicts with the PR rule. The app's `/bench` records name the pull
 * request of a head commit when there is one.
 */
export async function readPrs(store: Store, filter: HistoryFilter, limit: number, repoUrl: (repo: string | undefined) => string | undefined): Promise<DashboardPr[]> {
  if (limit <= 0) return [];
  const prOf = new Map<string, number>();
  for (const e of await store.listState('bench:')) {
    const v = e.value as Record<string, unknown> | null;
    if (v && typeof v.head === 'string' && Number.isInteger(v.pr)) prOf.set(v.head, v.pr as number);
  }
  const out: DashboardPr[] = [];
  for (const head of await store.listRuns({ role: 'head', repo: filter.repo, limit })) {
    const bases = (await store.listRuns({ role: 'base', repo: head.repo, before: new Date(Date.parse(head.time) + 1).toISOString(), limit: 20 }))
      .filter((b) => Date.parse(b.time) === Date.parse(head.time) && b.machineKey === head.machineKey);
    if (bases.length === 0) continue;
    const [h, b] = await Promise.all([store.getRun(head.id), store.getRun(bases[0].id)]);
    if (!h || !b) continue;
    const report = compareRuns(b, h, DEFAULT_COMPARE_OPTIONS);
    const counts = { regressed: 0, improved: 0, unchanged: 0, inconclusive: 0 };
    let worst: DashboardPr['worst'];
    for (const c of report.comparisons) {
      if (c.verdict in counts) counts[c.verdict as keyof typeof counts]++;
      if (c.verdict === 'regressed' && c.ratio !== null) {
        const badness = c.better === 'lower' ? c.ratio : 1 / c.ratio;
        if (!worst || badness > (c.better === 'lower' ? worst.ratio : 1 / worst.ratio)) worst = { benchmark: c.benchmark, metric: c.metric, ratio: c.ratio };
      }
    }
    const pr = prOf.get(h.sha);
    const root = repoUrl(h.repo);
    out.push({
      ...(h.repo ? { repo: h.repo } : {}), ...(h.branch ? { branch: h.branch } : {}), ...(pr !== undefined ? { pr } : {}),
      ...(root ? { url: pr !== undefined ? `${root}/pull/${pr}` : `${root}/commit/${h.sha}` } : {}),
      baseSha: b.sha, headSha: h.sha, timeMs: Date.parse(h.time), machineLabel: machineLabel(h.fingerprint, hostKey(h.fingerprint)), ...counts, ...(worst ? { worst } : {}),
    });
  }
  return out;
}

/** githubRepoUrl is the web root of a repository named owner/name on `server` (GITHUB_SERVER_URL), else undefined. */
export function githubRepoUrl(server: string): (repo: string | undefined) => string | undefined {
  const root = server.replace(/\/+$/, '');
  return (repo) => (repo !== undefined && /^[\w.-]+\/[\w.-]+$/.test(repo) ? `${root}/${repo}` : undefined);
}
