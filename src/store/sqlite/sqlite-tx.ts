import type Database from 'better-sqlite3';
import { StorageUnavailable } from '../errors.js';
import type { ExpertStateMemo } from '../expert-state-memo.js';
import type { Repositories, Tx } from '../store.js';
import type { SqliteInsights } from './insights.js';
import { toStoreError } from './storage-errors.js';

/**
 * The `Tx` the store's transactions run with: the writer's repositories, and savepoints that roll back
 * what they wrote, the rollup counts they gathered and the experts' states they read.
 */
export function transactionOf(db: Database.Database, writes: Repositories, memo: ExpertStateMemo, insights: SqliteInsights): Tx {
  let depth = 0;
  const tx: Tx = {
    ...writes,
    savepoint: async (work) => {
      // SQLite ended the transaction itself (a full disk, an I/O error): nothing more may be written in it.
      if (!db.inTransaction) throw new StorageUnavailable('io_error', 'the database rolled the transaction back after a storage error');
      const name = `nested_${++depth}`;
      db.exec(`SAVEPOINT ${name}`);
      const counted = insights.buffer.mark();
      try {
        const value = await work(tx);
        db.exec(`RELEASE ${name}`);
        return value;
      } catch (error) {
        // Unless SQLite already rolled the whole transaction back (a full disk): the batch sees to that.
        if (db.inTransaction) db.exec(`ROLLBACK TO ${name}; RELEASE ${name}`);
        insights.buffer.rollBack(counted);
        // States read inside may count asks the rollback undid.
        memo.forget();
        // The caller tells a storage failure or a conflict from a bad row as on any engine.
        throw toStoreError(error);
      } finally {
        depth--;
      }
    },
  };
  return tx;
}
