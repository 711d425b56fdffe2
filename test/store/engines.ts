import { basename, join } from 'node:path';
import pg from 'pg';
import { inject } from 'vitest';
import { PG_MIGRATIONS } from '../../src/store/postgres/migrations.js';
import { openPgStore } from '../../src/store/postgres/pg-store.js';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';

/** A storage engine the contract suite runs against: `open` gives a store on the database kept in `dir`. */
export interface Engine {
  name: string;
  /** Opens a store in `dir`; opening it again on the same `dir` is a second process on the same database. */
  open(dir: string): Promise<Store>;
  /** Removes what `open` made outside `dir` (a PostgreSQL database), once every store on it is closed. */
  drop?(dir: string): Promise<void>;
}

/** The PostgreSQL database that stands for `dir`: one per test, named after the directory. */
export function databaseOf(dir: string): string {
  return `eq_${basename(dir).replace(/[^a-zA-Z0-9]/g, '_').toLowerCase()}`;
}

/** The URL of the test server with another database in its path. */
export function postgresUrl(database: string): string {
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${database}`;
  return url.toString();
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: inject('postgresUrl') });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** Creates a fresh database on the test server and returns its URL. */
export async function createTestDatabase(name: string): Promise<string> {
  await admin(async (c) => {
    const exists = await c.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) await c.query(`CREATE DATABASE ${name}`);
  });
  return postgresUrl(name);
}

/**
 * Creates a fresh database at an older schema `version`, as an instance of that version would have left
 * it, with the rows `fill` writes on a connection to it; returns its URL.
 */
export async function createTestDatabaseAt(name: string, version: number, fill: (client: pg.Client) => Promise<void>): Promise<string> {
  const url = await createTestDatabase(name);
  const old = new pg.Client({ connectionString: url });
  await old.connect();
  try {
    for (const migration of PG_MIGRATIONS.slice(0, version)) {
      if (typeof migration === 'string') await old.query(migration);
      else await migration(old);
    }
    await old.query('CREATE TABLE expertq_schema (version INTEGER NOT NULL)');
    await old.query('INSERT INTO expertq_schema (version) VALUES ($1)', [version]);
    await fill(old);
  } finally {
    await old.end();
  }
  return url;
}

export async function dropTestDatabase(name: string): Promise<void> {
  await admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`));
}

/** Every engine expertq ships. A new engine passes the contract suite by adding one entry here. */
export const ENGINES: Engine[] = [
  { name: 'sqlite', open: async (dir) => openSqliteStore(join(dir, 'db.sqlite')) },
  {
    name: 'postgres',
    open: async (dir) => openPgStore({ url: await createTestDatabase(databaseOf(dir)), poolSize: 5 }),
    drop: (dir) => dropTestDatabase(databaseOf(dir)),
  },
];
