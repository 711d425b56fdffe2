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
 * Microseconds a row of an index build on a database of `gigabytes`, from the history bench (2 cores,
 * 23 GB of memory): 0.93 at 1.5 GB, where the table's pages are mostly in memory, and 3.9 at 15 GB,
 * where most are read from disk; a row costs more as less of the file stays cached.
 */
function microsecondsPerRow(gigabytes: number): number {
  return 0.6 + 0.224 * gigabytes;
}

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

/** How many rows `migrations` will read on `db`, and about how long that takes. */
export function estimateMigrations(db: Database.Database, migrations: readonly string[]): { rows: number; ms: number } {
  const sizes = new Map<string, number>();
  const rowsOf = (table: string): number => {
    let rows = sizes.get(table);
    if (rows === undefined) {
      try {
        // The largest rowid: read from the end of the table's b-tree, where counting would read it all.
        rows = (db.prepare(`SELECT coalesce(max(rowid), 0) AS n FROM "${table}"`).get() as { n: number }).n;
      } catch {
        // A table the same migrations create (empty now), or one without rowids (small by design).
        rows = 0;
      }
      sizes.set(table, rows);
    }
    return rows;
  };
  const scans = migrations.flatMap(tablesScanned);
  const rows = scans.reduce((sum, scan) => sum + rowsOf(scan.table), 0);
  const gigabytes = ((db.pragma('page_count', { simple: true }) as number) * (db.pragma('page_size', { simple: true }) as number)) / 1e9;
  const perRow = microsecondsPerRow(gigabytes);
  const microseconds = scans.reduce((sum, scan) => sum + rowsOf(scan.table) * scan.weight * perRow, 0);
  return { rows, ms: Math.round(microseconds / 1000) };
}
