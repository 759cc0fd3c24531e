/**
 * dom: the only way the pages build HTML. Every text from the data files
 * (benchmark names, units, branches, ack reasons, commit subjects) is
 * untrusted: it goes in through textContent and attribute values, never
 * through innerHTML or a string of markup, so it can only ever be text.
 */

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | undefined | null | EventListener>;

/** h creates an element; `on*` attributes take listeners, strings and numbers become text nodes. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'href') {
      const href = safeHref(String(value));
      if (href !== undefined) el.setAttribute('href', href);
    } else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, ...children);
  return el;
}

/** append adds children as nodes or text. */
export function append(el: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    el.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** clear empties an element. */
export function clear(el: Node): void {
  while (el.firstChild) el.removeChild(el.firstChild);
}

/**
 * safeHref lets through in-page routes (`#/...`) and http(s) URLs only: a
 * link taken from the data (an issue URL, a PR URL) cannot become
 * `javascript:` or `data:`.
 */
export function safeHref(value: string): string | undefined {
  if (value.startsWith('#/') || value === '#') return value;
  try {
    const url = new URL(value);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.toString() : undefined;
  } catch {
    return undefined;
  }
}
