// Entry file: no logic here, see run-action.ts.
import { runAction } from './run-action.ts';

process.exitCode = await runAction({ env: process.env, log: (line) => process.stdout.write(`${line}\n`), now: () => new Date().toISOString() });
