// `npm run bench`: every performance target, each printed beside its peer
// measured in the same run.
import { benchReaders } from './readers.ts';
import { benchCompareSpeed } from './compare-speed.ts';
import { benchRunnerOverhead } from './runner-overhead.ts';
import { benchActionBundle } from './action-bundle.ts';

// The long simulations have their own scripts: bench:quality (detection
// quality vs peers), bench:demo (demo verdicts over repeated real runs,
// adaptive vs fixed rounds), bench:bisect.
const sections: (() => string[] | Promise<string[]>)[] = [benchReaders, benchCompareSpeed, benchRunnerOverhead, () => benchActionBundle()];
for (const section of sections) {
  console.log((await section()).join('\n'));
  console.log();
}
