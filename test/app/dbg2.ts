import Bottleneck from 'bottleneck';
import { ProbotOctokit } from 'probot';
import { startGitHubApiStandIn } from '../support/github-api-stand-in.ts';
const stand = await startGitHubApiStandIn();
const write = new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 });
const notifications = new Bottleneck.Group({ maxConcurrent: 1, minTime: 0 });
for (const enabled of [true, false, true, false]) {
  const o = new ProbotOctokit({ auth: { token: 'x' }, baseUrl: stand.url, throttle: { enabled, write, notifications } as any, log: { debug() {}, info() {}, warn() {}, error() {} } as any });
  const t = performance.now();
  for (let i = 0; i < 20; i++) await o.request('GET /repos/{owner}/{repo}/collaborators/{username}/permission', { owner: 'a', repo: 'b', username: 'c' });
  const t2 = performance.now();
  for (let i = 0; i < 20; i++) await o.request('POST /repos/{owner}/{repo}/issues/{issue_number}/comments', { owner: 'a', repo: 'b', issue_number: 1, body: 'x' });
  console.log('throttle', enabled, 'GET', ((t2 - t) / 20).toFixed(1), 'POST', ((performance.now() - t2) / 20).toFixed(1));
}
await stand.close();
