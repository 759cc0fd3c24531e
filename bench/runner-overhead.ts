// What benchbot's runner adds to every round (spawning, reading the output,
// bookkeeping), beside the time of the benchmark command itself, on a
// throwaway repository whose bench command prints two results.
import { runAb } from '../src/runner/run-ab.ts';
import { createExecutor } from '../src/runner/executor.ts';
import { silentProgress } from '../src/runner/progress.ts';
import { join } from 'node:path';
import { makeFixtureRepo } from '../test/support/fixture-repo.ts';

export async function benchRunnerOverhead(): Promise<string[]> {
  const repo = makeFixtureRepo({ headFactor: 1.1 });
  const rounds = 20;
  const result = await runAb(
    {
      repo: repo.dir, base: 'base', head: 'head', bench: './bench.sh', build: './build.sh', format: 'plain', resultFile: undefined,
      minRuns: rounds, maxRuns: rounds, warmup: 1, threshold: 0.02, alpha: 0.05, rules: [], roundTimeoutMs: 60_000, buildTimeoutMs: 60_000,
      seed: 1, counters: false, allowDirty: false, stateDir: join(repo.dir, '.benchbot'), labels: [], maxFailedRounds: 0,
    },
    { executor: createExecutor({ kind: 'local' }), progress: silentProgress, now: () => new Date().toISOString() },
  );
  return [
    '## Runner overhead per round',
    '',
    '| what | ms per round |',
    '| --- | --- |',
    `| the benchmark command (\`sh bench.sh\`: awk printing two results), as the executor timed it | ${result.benchMs.toFixed(2)} |`,
    `| benchbot around it (spawn bookkeeping, reading and pooling the output) | ${result.overheadMs.toFixed(2)} |`,
    '',
    `(${rounds} rounds per side plus warm-up, local executor; a real suite's rounds take seconds, so the runner's share is well under 1%.)`,
  ];
}
