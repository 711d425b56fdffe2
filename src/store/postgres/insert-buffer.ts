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
 * A table's rows go in as one parameter, a JSON array of rows (`INSERT … SELECT … FROM
 * jsonb_array_elements($1::jsonb)`), so the statement's text depends on which inserts were held, not
 * on how many rows each had: the server parses and plans it once per connection (a multi-row `VALUES`
 * of a new length each time cost it as much to plan as to run). JSON because V8 writes it natively:
 * node-postgres's array literals quote and escape each element in JavaScript, which cost a submit
 * more than any other part of its statement. Rows holding a value JSON would change (not a string,
 * finite number, boolean or null; a string with a NUL or a lone surrogate, which `jsonb` refuses
 * where a text parameter takes them as before) go in as one array per column, as node-postgres
 * encodes them.
 *
 * Only plain inserts whose parameters' types are known are held (`INSERT INTO t (cols) VALUES ($1,
 * …)`, optionally `ON CONFLICT DO NOTHING`; a parameter inside an expression needs a cast): nothing
 * can depend on their order but foreign keys, which PostgreSQL checks at the end of the statement, and
 * the order of rows in one table (a serial column), which one array keeps. Anything else sends what is
 * held first, so every statement still runs after the writes issued before it.
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

  /** The statement to send for what is held (null when nothing is); empties the buffer. */
  take(): pg.QueryConfig | null {
    const held = this.held;
    if (held.length === 0) return null;
    this.held = [];
    return held.length === 1 ? statement(held[0]!.insert.text, held[0]!.values) : merge(held);
  }
}

interface PlainInsert {
  text: string;
  /** `INSERT INTO t (cols)` */
  head: string;
  /** The row's tuple, e.g. `$1, $2::jsonb` */
  tuple: string;
  /** `ON CONFLICT DO NOTHING` or empty. */
  tail: string;
  /** Each parameter's type, `$1` first. */
  paramTypes: string[];
  /** The tuple over the rows' relation: `u.p1, u.p2::jsonb` */
  select: string;
  /** The columns `u(p1, p2, …)` read from a JSON row `r`: `(r->>0)::text AS p1, …` */
  fromJson: string;
}

const PLAIN = /^\s*(INSERT INTO (\w+)\s*\(([\w\s,]+)\))\s*VALUES\s*\(([$\d\s,:\w[\]()' ]+)\)\s*(ON CONFLICT DO NOTHING)?\s*$/i;
const parsed = new Map<string, PlainInsert | null>();

function plainInsert(text: string, types: ColumnTypes): PlainInsert | null {
  let insert = parsed.get(text);
  if (insert === undefined) {
    const m = PLAIN.exec(text);
    const paramTypes = m && paramTypesOf(types.get(m[2]!), m[3]!, m[4]!);
    insert = paramTypes
      ? {
          text,
          head: m![1]!,
          tuple: m![4]!,
          tail: m![5] ?? '',
          paramTypes,
          select: m![4]!.replace(/\$(\d+)/g, (_, n: string) => `u.p${n}`),
          fromJson: paramTypes.map((type, i) => `(r->>${i})::${type} AS p${i + 1}`).join(', '),
        }
      : null;
    if (parsed.size < 1000) parsed.set(text, insert);
  }
  return insert;
}

/**
 * Each parameter's type: one that is a tuple item of its own takes its column's type, one cast
 * (`$3::jsonb`, or inside an expression) the cast's. Null when a parameter has neither, or the table's
 * columns are not known.
 */
function paramTypesOf(columnTypes: ReadonlyMap<string, string> | undefined, columnList: string, tuple: string): string[] | null {
  if (!columnTypes) return null;
  const columns = columnList.split(',').map((c) => c.trim());
  const types: string[] = [];
  for (const [i, item] of topLevelItems(tuple).entries()) {
    for (const m of item.matchAll(/\$(\d+)(?:::([\w ]+(?:\[\])?))?/g)) {
      const type = m[2]?.trim() ?? (item.trim() === m[0] ? columnTypes.get(columns[i] ?? '') : undefined);
      if (type === undefined) return null;
      types[Number(m[1]) - 1] = type;
    }
  }
  // Spread reads a parameter number the tuple skipped as undefined.
  return types.length > 0 && [...types].every((t) => t !== undefined) ? types : null;
}

/** The items of a tuple: separated by commas outside parentheses. */
function topLevelItems(tuple: string): string[] {
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

/** One statement for several inserts: one per distinct insert, in order of first appearance, each row's values in arrays. */
function merge(rows: Array<{ insert: PlainInsert; values: unknown[] }>): pg.QueryConfig {
  const groups = new Map<string, { insert: PlainInsert; rows: unknown[][] }>();
  for (const row of rows) {
    let group = groups.get(row.insert.text);
    if (!group) groups.set(row.insert.text, (group = { insert: row.insert, rows: [] }));
    group.rows.push(row.values);
  }
  const values: unknown[] = [];
  const inserts = [...groups.values()].map(({ insert, rows }) => `${insert.head} SELECT ${insert.select} FROM ${rowsSource(insert, rows, values)} ${insert.tail}`);
  const last = inserts.pop()!;
  const text = inserts.length === 0 ? last : `WITH ${inserts.map((s, i) => `w${i} AS (${s})`).join(', ')} ${last}`;
  return statement(text, values);
}

/** The rows as a relation `u(p1, p2, …)`, their values appended to `values` as parameters. */
function rowsSource(insert: PlainInsert, rows: ReadonlyArray<readonly unknown[]>, values: unknown[]): string {
  if (rows.every((row) => row.every(jsonKeeps))) {
    // JSON writes an undefined array item as null, and a row's missing last items read as null.
    values.push(JSON.stringify(rows));
    return `(SELECT ${insert.fromJson} FROM jsonb_array_elements($${values.length}::jsonb) AS r) AS u`;
  }
  const types = insert.paramTypes;
  const arrays = types.map((type, i) => {
    values.push(rows.map((row) => row[i] ?? null));
    return `$${values.length}::${type}[]`;
  });
  return `unnest(${arrays.join(', ')}) AS u(${types.map((_, i) => `p${i + 1}`).join(', ')})`;
}

/** Whether a value reaches the server through `jsonb` as it would as a parameter of its own. */
function jsonKeeps(value: unknown): boolean {
  switch (typeof value) {
    case 'string':
      return value.isWellFormed() && !value.includes('\0');
    case 'number':
      return Number.isFinite(value);
    case 'boolean':
    case 'undefined':
      return true;
    default:
      return value === null;
  }
}
