import type pg from 'pg';
import { ConfigError } from '../../config/load-config.js';
import { countNewAnswerTopics, fillAnswerWords, fillSearchWords } from './fill-search-words.js';
import { PG_MIGRATIONS } from './migrations.js';

/** The session advisory lock instances take to migrate one at a time (an arbitrary constant: "expertq1"). */
const MIGRATION_LOCK = 0x6578_7071_3031;

/**
 * Brings the database to this version's schema. Instances starting together take turns under an
 * advisory lock, so each migration runs once; an instance older than the schema refuses to start.
 */
export async function migratePg(pool: pg.Pool, where: string): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query('CREATE TABLE IF NOT EXISTS expertq_schema (version INTEGER NOT NULL)');
      const row = (await client.query('SELECT version FROM expertq_schema')).rows[0] as { version: number } | undefined;
      const version = row?.version ?? 0;
      if (version > PG_MIGRATIONS.length) {
        throw new ConfigError(
          `The database ${where} is at schema version ${version}, newer than this expertq (${PG_MIGRATIONS.length}): a newer expertq has used it. ` +
            'Run that version, or restore the backup taken before the upgrade (docs/operations.md).',
        );
      }
      for (let v = version; v < PG_MIGRATIONS.length; v++) {
        await client.query('BEGIN');
        try {
          const migration = PG_MIGRATIONS[v]!;
          if (typeof migration === 'string') await client.query(migration);
          else await migration(client);
          await client.query(v === 0 && !row ? 'INSERT INTO expertq_schema (version) VALUES ($1)' : 'UPDATE expertq_schema SET version = $1', [v + 1]);
          await client.query('COMMIT');
        } catch (error) {
          await client.query('ROLLBACK');
          throw error;
        }
      }
      // Requests and library entries an older instance inserted while this version rolled out have no words yet.
      await fillSearchWords(client);
      await fillAnswerWords(client);
      await countNewAnswerTopics(client);
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
