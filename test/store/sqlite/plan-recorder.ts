import type Database from 'better-sqlite3';
import { openDatabase, openReader } from '../../../src/store/sqlite/open-database.js';
import { SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';

/** A statement the store ran: its SQL as prepared and the values it was run with. */
export interface Ran {
  sql: string;
  args: unknown[];
}

const RUNS = new Set<PropertyKey>(['run', 'get', 'all', 'iterate']);

/** The real connection, whose statements note each run in `ran`. */
function recording(db: Database.Database, ran: Ran[]): Database.Database {
  const statement = (stmt: Database.Statement): Database.Statement => {
    const proxy: Database.Statement = new Proxy(stmt, {
      get(target, prop) {
        const value = Reflect.get(target, prop, target) as unknown;
        if (typeof value !== 'function') return value;
        // Modes (raw, pluck, expand) return the statement itself: keep recording its runs.
        if (!RUNS.has(prop)) return (...args: unknown[]) => {
          const result = (value as (...a: unknown[]) => unknown).apply(target, args);
          return result === target ? proxy : result;
        };
        return (...args: unknown[]) => {
          ran.push({ sql: target.source, args });
          return value.apply(target, args);
        };
      },
    });
    return proxy;
  };
  return new Proxy(db, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (prop === 'prepare') return (sql: string) => statement(target.prepare(sql));
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

/**
 * The real SQLite store on `path`, with what it runs recorded, and SQLite's plan for any of it: the
 * plan of the statement as the store prepared it, with the values it bound (no statistics are
 * gathered, as in a served database, so the plan is the one a database of any size gets).
 */
export function planRecordingStore(path: string): { store: SqliteStore; plansOf(sql: RegExp): string[]; forget(): void } {
  const writer = openDatabase(path);
  const ran: Ran[] = [];
  const store = new SqliteStore(recording(writer, ran), recording(openReader(path), ran));
  const planOf = ({ sql, args }: Ran) =>
    (writer.prepare(`EXPLAIN QUERY PLAN ${sql}`).all(...args) as Array<{ detail: string }>).map((r) => r.detail).join(' | ');
  return {
    store,
    plansOf: (sql) => ran.filter((r) => sql.test(r.sql)).map(planOf),
    forget: () => void ran.splice(0),
  };
}
