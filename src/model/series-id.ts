/**
 * series-id: how the dashboard names a series in its URLs and file names,
 * and the permalinks the PR comment and the regression issue use. A
 * series is the nightly scan's (`BRANCH:BENCHMARK:METRIC:MACHINE`, see
 * scan/series.ts seriesKey) in one repository; its id is 16 hex digits
 * of the SHA-256 of both, so benchmark names (untrusted, any characters)
 * never reach a path or a URL.
 */
import { createHash } from 'node:crypto';

/** dashboardSeriesId is the id of a repository's scan series (`repo` undefined: the store kept none). */
export function dashboardSeriesId(repo: string | undefined, seriesKey: string): string {
  return createHash('sha256').update(`${repo ?? ''}\n${seriesKey}`).digest('hex').slice(0, 16);
}

/** TimeRange is a permalink's window: ISO dates or times, both included. */
export interface TimeRange {
  from: string;
  to: string;
}

/**
 * dashboardSeriesUrl is the permalink of a series (and optionally a time
 * range) on a dashboard published at `base` (e.g.
 * https://owner.github.io/repo/); undefined when `base` is not an http(s)
 * URL, so a mistyped setting links nowhere instead of somewhere odd.
 */
export function dashboardSeriesUrl(base: string, id: string, range?: TimeRange): string | undefined {
  const root = dashboardRoot(base);
  if (root === undefined || !/^[0-9a-f]{16}$/.test(id)) return undefined;
  const query = range ? `?from=${encodeURIComponent(range.from)}&to=${encodeURIComponent(range.to)}` : '';
  return `${root}#/series/${id}${query}`;
}

/** dashboardRoot is `base` as a directory URL (trailing slash, no query or fragment), or undefined when it is not http(s). */
export function dashboardRoot(base: string): string | undefined {
  let url: URL;
  try {
    url = new URL(base.trim());
  } catch {
    return undefined;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return undefined;
  if (url.username !== '' || url.password !== '') return undefined;
  url.search = '';
  url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.toString();
}
