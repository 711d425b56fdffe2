import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { BackgroundCheckpoint } from '../../../src/store/sqlite/background-checkpoint.js';
import { openSqliteStore, type SqliteStore } from '../../../src/store/sqlite/sqlite-store.js';
import { request } from '../records.js';

// Copying the write-ahead log into the database file is left to the reading thread: on the writer it
// blocked the event loop for milliseconds after a commit (11 ms of each batch of a first prune).

describe('background checkpoints', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  /** A checkpoint whose end the test decides, and a clock the test moves. */
  function harness() {
    vi.useFakeTimers();
    let now = 1_000;
    const started: Array<() => void> = [];
    const checkpoints = new BackgroundCheckpoint(
      () => new Promise<void>((resolve) => started.push(resolve)),
      () => now,
    );
    const advance = async (ms: number) => {
      now += ms;
      await vi.advanceTimersByTimeAsync(ms);
    };
    return { checkpoints, started, advance, finish: async (i: number) => (started[i]!(), await vi.advanceTimersByTimeAsync(0)) };
  }

  it('runs one checkpoint for a burst of commits, and one more for the commits made while it ran', async () => {
    const { checkpoints, started, advance, finish } = harness();
    checkpoints.wrote();
    checkpoints.wrote();
    checkpoints.wrote();
    expect(started).toHaveLength(1);
    checkpoints.wrote(); // during the first: another is due once it ends
    await finish(0);
    // Not before 50 ms after the first started.
    expect(started).toHaveLength(1);
    await advance(49);
    expect(started).toHaveLength(1);
    await advance(1);
    expect(started).toHaveLength(2);
    await finish(1);
    await advance(1_000);
    expect(started).toHaveLength(2); // no commit since: nothing to copy
  });

  it('starts none after it is closed, and a failed checkpoint leaves the next commit its turn', async () => {
    const { started, advance } = harness();
    const failing = new BackgroundCheckpoint(
      () => (started.push(() => {}), Promise.reject(new Error('database is locked'))),
      () => 0,
    );
    failing.wrote();
    await advance(0);
    failing.wrote();
    await advance(100);
    expect(started).toHaveLength(2);
    failing.close();
    failing.wrote();
    await advance(100);
    expect(started).toHaveLength(2);
  });
});

describe('a SQLite store on a file', () => {
  let dir = '';
  let store: SqliteStore | null = null;
  afterEach(async () => {
    await store?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('copies committed pages into the database file from its reading thread, well before the log is long', async () => {
    dir = mkdtempSync(join(tmpdir(), 'expertq-checkpoint-'));
    const path = join(dir, 'db.sqlite');
    store = openSqliteStore(path);
    const before = statSync(path).size;
    // A few hundred pages: below the thousand after which the writer would copy them itself.
    await store.transaction(async (tx) => {
      for (let i = 0; i < 300; i++) await tx.requests.insert(request(`req_${String(i).padStart(4, '0')}`, { question: `Question ${i} ${'x'.repeat(400)}?` }));
    });
    expect(statSync(`${path}-wal`).size).toBeGreaterThan(100 * 4096);
    await vi.waitFor(() => expect(statSync(path).size).toBeGreaterThan(before + 100 * 4096), { timeout: 5_000, interval: 20 });
  });
});
