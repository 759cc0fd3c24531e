/**
 * use-stand-in-client: the GitHub client tests of src/github/ talk through,
 * the action's real client (createGitHubClient) pointed at the API stand-in,
 * which validates every request against GitHub's OpenAPI description.
 */
import { after, afterEach, before } from 'node:test';
import { createGitHubClient, type GitHubClient } from '../../src/github/github-client.ts';
import { assertAllValid, startGitHubApiStandIn, type GitHubApiStandIn } from './github-api-stand-in.ts';

/** StandInClient is a test file's stand-in and the client that talks to it; both exist once the file's `before` hooks ran. */
export interface StandInClient {
  readonly standIn: GitHubApiStandIn;
  readonly client: GitHubClient;
}

/**
 * useStandInClient registers the hooks of a test file that talks to GitHub:
 * the stand-in starts before its tests and closes after them, and after
 * each test every request it received is checked (assertAllValid) and
 * forgotten. The client does not sleep between retries or writes.
 */
export function useStandInClient(): StandInClient {
  let standIn: GitHubApiStandIn | undefined;
  let client: GitHubClient | undefined;
  before(async () => {
    standIn = await startGitHubApiStandIn();
    client = createGitHubClient({ token: 'test-token', apiUrl: standIn.url, sleep: async () => {}, writeIntervalMs: 0 });
  });
  after(() => standIn?.close());
  afterEach(() => {
    if (!standIn) return;
    try {
      assertAllValid(standIn);
    } finally {
      standIn.reset();
    }
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('useStandInClient: the stand-in is used before its before hook ran; use it inside tests and hooks');
    return value;
  };
  return {
    get standIn() {
      return started(standIn);
    },
    get client() {
      return started(client);
    },
  };
}
