// Worker entry: no logic here, see bench-recompute.ts (it starts this file in a worker thread).
import { parentPort, workerData } from 'node:worker_threads';
import { runRecomputeTask } from './bench-recompute.ts';

parentPort?.postMessage(runRecomputeTask(workerData));
