import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach } from 'vitest';
import type { Store } from '../../src/store/store.js';
import type { Engine } from './engines.js';

export interface EngineUnderTest {
  /** The store opened on this test's fresh database. */
  readonly store: Store;
  /** Another store on the same database, as a second process sharing it; closed after the test. */
  another(): Promise<Store>;
}

/** Registers hooks giving each test a fresh temporary database and a store on it, closed and removed after. */
export function useEngine(engine: Engine): EngineUnderTest {
  let dir = '';
  let opened: Store[] = [];
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), `expertq-contract-${engine.name}-`));
    opened = [await engine.open(dir)];
  });
  afterEach(async () => {
    for (const store of opened.reverse()) await store.close();
    opened = [];
    await engine.drop?.(dir);
    rmSync(dir, { recursive: true, force: true });
  });
  return {
    get store() {
      return opened[0]!;
    },
    async another() {
      const store = await engine.open(dir);
      opened.push(store);
      return store;
    },
  };
}
