import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';

/**
 * What a test needs of the engine to look at a database a stopped server left behind: here, so that
 * tests outside `test/store/` read it through the store's repositories and never name the engine.
 */

/** Opens the store on the database at `path` (no server may run on it); close it after. */
export function openForChecks(path: string): Store {
  return openSqliteStore(path);
}

/** `integrityOf(path)`: "ok" when the database at `path` is intact, else the first problem the engine finds in it. */
export { integrityOf } from '../../src/store/sqlite/maintenance.js';
