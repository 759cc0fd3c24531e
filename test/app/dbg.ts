import { startHarness, commentEvent, deliver, seedPull, sha } from './app-harness.ts';
const h = await startHarness({ writeIntervalMs: Number(process.env.W ?? 0) });
h.stand.state.permissions = { maintainer: 'maintain' };
seedPull(h, { number: 42, head: sha('h'), base: sha('b'), fork: true });
const times: number[] = [];
for (let i = 0; i < 30; i++) {
  const p = commentEvent(h, { body: '/bench', login: 'maintainer' });
  const t = performance.now();
  await deliver(h, 'issue_comment', p);
  times.push(performance.now() - t);
}
times.sort((a, b) => a - b);
console.log('p50', times[15].toFixed(1), 'max', times[29].toFixed(1));
await h.close();
