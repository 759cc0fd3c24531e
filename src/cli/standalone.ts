// Entry file of the standalone executable (npm run build:sea): no logic here, see main.ts.
// Node 24 runs a single executable application's script as CommonJS, where
// there is no top-level await, hence the promise.
import { main } from './main.ts';

void main(process.argv.slice(2)).then((code) => {
  process.exitCode = code;
});
