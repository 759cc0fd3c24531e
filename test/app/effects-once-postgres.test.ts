// The duplicate races of effect-races.ts on PostgreSQL (one process, and two replicas on one database).
import { after, describe } from 'node:test';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres-server.ts';
import { effectRaces } from './effect-races.ts';

const noPostgres = postgresUnavailable();
let server: PostgresServer | undefined;
after(() => server?.stop());

describe('on PostgreSQL', { skip: noPostgres }, () => {
  effectRaces('PostgreSQL', async () => (server = await startPostgres()).url);
});
