/**
 * GITHUB_LOGIN is the shape GitHub allows for a user or organization login:
 * 1 to 39 letters, digits and single hyphens, neither first nor last. A
 * string that passes is safe after `@` in Markdown (it mentions that account
 * and nothing else).
 */
export const GITHUB_LOGIN = /^[A-Za-z0-9](?:[A-Za-z0-9]|-(?=[A-Za-z0-9])){0,38}$/;

/** MAX_CC_USERS bounds a cc list: every mention notifies someone, and a long list is a mistake or an abuse. */
export const MAX_CC_USERS = 20;

/**
 * parseCcUsers reads a list of users to mention, as github-action-benchmark's
 * `alert-comment-cc-users` takes it (`@foo,@bar`; spaces and newlines
 * separate too, the `@` may be left out). Returns the logins without `@`,
 * each once (GitHub logins ignore case), or throws an Error that names the
 * entry that is not a login. It only ever reads what the workflow's author
 * wrote; nothing from a pull request or an artifact comes through here.
 */
export function parseCcUsers(text: string): string[] {
  const logins: string[] = [];
  const seen = new Set<string>();
  for (const item of text.split(/[\s,]+/)) {
    if (item === '') continue;
    const login = item.startsWith('@') ? item.slice(1) : item;
    if (!GITHUB_LOGIN.test(login)) throw new Error(`"${item.slice(0, 60)}" is not a GitHub login; give logins separated by commas, e.g. @octocat,@hubot`);
    if (seen.has(login.toLowerCase())) continue;
    seen.add(login.toLowerCase());
    logins.push(login);
  }
  if (logins.length > MAX_CC_USERS) throw new Error(`${logins.length} logins; at most ${MAX_CC_USERS} may be mentioned`);
  return logins;
}
