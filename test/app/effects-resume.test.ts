// A handler that fails partway, retried, makes every effect exactly once (effect-resumes.ts), on SQLite.
import { effectResumes } from './effect-resumes.ts';

effectResumes('SQLite', async () => undefined);
