// A handler that fails partway, retried, makes every effect exactly once (effect-resumes.ts), on PostgreSQL.
import { after, describe } from 'node:test';
import { postgresUnavailable, startPostgres, type PostgresServer } from '../support/postgres-server.ts';
import { effectResumes } from './effect-resumes.ts';

const noPostgres = postgresUnavailable();
let server: PostgresServer | undefined;
after(() => server?.stop());

describe('on PostgreSQL', { skip: noPostgres }, () => {
  effectResumes('PostgreSQL', async () => (server = await startPostgres()).url);
});
