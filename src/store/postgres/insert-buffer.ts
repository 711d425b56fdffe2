import type pg from 'pg';
import { statement } from './statement.js';

/**
 * Inserts whose results nobody reads, held back until the transaction next reads, writes anything
 * else or commits, then sent as one statement. The server answers every statement with a network
 * flush of its own, and a submit writes a handful of rows to five tables: one statement for all of
 * them (a multi-row `VALUES` per table, the tables joined by `WITH`) costs the server one flush
 * instead of one per row.
 *
 * Only plain inserts are held (`INSERT INTO t (cols) VALUES ($1, …)`, optionally `ON CONFLICT DO
 * NOTHING`): nothing can depend on their order but foreign keys, which PostgreSQL checks at the end
 * of the statement, and the order of rows in one table (a serial column), which one multi-row
 * `VALUES` keeps. Anything else sends what is held first, so every statement still runs after the
 * writes issued before it.
 */
export class InsertBuffer {
  private held: Array<{ insert: PlainInsert; values: unknown[] }> = [];

  /** Holds a plain insert and says so; false for any other statement (not held). */
  add(text: string, values: unknown[]): boolean {
    const insert = plainInsert(text);
    if (insert === null) return false;
    this.held.push({ insert, values });
    return true;
  }

  /** The statements to send for what is held (none when nothing is), in order; empties the buffer. */
  take(): pg.QueryConfig[] {
    const held = this.held;
    if (held.length === 0) return [];
    this.held = [];
    if (held.length === 1) return [statement(held[0]!.insert.text, held[0]!.values)];
    const statements: pg.QueryConfig[] = [];
    // Chunks in arrival order, so a row's parent is never in a later statement than the row.
    for (let start = 0; start < held.length; ) {
      let end = start;
      let count = 0;
      while (end < held.length && (end === start || count + held[end]!.values.length <= MAX_PARAMETERS)) count += held[end++]!.values.length;
      statements.push(merge(held.slice(start, end)));
      start = end;
    }
    return statements;
  }
}

/** The protocol allows 65,535 parameters per statement; stay well below. */
const MAX_PARAMETERS = 30_000;

interface PlainInsert {
  text: string;
  /** `INSERT INTO t (cols) VALUES` */
  head: string;
  /** The row's tuple, e.g. `$1, $2::jsonb` */
  tuple: string;
  /** `ON CONFLICT DO NOTHING` or empty. */
  tail: string;
}

const PLAIN = /^\s*(INSERT INTO \w+\s*\([\w\s,]+\)\s*VALUES)\s*\(([$\d\s,:\w[\]]+)\)\s*(ON CONFLICT DO NOTHING)?\s*$/i;
const parsed = new Map<string, PlainInsert | null>();

function plainInsert(text: string): PlainInsert | null {
  let insert = parsed.get(text);
  if (insert === undefined) {
    const m = PLAIN.exec(text);
    insert = m ? { text, head: m[1]!, tuple: m[2]!, tail: m[3] ?? '' } : null;
    if (parsed.size < 1000) parsed.set(text, insert);
  }
  return insert;
}

/** One statement for several inserts: a multi-row insert per table, in order of first appearance. */
function merge(rows: Array<{ insert: PlainInsert; values: unknown[] }>): pg.QueryConfig {
  const groups = new Map<string, { insert: PlainInsert; tuples: string[] }>();
  const values: unknown[] = [];
  for (const row of rows) {
    const offset = values.length;
    values.push(...row.values);
    let group = groups.get(row.insert.text);
    if (!group) groups.set(row.insert.text, (group = { insert: row.insert, tuples: [] }));
    group.tuples.push(`(${row.insert.tuple.replace(/\$(\d+)/g, (_, n: string) => `$${Number(n) + offset}`)})`);
  }
  const inserts = [...groups.values()].map((g) => `${g.insert.head} ${g.tuples.join(', ')} ${g.insert.tail}`);
  const last = inserts.pop()!;
  const text = inserts.length === 0 ? last : `WITH ${inserts.map((s, i) => `w${i} AS (${s})`).join(', ')} ${last}`;
  // Unnamed: the text changes with the number of rows, and the server should not keep every shape.
  return { text, values };
}
