/**
 * Credential redaction for every message and log line that may carry a
 * store URL (or any other URL). One function, redact, is the only way such
 * text reaches a user: open-store, the PostgreSQL and SQLite adapters,
 * `benchbot serve`, the CLI's and the action's error paths all call it.
 *
 * What counts as a credential:
 * - the password of a URL's userinfo (`scheme://user:PASSWORD@host`), in any
 *   scheme, with `@`, `/`, `#` or `?` inside the password (the userinfo ends
 *   at the last `@`, as WHATWG URL parsing and libpq read it);
 * - the value of any `name=value` pair whose name says secret, in a URL query
 *   (`?password=`, `&sslpassword=`, `%70assword=`) or in a libpq
 *   keyword/value string (`host=h password='a b'`): names containing `pass`,
 *   `pwd`, `secret`, `token`, `apikey`, `credential`, `privatekey`,
 *   `accesskey`, or exactly `key`, compared case-insensitively after
 *   percent-decoding and without `-`, `_` and `.`;
 * - a username that is a GitHub token (`https://ghp_...@github.com`);
 * - any value given in `secrets` (the passwords of the store URL in use), so
 *   that a message which echoes only the password (a server error, a proxy)
 *   is covered too.
 *
 * Not secret, and kept so that messages stay useful: user names, hosts,
 * ports, database names, and the paths in `passfile`, `sslkey`, `sslcert`,
 * `sslrootcert` and `sslcrl` (a path says where a secret is, not what it is).
 * Over-redaction is preferred to a leak: an `@` in a query string may hide
 * the text before it.
 */

/** REDACTED replaces each secret. */
export const REDACTED = '***';

const ALREADY = /^\*\*\*[:.,;)\]]*$/;
/** MIN_ECHO_LENGTH: shorter known secrets are not searched for in free text (they would shred ordinary words). */
const MIN_ECHO_LENGTH = 4;

/** Names whose values are paths to secrets, not secrets. */
const PATH_NAMES = new Set(['passfile', 'sslkey', 'sslcert', 'sslrootcert', 'sslcrl', 'sslcrldir']);
const SECRET_NAME = /pass|pwd|secret|token|apikey|credential|privatekey|accesskey/;
/** The placeholder in benchbot's own help text (`postgres://USER:PASSWORD@HOST:PORT/DATABASE`), which names no secret. */
const PLACEHOLDER = 'USER:PASSWORD';
const GITHUB_TOKEN = /^(?:gh[pousr]_|github_pat_)/;

// name=value where the name starts the text or follows a separator; a value is quoted ('...' with \-escapes, as libpq takes it, or "...") or runs to whitespace, & or #.
const PAIR = /(^|[\s?&;,(])((?:[A-Za-z0-9_.-]|%[0-9A-Fa-f]{2})+)(\s*=\s*)('(?:[^'\\]|\\.)*'?|"(?:[^"\\]|\\.)*"?|[^\s&#]*)/g;
// scheme://rest in free text; rest runs to whitespace, a quote or an angle bracket.
const URL_IN_TEXT = /\b([A-Za-z][A-Za-z0-9+.-]{0,31}:\/\/)([^\s'"<>`]*)/g;

/** RedactOptions add known secret values to look for. */
export interface RedactOptions {
  /** Values to hide wherever they appear (typically connectionSecrets of the store URL). */
  secrets?: readonly string[];
}

/**
 * redact hides every credential in text: a whole connection string (URL or
 * keyword/value) or a message that contains URLs. See the module comment for
 * what counts as a credential.
 */
export function redact(text: string, options: RedactOptions = {}): string {
  // A value already redacted keeps the punctuation after it, so that redacting twice changes nothing.
  let out = text.replace(PAIR, (all, lead: string, name: string, eq: string, value: string) => (value !== '' && !ALREADY.test(value) && isSecretName(name) ? `${lead}${name}${eq}${REDACTED}` : all));
  // A whole string that is one URL keeps its spaces in the password (pg percent-encodes them and connects).
  const whole = /^\s*([A-Za-z][A-Za-z0-9+.-]*:\/\/)(.*)$/s.exec(out);
  out = whole ? `${out.slice(0, out.indexOf(whole[1]))}${whole[1]}${redactAuthority(whole[2])}` : out.replace(URL_IN_TEXT, (_all, scheme: string, rest: string) => `${scheme}${redactAuthority(rest)}`);
  for (const secret of options.secrets ?? []) {
    if (secret.length >= MIN_ECHO_LENGTH) out = out.split(secret).join(REDACTED);
  }
  return out;
}

/**
 * connectionSecrets lists the secret values in a connection string, raw and
 * percent-decoded, for redact's `secrets`: the userinfo password and the
 * values of secret-named pairs.
 */
export function connectionSecrets(connection: string): string[] {
  const found = new Set<string>();
  const add = (value: string) => {
    const unquoted = /^'(.*)'$/s.exec(value)?.[1]?.replace(/\\(.)/g, '$1') ?? /^"(.*)"$/s.exec(value)?.[1] ?? value;
    for (const v of [value, unquoted, decode(unquoted), decode(unquoted.replace(/\+/g, ' '))]) if (v !== '') found.add(v);
  };
  for (const m of connection.matchAll(PAIR)) if (m[4] !== '' && isSecretName(m[2])) add(m[4]);
  const url = /^\s*[A-Za-z][A-Za-z0-9+.-]*:\/\/(.*)$/s.exec(connection);
  if (url) {
    const at = url[1].lastIndexOf('@');
    const colon = at < 0 ? -1 : url[1].indexOf(':');
    if (colon >= 0 && colon < at) add(url[1].slice(colon + 1, at));
  }
  return [...found].sort((a, b) => b.length - a.length);
}

/**
 * scrubError redacts an error's message and stack in place, and those of its
 * causes, so that a logger printing the error (or its cause chain) shows no
 * credential. It returns the same error.
 */
export function scrubError<T>(error: T, options: RedactOptions = {}): T {
  const seen = new Set<unknown>();
  let e: unknown = error;
  while (e instanceof Error && !seen.has(e)) {
    seen.add(e);
    try {
      e.message = redact(e.message, options);
      if (typeof e.stack === 'string') e.stack = redact(e.stack, options);
      const input = (e as { input?: unknown }).input;
      if (typeof input === 'string') (e as { input?: unknown }).input = redact(input, options);
    } catch {
      // A frozen error stays as it is; its message was never ours to print.
    }
    if (e instanceof AggregateError) for (const inner of e.errors) scrubError(inner, options);
    e = e.cause;
  }
  return error;
}

/** redactAuthority hides the password of `user:password@` at the start of a URL's text after `//`. */
function redactAuthority(rest: string): string {
  const at = rest.lastIndexOf('@');
  if (at < 0) return rest;
  const userinfo = rest.slice(0, at);
  const colon = userinfo.indexOf(':');
  if (colon < 0) return GITHUB_TOKEN.test(userinfo) ? `${REDACTED}${rest.slice(at)}` : rest;
  const user = userinfo.slice(0, colon);
  if (userinfo === PLACEHOLDER) return rest;
  return `${GITHUB_TOKEN.test(user) ? REDACTED : user}:${REDACTED}${rest.slice(at)}`;
}

function isSecretName(name: string): boolean {
  const n = decode(name).toLowerCase().replace(/[-_.]/g, '');
  if (PATH_NAMES.has(n)) return false;
  return n === 'key' || SECRET_NAME.test(n);
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}
