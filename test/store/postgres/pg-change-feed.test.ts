import { afterEach, describe, expect, it } from 'vitest';
import { openPgStore, type PgStore } from '../../../src/store/postgres/pg-store.js';
import { createTestDatabase, dropTestDatabase } from '../engines.js';

const opened: PgStore[] = [];
const name = `eq_feed_${process.pid}`;
afterEach(async () => {
  for (const store of opened.splice(0)) await store.close();
  await dropTestDatabase(name);
});

describe('PostgreSQL change feed', () => {
  it('tells a listener on another instance of a commit published here', async () => {
    const url = await createTestDatabase(name);
    const here = await openPgStore({ url });
    const there = await openPgStore({ url });
    opened.push(here, there);
    let heardThere = 0;
    const heard = new Promise<void>((resolve) => there.changes.subscribe(() => (heardThere++, resolve())));
    let heardHere = 0;
    here.changes.subscribe(() => heardHere++);

    const started = Date.now();
    here.changes.publish();
    here.changes.publish();
    await heard;
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(heardHere).toBe(2); // at once, each time, and not again through the database
    expect(heardThere).toBe(1); // two publishes in one turn of the event loop: one notification
  });
});
