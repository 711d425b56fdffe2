// Builds or copies a history in a process of its own (build.js's inChild): given the job by message,
// answers with { path, facts } (SQLite) or { facts } (PostgreSQL), or { error }.
import { fillPostgres, sqliteHistory } from './build.js';

process.once('message', async (job) => {
  try {
    const result = job.engine === 'sqlite' ? await sqliteHistory(job.requests, { here: true }) : await fillPostgres(job);
    process.send(result, () => process.exit(0));
  } catch (error) {
    console.error(error);
    process.send({ error: String(error?.message ?? error) }, () => process.exit(1));
  }
});
