import type Database from 'better-sqlite3';

/**
 * What a migration statement costs grows with the rows of the table it reads whole: an index built
 * on it, a column added to it (SQLite checks the rows of a STRICT table), rows selected from it into
 * another table, or an UPDATE of it. Microseconds a row on 2 cores, from the history bench: a row
 * costs about twice as much at a million requests (15 GB, mostly read from disk) as at 100,000 (in
 * the page cache), and these sit between, so the estimate is within 2x of either. Everything else
 * (new tables, triggers, single rows) costs next to nothing.
 */
const SCANS: Array<{ statement: RegExp; microsecondsPerRow: number }> = [
  { statement: /^\s*CREATE\s+(?:UNIQUE\s+)?INDEX\s+\w+\s+ON\s+(\w+)/i, microsecondsPerRow: 1.75 },
  { statement: /^\s*ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\b/i, microsecondsPerRow: 1.1 },
  { statement: /^\s*INSERT\s+INTO\s+\w+\s*\([^)]*\)\s*SELECT\b[\s\S]*?\bFROM\s+(\w+)/i, microsecondsPerRow: 2.75 },
  { statement: /^\s*UPDATE\s+(\w+)\s+SET\b/i, microsecondsPerRow: 2.75 },
];

interface Scan {
  table: string;
  microsecondsPerRow: number;
}

/** The tables a migration reads whole, once per statement that does, and what each row costs. */
export function tablesScanned(migration: string): Scan[] {
  const statements = migration.replace(/--.*$/gm, '').split(';');
  return statements.flatMap((text) =>
    SCANS.flatMap(({ statement, microsecondsPerRow }) => {
      const table = statement.exec(text)?.[1];
      return table === undefined ? [] : [{ table, microsecondsPerRow }];
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
  const microseconds = scans.reduce((sum, scan) => sum + rowsOf(scan.table) * scan.microsecondsPerRow, 0);
  return { rows, ms: Math.round(microseconds / 1000) };
}
