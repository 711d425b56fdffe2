import { performance } from 'node:perf_hooks';
import type Database from 'better-sqlite3';
import type { SlowReads } from './worker-reader.js';

/**
 * Pages the writer lets pile up in the WAL before it copies them into the database file itself: only
 * when checkpoints in the background fall far behind (or the reading thread stopped), so the WAL
 * cannot grow without bound. SQLite's own default is 1,000.
 */
export const WRITER_CHECKPOINT_PAGES = 20_000;

/**
 * Checkpoints for the writer `db` on the reading thread of `slow`, when it has one (an in-memory
 * database has none: null, and SQLite checkpoints as it always does).
 */
export function backgroundCheckpoints(db: Database.Database, slow: SlowReads): BackgroundCheckpoint | null {
  if (!slow.checkpoint) return null;
  db.pragma(`wal_autocheckpoint = ${WRITER_CHECKPOINT_PAGES}`);
  return new BackgroundCheckpoint(() => slow.checkpoint!());
}

/** The least time between the starts of two background checkpoints. */
const MIN_INTERVAL_MS = 50;

/**
 * Moves WAL checkpoints off the event loop. By default SQLite checkpoints on the committing connection
 * once the WAL passes 1,000 pages: the copy into the database file and its fsync then block the event
 * loop (a fifth of a first prune's time, by perf, and API calls waiting 26-30 ms at p99 meanwhile). Here
 * the reading thread's connection checkpoints instead (PASSIVE: the writer goes on committing
 * meanwhile), after commits, one at a time and at most every MIN_INTERVAL_MS, so pages changed by
 * several commits in a row are copied once.
 */
export class BackgroundCheckpoint {
  private running = false;
  /** A commit came after the running checkpoint started: another is due when it ends. */
  private due = false;
  private lastStart = Number.NEGATIVE_INFINITY;
  private timer: NodeJS.Timeout | null = null;
  private closed = false;

  constructor(
    private readonly checkpoint: () => Promise<unknown>,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** After a commit: the pages it wrote are now in the WAL. */
  wrote(): void {
    this.due = true;
    if (this.running || this.timer || this.closed) return;
    const wait = this.lastStart + MIN_INTERVAL_MS - this.now();
    if (wait <= 0) {
      this.start();
      return;
    }
    this.timer = setTimeout(() => {
      this.timer = null;
      this.start();
    }, wait);
    this.timer.unref();
  }

  close(): void {
    this.closed = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private start(): void {
    if (this.closed) return;
    this.running = true;
    this.due = false;
    this.lastStart = this.now();
    // A checkpoint that fails (the database busy, the thread gone) leaves the pages in the WAL for the
    // next one, or for the writer past WRITER_CHECKPOINT_PAGES.
    void this.checkpoint()
      .catch(() => undefined)
      .finally(() => {
        this.running = false;
        if (this.due) this.wrote();
      });
  }
}
