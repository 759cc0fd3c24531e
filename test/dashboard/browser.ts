// What the dashboard tests share: a static file server on loopback (what
// GitHub Pages does, minus TLS), and Debian's chromium driven by
// playwright-core, with every console message and page error collected.
import { createReadStream, existsSync, statSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { chromium, type Browser, type ConsoleMessage, type Page } from 'playwright-core';

/** CHROMIUM is Debian's browser (apt-get install chromium); BENCHBOT_CHROMIUM overrides it. Never a downloaded one. */
export const CHROMIUM = process.env.BENCHBOT_CHROMIUM ?? '/usr/bin/chromium';

/** chromiumUnavailable says why the browser tests cannot run here, or undefined. */
export function chromiumUnavailable(): string | undefined {
  return existsSync(CHROMIUM) ? undefined : `${CHROMIUM} is missing: apt-get install chromium (as scripts/prepare-tests.sh does)`;
}

const TYPES: Record<string, string> = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.css': 'text/css; charset=utf-8', '.json': 'application/json', '.png': 'image/png' };

/** serveDirectory serves `root` read-only on 127.0.0.1; `bytes` counts what it sent per path. */
export async function serveDirectory(root: string): Promise<{ url: string; bytes: Map<string, number>; close: () => Promise<void> }> {
  const base = resolve(root);
  const bytes = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    const file = normalize(join(base, path.endsWith('/') ? `${path}index.html` : path));
    if (!file.startsWith(base + sep) || !existsSync(file) || !statSync(file).isFile()) {
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
      return;
    }
    const size = statSync(file).size;
    bytes.set(path, (bytes.get(path) ?? 0) + size);
    res.writeHead(200, { 'content-type': TYPES[extname(file)] ?? 'application/octet-stream', 'content-length': size });
    createReadStream(file).pipe(res);
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/`, bytes, close: () => new Promise((ok) => server.close(() => ok())) };
}

/** launch starts headless chromium. */
export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--font-render-hinting=none', '--force-color-profile=srgb', '--hide-scrollbars'] });
}

/** Watched is a page with everything it reported: console messages, uncaught errors, dialogs. */
export interface Watched {
  page: Page;
  problems: string[];
  dialogs: string[];
}

/** watch opens a page that records console errors and warnings, page errors, failed requests and any dialog (and dismisses it). */
export async function watch(browser: Browser, viewport = { width: 1280, height: 900 }): Promise<Watched> {
  const page = await browser.newPage({ viewport, deviceScaleFactor: 1, colorScheme: 'light', reducedMotion: 'reduce' });
  const problems: string[] = [];
  const dialogs: string[] = [];
  page.on('console', (m: ConsoleMessage) => {
    if (m.type() === 'error' || m.type() === 'warning') problems.push(`console ${m.type()}: ${m.text()}`);
  });
  page.on('pageerror', (e) => problems.push(`page error: ${e.message}`));
  page.on('requestfailed', (r) => problems.push(`request failed: ${r.url()} ${r.failure()?.errorText ?? ''}`));
  page.on('dialog', (d) => {
    dialogs.push(`${d.type()}: ${d.message()}`);
    void d.dismiss();
  });
  return { page, problems, dialogs };
}
