import type Database from 'better-sqlite3';

/** Row helpers the SQLite repositories share: optional filters, cached dynamic statements, rows to records. */

export { ANSWER_COLUMNS, awayValues, toAway, toLiveState, answerColumns, json, messageText, parseJson, toAnswer, toAudit, toConsumer, toLlmJob, toMessage, toProposal, toRequest, toRequestSummary, type Row } from '../row-records.js';

/** `WHERE a = ? AND b = ?` from the filters whose value is given (list endpoints' optional filters). */
export function whereClause(filters: Array<[clause: string, value: unknown]>): { where: string; values: unknown[] } {
  const given = filters.filter(([, value]) => value !== undefined);
  return { where: given.length ? `WHERE ${given.map(([c]) => c).join(' AND ')}` : '', values: given.map(([, v]) => v) };
}

/**
 * Prepares dynamic SQL (a patch's columns, a list's filters) once per distinct text: there are few
 * such texts, and preparing costs more than running.
 */
export function statementCache(db: Database.Database): (sql: string) => Database.Statement {
  const cache = new Map<string, Database.Statement>();
  return (sql) => {
    let stmt = cache.get(sql);
    if (!stmt) cache.set(sql, (stmt = db.prepare(sql)));
    return stmt;
  };
}


/** A table of shared statements (`src/store/shared`), each prepared on `db`. */
export function prepareAll<K extends string>(db: Database.Database, table: Readonly<Record<K, string>>): Record<K, Database.Statement> {
  return Object.fromEntries(Object.entries<string>(table).map(([k, text]) => [k, db.prepare(text)])) as Record<K, Database.Statement>;
}
