// One step of bench/dashboard.ts in a process of its own, so that its time
// and its peak memory are its own: `node bench/scale-task.ts ARGS...` runs
// `benchbot ARGS...` in-process and prints, as its last line, JSON with the
// wall time, CPU time and peak resident memory (getrusage's maxrss).
import { writeFileSync } from 'node:fs';
import { main } from '../src/cli/main.ts';

const started = performance.now();
const lines: string[] = [];
const code = await main(process.argv.slice(2), (t) => {
  lines.push(t);
  return true;
}, (t) => process.stderr.write(`${t}\n`));
const usage = process.resourceUsage();
if (process.env.SCALE_TASK_OUTPUT) writeFileSync(process.env.SCALE_TASK_OUTPUT, lines.join('\n'));
console.log(lines.join('\n').slice(0, 2000));
console.log(JSON.stringify({ code, seconds: (performance.now() - started) / 1000, cpuSeconds: (usage.userCPUTime + usage.systemCPUTime) / 1e6, maxRssMB: usage.maxRSS / 1024 }));
