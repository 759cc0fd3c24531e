/**
 * index-html: the dashboard's one HTML page. Its Content-Security-Policy
 * allows only the site's own script, style and data: even if some text
 * from a benchmark ever reached the page as markup, no script of it could
 * run and nothing could be sent elsewhere.
 */

/** CONTENT_SECURITY_POLICY is sent as a header by `benchbot serve` and as a meta tag in the static site. */
export const CONTENT_SECURITY_POLICY = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; base-uri 'none'; form-action 'none'";

/** escapeHtml makes text safe inside HTML text and double-quoted attributes. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** indexHtml is the page for a dashboard titled `title` (the data sets the final title; this one shows while it loads). */
export function indexHtml(title: string): string {
  const t = escapeHtml(title);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${CONTENT_SECURITY_POLICY}">
<meta name="referrer" content="no-referrer">
<title>${t}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="dashboard.css">
</head>
<body>
<a class="skip" href="#main">Skip to content</a>
<header>
<h1 id="site-title">${t}</h1>
<nav aria-label="Sections"><a href="#/">Series</a> <a href="#/prs">Pull request runs</a></nav>
</header>
<main id="main" tabindex="-1"><p role="status">Loading the benchmark history…</p><noscript><p>These pages draw their charts with JavaScript; the data is in data/overview.json and data/series/.</p></noscript></main>
<script src="dashboard.js" defer></script>
</body>
</html>
`;
}
