import type { Repositories } from '../store.js';
import { PgAsks } from './asks.js';
import { PgRequests } from './requests.js';
import type { Db } from './sql.js';

/**
 * Stands in for a repository not written yet: every method rejects, naming it. (Removed once every
 * aggregate has its PostgreSQL repository.)
 */
function notYet<T extends object>(name: string): T {
  return new Proxy({} as T, {
    get: (_target, method) => async () => {
      throw new Error(`PostgreSQL: ${name}.${String(method)} is not implemented yet`);
    },
  });
}

/**
 * The PostgreSQL repositories over one connection (inside a transaction, `locking` is true: reads of
 * an aggregate's root row take its row lock, so concurrent writers of one request, proposal or expert
 * wait for each other) or over the pool (reads outside transactions, each autocommitted).
 */
export function createPgRepositories(db: Db, locking: boolean): Repositories {
  return {
    requests: new PgRequests(db, locking),
    asks: new PgAsks(db, locking),
    proposals: notYet('proposals'),
    outbox: notYet('outbox'),
    consumers: notYet('consumers'),
    chat: notYet('chat'),
    llmJobs: notYet('llmJobs'),
    serviceState: notYet('serviceState'),
    retention: notYet('retention'),
    metrics: notYet('metrics'),
  };
}
