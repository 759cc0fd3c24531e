// `npm run bench`: every performance target, each printed beside its peer
// measured in the same run.
import { benchReaders } from './readers.ts';
import { benchCompareSpeed } from './compare-speed.ts';

const sections = [benchReaders, benchCompareSpeed];
for (const section of sections) {
  console.log(section().join('\n'));
  console.log();
}
