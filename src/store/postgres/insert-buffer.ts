import type pg from 'pg';
import { statement } from './statement.js';

/** Each table's columns and their types as PostgreSQL names them (`bigint`, `jsonb`, `text`, …). */
export type ColumnTypes = ReadonlyMap<string, ReadonlyMap<string, string>>;

/**
 * Inserts whose results nobody reads, held back until the transaction next reads, writes anything
 * else or commits, then sent as one statement. The server answers every statement with a network
 * flush of its own, and a submit writes a handful of rows to five tables: one statement for all of
 * them (the tables joined by `WITH`) costs the server one flush instead of one per row.
 *
 * A table's rows go in as one array per column (`INSERT … SELECT … FROM unnest($1::text[], …)`), so
 * the statement's text depends on which inserts were held, not on how many rows each had: the server
 * parses and plans it once per connection (a multi-row `VALUES` of a new length each time cost it as
 * much to plan as to run). An insert whose parameters' types are not known (a parameter inside an
 * expression without a cast) goes in as multi-row `VALUES`.
 *
 * Only plain inserts are held (`INSERT INTO t (cols) VALUES ($1, …)`, optionally `ON CONFLICT DO
 * NOTHING`): nothing can depend on their order but foreign keys, which PostgreSQL checks at the end
 * of the statement, and the order of rows in one table (a serial column), which one array keeps.
 * Anything else sends what is held first, so every statement still runs after the writes issued
 * before it.
 */
export class InsertBuffer {
  private held: Array<{ insert: PlainInsert; values: unknown[] }> = [];

  constructor(private readonly types: ColumnTypes) {}

  /** Holds a plain insert and says so; false for any other statement (not held). */
  add(text: string, values: unknown[]): boolean {
    const insert = plainInsert(text, this.types);
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

/** The protocol allows 65,535 parameters per statement; stay well below (it bounds the `VALUES` form). */
const MAX_PARAMETERS = 30_000;

interface PlainInsert {
  text: string;
  /** `INSERT INTO t (cols)` */
  head: string;
  /** The row's tuple, e.g. `$1, $2::jsonb` */
  tuple: string;
  /** `ON CONFLICT DO NOTHING` or empty. */
  tail: string;
  /** Each parameter's type (`$1` first), or null when one is not known. */
  paramTypes: string[] | null;
}

const PLAIN = /^\s*(INSERT INTO (\w+)\s*\(([\w\s,]+)\))\s*VALUES\s*\(([$\d\s,:\w[\]()' ]+)\)\s*(ON CONFLICT DO NOTHING)?\s*$/i;
const parsed = new Map<string, PlainInsert | null>();

function plainInsert(text: string, types: ColumnTypes): PlainInsert | null {
  let insert = parsed.get(text);
  if (insert === undefined) {
    const m = PLAIN.exec(text);
    insert = m ? { text, head: m[1]!, tuple: m[4]!, tail: m[5] ?? '', paramTypes: paramTypesOf(types.get(m[2]!), m[3]!, m[4]!) } : null;
    if (parsed.size < 1000) parsed.set(text, insert);
  }
  return insert;
}

/**
 * Each parameter's type: a parameter that is a value of its own takes its column's type, or the type
 * it is cast to (`$3::jsonb`); one cast inside an expression takes that cast's. Null when a parameter
 * has neither, or the table's columns are not known.
 */
function paramTypesOf(columnTypes: ReadonlyMap<string, string> | undefined, columnList: string, tuple: string): string[] | null {
  if (!columnTypes) return null;
  const columns = columnList.split(',').map((c) => c.trim());
  const types: string[] = [];
  for (const m of tuple.matchAll(/\$(\d+)(?:::([\w ]+(?:\[\])?))?/g)) {
    const n = Number(m[1]) - 1;
    if (m[2]) types[n] = m[2].trim();
  }
  splitTopLevel(tuple).forEach((item, i) => {
    const alone = /^\$(\d+)$/.exec(item.trim());
    const type = columnTypes.get(columns[i] ?? '');
    if (alone && type) types[Number(alone[1]) - 1] ??= type;
  });
  for (let i = 0; i < types.length; i++) if (types[i] === undefined) return null;
  const count = Math.max(0, ...[...tuple.matchAll(/\$(\d+)/g)].map((m) => Number(m[1])));
  return types.length === count ? types : null;
}

/** The items of a tuple separated by commas outside parentheses. */
function splitTopLevel(tuple: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < tuple.length; i++) {
    const c = tuple[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      items.push(tuple.slice(start, i));
      start = i + 1;
    }
  }
  items.push(tuple.slice(start));
  return items;
}

/** One statement for several inserts: one insert per distinct statement, in order of first appearance. */
function merge(rows: Array<{ insert: PlainInsert; values: unknown[] }>): pg.QueryConfig {
  const groups = new Map<string, { insert: PlainInsert; rows: unknown[][] }>();
  for (const row of rows) {
    let group = groups.get(row.insert.text);
    if (!group) groups.set(row.insert.text, (group = { insert: row.insert, rows: [] }));
    group.rows.push(row.values);
  }
  const values: unknown[] = [];
  let arrays = true;
  const inserts = [...groups.values()].map(({ insert, rows }) => {
    const offset = values.length;
    if (insert.paramTypes === null) {
      arrays = false;
      const tuples = rows.map((v) => {
        const base = values.length;
        values.push(...v);
        return `(${renumber(insert.tuple, (n) => `$${n + base}`)})`;
      });
      return `${insert.head} VALUES ${tuples.join(', ')} ${insert.tail}`;
    }
    insert.paramTypes.forEach((_, i) => values.push(rows.map((v) => v[i] ?? null)));
    const arrayParams = insert.paramTypes.map((type, i) => `$${offset + i + 1}::${type}[]`).join(', ');
    const names = insert.paramTypes.map((_, i) => `p${i + 1}`).join(', ');
    return `${insert.head} SELECT ${renumber(insert.tuple, (n) => `u.p${n}`)} FROM unnest(${arrayParams}) AS u(${names}) ${insert.tail}`;
  });
  const last = inserts.pop()!;
  const text = inserts.length === 0 ? last : `WITH ${inserts.map((s, i) => `w${i} AS (${s})`).join(', ')} ${last}`;
  // With arrays the text is the same whatever the row counts, so the server may keep its plan; the
  // `VALUES` form changes with them and runs unnamed.
  return arrays ? statement(text, values) : { text, values };
}

/** The tuple with each `$n` replaced (a cast after it stays). */
function renumber(tuple: string, to: (n: number) => string): string {
  return tuple.replace(/\$(\d+)/g, (_, n: string) => to(Number(n)));
}
