import { join } from 'node:path';
import { openSqliteStore } from '../../src/store/sqlite/sqlite-store.js';
import type { Store } from '../../src/store/store.js';

/** A storage engine the contract suite runs against: `open` gives a store on the database kept in `dir`. */
export interface Engine {
  name: string;
  /** Opens a store in `dir`; opening it again on the same `dir` is a second process on the same database. */
  open(dir: string): Promise<Store>;
}

/** Every engine expertq ships. A new engine passes the contract suite by adding one entry here. */
export const ENGINES: Engine[] = [
  { name: 'sqlite', open: async (dir) => openSqliteStore(join(dir, 'db.sqlite')) },
];
