// `npm run bench`: every performance target, each printed beside its peer
// measured in the same run.
import { benchReaders } from './readers.ts';

const sections = [benchReaders];
for (const section of sections) {
  console.log(section().join('\n'));
  console.log();
}
