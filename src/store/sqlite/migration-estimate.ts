import type Database from 'better-sqlite3';

/**
 * What a migration statement costs grows with the rows of the table it reads whole: an index built
 * on it, a column added to it (SQLite checks the rows of a STRICT table), rows selected from it into
 * another table, or an UPDATE of it. Everything else (new tables, triggers, single rows) costs next to
 * nothing. `weight` is each kind's cost a row relative to an index build.
 */
const SCANS: Array<{ statement: RegExp; weight: number }> = [
  { statement: /^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+\w+\s+ON\s+(\w+)/i, weight: 1 },
  { statement: /^\s*ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\b/i, weight: 0.63 },
  { statement: /^\s*INSERT\s+INTO\s+\w+\s*\([^)]*\)\s*SELECT\b[\s\S]*?\bFROM\s+(\w+)/i, weight: 1.57 },
  { statement: /^\s*UPDATE\s+(\w+)\s+SET\b/i, weight: 1.57 },
];

/**
 * What an upgrade costs, from the history bench at 1,000,000 submissions (2 cores, 23 GB of memory;
 * 3.3 s with the file in memory, 21 s with none of it there): each table it scans is read once (then
 * its pages are in memory), at about 1.2 times what a sample of its rows took to read here and now (a
 * fraction of a microsecond a row from memory, several from disk); and each statement that scans a
 * table spends about 0.62 microseconds a row, times its kind's weight, on its own work.
 */
const READ_FACTOR = 1.2;
const WORK_US_PER_ROW = 0.62;

/** The sample: this many runs of consecutive rows, spread over the table. */
const SAMPLE_RUNS = 4;
const SAMPLE_RUN_ROWS = 1_000;

interface Scan {
  table: string;
  weight: number;
}

/** The tables a migration reads whole, once per statement that does, and what each row costs. */
export function tablesScanned(migration: string): Scan[] {
  const statements = migration.replace(/--.*$/gm, '').split(';');
  return statements.flatMap((text) =>
    SCANS.flatMap(({ statement, weight }) => {
      const table = statement.exec(text)?.[1];
      return table === undefined ? [] : [{ table, weight }];
    }),
  );
}

interface TableSize {
  rows: number;
  /** Microseconds the sample took to read a row. */
  readUs: number;
}

/**
 * About how many rows `table` holds, and what reading one costs now. Rows: the span of its rowids, read
 * from both ends of its b-tree, since counting would read it all; retention prunes the oldest (lowest)
 * rowids, so the span shrinks with it, where the largest rowid alone would count every row ever written.
 */
function sizeOf(db: Database.Database, table: string): TableSize {
  let span: { lo: number | null; hi: number | null };
  try {
    span = db.prepare(`SELECT min(rowid) AS lo, max(rowid) AS hi FROM "${table}"`).get() as typeof span;
  } catch {
    // A table the same migrations create (empty now), or one without rowids (small by design).
    return { rows: 0, readUs: 0 };
  }
  if (span.lo === null || span.hi === null) return { rows: 0, readUs: 0 };
  const rows = span.hi - span.lo + 1;
  const run = Math.min(SAMPLE_RUN_ROWS, Math.ceil(rows / SAMPLE_RUNS));
  const count = db.prepare(`SELECT count(*) AS n FROM "${table}" WHERE rowid BETWEEN ? AND ?`);
  let read = 0;
  const started = performance.now();
  for (let i = 0; i < SAMPLE_RUNS; i++) {
    const first = span.lo + Math.floor(((i + 0.5) * rows) / SAMPLE_RUNS);
    read += (count.get(first, first + run - 1) as { n: number }).n;
  }
  return { rows, readUs: read === 0 ? 0 : ((performance.now() - started) * 1000) / read };
}

/** How many rows `migrations` will read on `db`, and about how long that takes. */
export function estimateMigrations(db: Database.Database, migrations: readonly string[]): { rows: number; ms: number } {
  const sizes = new Map<string, TableSize>();
  const size = (table: string): TableSize => {
    let known = sizes.get(table);
    if (known === undefined) sizes.set(table, (known = sizeOf(db, table)));
    return known;
  };
  const scans = migrations.flatMap(tablesScanned);
  const rows = scans.reduce((sum, scan) => sum + size(scan.table).rows, 0);
  const reading = [...new Set(scans.map((scan) => scan.table))].reduce((sum, table) => sum + size(table).rows * size(table).readUs * READ_FACTOR, 0);
  const work = scans.reduce((sum, { table, weight }) => sum + size(table).rows * weight * WORK_US_PER_ROW, 0);
  return { rows, ms: Math.round((reading + work) / 1000) };
}
