// The duplicate races of effect-races.ts on SQLite (one process, and two replicas on one database file).
import { effectRaces } from './effect-races.ts';

effectRaces('SQLite', async () => undefined);
