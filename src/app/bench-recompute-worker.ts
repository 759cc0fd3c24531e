// Worker entry: no logic here, see bench-recompute.ts (it starts this file in a worker thread and posts it one task at a time).
import { parentPort } from 'node:worker_threads';
import { READY, runRecomputeTask } from './bench-recompute.ts';

parentPort?.on('message', (task: Parameters<typeof runRecomputeTask>[0]) => parentPort?.postMessage(runRecomputeTask(task)));
parentPort?.postMessage(READY);
