// Copies a SQLite history that build.js made through the service into a fresh PostgreSQL database,
// table by table, so the PostgreSQL read targets can be measured at sizes whose build through the
// service would take hours there (about 30 minutes per 100,000 submissions on 2 cores). The rows are
// the ones the service wrote; the columns PostgreSQL derives (a request's and a library entry's search
// vectors) are computed by the PostgreSQL store's own functions, and the schema is the one its
// migrations create. Needs `npm run build`.
import Database from 'better-sqlite3';
import pg from 'pg';
import { performance } from 'node:perf_hooks';
import { openStore } from '../../dist/store/open-store.js';
import { searchVector } from '../../dist/store/postgres/answers.js';
import { readColumnTypes } from '../../dist/store/postgres/pg-store.js';
import { SEARCH_WORDS_OF, searchWordsOf } from '../../dist/store/postgres/request-search.js';

/** Parents before the rows that refer to them (foreign keys): requests first, events before deliveries. */
const TABLES = [
  'consumers',
  'requests',
  'request_subscribers',
  'asks',
  'proposals',
  'llm_jobs',
  'events',
  'deliveries',
  'audit',
  'messages',
  'chat_asks',
  'chat_events',
  'review_cards',
  'answers',
  'answer_words',
  'answer_topics',
  'expert_state',
  'service_state',
  'votes',
  'insight_hours',
  'insight_times',
  'insight_periods',
  'insight_period_times',
];
/** Rows per INSERT (one array per column). */
const BATCH = 5_000;

/** Columns PostgreSQL derives: the extra column, the parameter's type, the expression, and its value from a row. */
const DERIVED = {
  requests: { column: 'search_words', type: 'text', expr: (p) => SEARCH_WORDS_OF(p), value: (r) => searchWordsOf(r.question, r.asked_question) },
  answers: { column: 'search', type: 'text', expr: (p) => `${p}::tsvector`, value: (r) => searchVector(r.question, r.answer) },
};
/** Identity columns PostgreSQL numbers itself; a table absent here keeps SQLite's numbers. */
const RENUMBERED = { consumers: 'seq' };

/**
 * Copies every table of the SQLite database at `sqlitePath` into the empty database at `url` (migrated
 * here first), then VACUUM ANALYZE. `log` gets a line per table.
 */
export async function copyHistoryToPg(sqlitePath, url, log = console.log) {
  const store = await openStore({ urlEnv: 'EXPERTQ_HISTORY_DATABASE_URL', url, poolSize: 2 });
  await store.close();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const db = new Database(sqlitePath, { readonly: true });
  try {
    const types = await readColumnTypes(client);
    for (const table of TABLES) {
      const started = performance.now();
      const rows = await copyTable(db, client, table, types.get(table));
      log(`  ${table}: ${rows.toLocaleString('en-US')} rows in ${((performance.now() - started) / 1000).toFixed(1)} s`);
    }
    await client.query(`SELECT setval(pg_get_serial_sequence('audit', 'seq'), COALESCE((SELECT MAX(seq) FROM audit), 0) + 1, false)`);
    const started = performance.now();
    await client.query('VACUUM ANALYZE');
    // The load's pages on disk now, as a database's at rest are: otherwise the checkpointer writes
    // them back over the next minutes, while the bench measures.
    await client.query('CHECKPOINT');
    log(`  VACUUM ANALYZE and CHECKPOINT in ${((performance.now() - started) / 1000).toFixed(1)} s`);
  } finally {
    db.close();
    await client.end();
  }
}

/** Copies one table in batches of BATCH rows; resolves with how many. */
async function copyTable(db, client, table, pgTypes) {
  const present = new Set(db.prepare(`PRAGMA table_info("${table}")`).all().map((c) => c.name));
  const columns = [...pgTypes.keys()].filter((c) => present.has(c) && RENUMBERED[table] !== c);
  const derived = DERIVED[table];
  // Each column a parameter array, unnested as c0, c1, …; a derived column's input comes last.
  const params = columns.map((c, i) => `$${i + 1}::${pgTypes.get(c)}[]`);
  if (derived) params.push(`$${columns.length + 1}::${derived.type}[]`);
  const unnested = params.map((_, i) => `c${i}`);
  const selected = columns.map((_, i) => `u.c${i}`);
  if (derived) selected.push(derived.expr(`u.c${columns.length}`));
  const text =
    `INSERT INTO ${table} (${[...columns, ...(derived ? [derived.column] : [])].join(', ')}) ` +
    `${table === 'audit' ? 'OVERRIDING SYSTEM VALUE ' : ''}` +
    `SELECT ${selected.join(', ')} FROM unnest(${params.join(', ')}) AS u(${unnested.join(', ')})`;
  let batch = [];
  let copied = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    const values = columns.map((c) => batch.map((r) => r[c]));
    if (derived) values.push(batch.map(derived.value));
    await client.query(text, values);
    copied += batch.length;
    batch = [];
  };
  for (const row of db.prepare(`SELECT ${columns.map((c) => `"${c}"`).join(', ')} FROM "${table}"`).iterate()) {
    batch.push(row);
    if (batch.length >= BATCH) await flush();
  }
  await flush();
  return copied;
}
