import type { GitHubClient } from '../github/github-client.ts';
import { GitHubError } from '../github/github-client.ts';
import { CONFIG_PATH, MAX_CONFIG_BYTES, parseAppConfig, type ParsedConfig } from './app-config.ts';

/**
 * loadRepoConfig reads `.github/benchbot.yml` at `ref` (the default branch:
 * a pull request cannot change who may run `/bench` on itself) and validates
 * it. It never throws for a missing, unreadable or invalid file: the app
 * keeps working with defaults, and the problems are returned for the reply.
 */
export async function loadRepoConfig(client: GitHubClient, owner: string, repo: string, ref: string): Promise<ParsedConfig> {
  let file: { type?: string; encoding?: string; content?: string; size?: number };
  try {
    file = await client.request('GET', '/repos/{owner}/{repo}/contents/{path}', { owner, repo, path: CONFIG_PATH, ref });
  } catch (error) {
    if (error instanceof GitHubError && error.status === 404) return parseAppConfig(null);
    if (error instanceof GitHubError) return withDefaults(`could not be read (${error.status}${error.githubMessage ? `: ${error.githubMessage}` : ''})`);
    throw error;
  }
  if (Array.isArray(file) || file?.type !== 'file') return withDefaults(`is not a file (${Array.isArray(file) ? 'a directory' : String(file?.type)})`);
  if ((file.size ?? 0) > MAX_CONFIG_BYTES) return withDefaults(`is ${file.size} bytes; the limit is ${MAX_CONFIG_BYTES}`);
  if (file.encoding !== 'base64' || typeof file.content !== 'string') return withDefaults(`came back with encoding ${String(file.encoding)}, not base64`);
  const bytes = Buffer.from(file.content.replace(/\s+/g, ''), 'base64');
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch {
    return withDefaults('is not UTF-8 text');
  }
  return parseAppConfig(text);
}

function withDefaults(problem: string): ParsedConfig {
  const parsed = parseAppConfig(null);
  parsed.problems.push({ key: '(file)', message: `${CONFIG_PATH} ${problem}, so every setting is at its default` });
  return parsed;
}
