import type Database from 'better-sqlite3';
import { inProcessChangeFeed, type ChangeFeed } from '../change-feed.js';
import type { Reads, Repositories, Store, Tx } from '../store.js';
import { StoreReads } from '../store-reads.js';
import { lockDatabase } from './lock-database.js';
import { openDatabase, openReader, type SchemaUpgrade } from './open-database.js';
import { ExpertStateMemo } from '../expert-state-memo.js';
import { createRepositories } from './repositories.js';
import { transactionOf } from './sqlite-tx.js';
import type { SqliteInsights } from './insights.js';
import { PeriodZone } from '../shared/period-zone.js';
import { SqliteRequestSearch } from './request-search.js';
import { BackgroundUpkeep } from './background-upkeep.js';
import { SqliteAnswerWordsFill } from './answer-words-fill.js';
import { mainThreadReads, WorkerReader, type SlowReads } from './worker-reader.js';
import { backgroundCheckpoints, type BackgroundCheckpoint } from './background-checkpoint.js';
import { isStorageFault, toStoreError } from './storage-errors.js';
import { checkFreeSpace, MIN_FREE_BYTES } from './free-space.js';

const FAILURE_MEMORY_MS = 60_000;
/** At most this many transactions share one COMMIT, so a burst reaches the disk in bounded steps. */
const MAX_BATCH = 256;

interface Queued {
  work: (tx: Tx) => Promise<unknown>;
  resolve: (value: unknown) => void;
  reject: (error: unknown) => void;
  /** `/readyz`'s empty transaction: its success proves the lock can be had, not that a write worked. */
  probe?: boolean;
}

type Outcome = { ok: true; value: unknown } | { ok: false; error: unknown };

/**
 * Opens the SQLite store on a file (created and migrated as needed): one writer and one reader
 * connection, and a second reader in a worker thread for the reads that grow with history. `exclusive` (a serving process) first takes the database's lock, held until `close`: a
 * second server on the same file is refused, naming the holder.
 */
export function openSqliteStore(path: string, options: { exclusive?: boolean; onUpgrade?: (step: SchemaUpgrade) => void } = {}): SqliteStore {
  const lock = options.exclusive ? lockDatabase(path) : null;
  try {
    const writer = openDatabase(path, options.onUpgrade);
    // An in-memory database exists on one connection only; its reads then share the writer's, on this thread.
    if (path === ':memory:') return new SqliteStore(writer, writer, lock);
    return new SqliteStore(writer, openReader(path), lock, new WorkerReader(path));
  } catch (error) {
    lock?.release();
    throw error;
  }
}

/**
 * The SQLite engine. One connection writes, and only through `transaction`; a second one serves the
 * reads made outside transactions, seeing only what was committed (WAL). better-sqlite3 runs each
 * statement synchronously, so the repositories' promises are already settled when returned.
 *
 * Group commit: transactions are run one after another, each inside its own savepoint of one SQLite
 * transaction that gathers every transaction queued in the same turn of the event loop (a failing one
 * rolls back alone and rejects alone). Each promise resolves only after the shared COMMIT is durable,
 * so callers answer as late as they would with a transaction of their own, but a burst costs one
 * fsync instead of one per operation.
 */
export class SqliteStore extends StoreReads implements Store {
  readonly changes: ChangeFeed = inProcessChangeFeed();
  private readonly tx: Tx;
  /** Experts' states read by the transaction running now (`ExpertStateMemo`); forgotten as each starts. */
  private readonly memo: ExpertStateMemo;
  private readonly insightWrites: SqliteInsights;
  private readonly queue: Queued[] = [];
  private draining: Promise<void> | null = null;
  private readonly upkeep: BackgroundUpkeep;
  /** Checkpoints on the reading thread, when there is one: the writer's would block the event loop. */
  private readonly checkpoints: BackgroundCheckpoint | null;

  /**
   * The last write that failed for want of storage (disk full, read-only, I/O error), until a write
   * succeeds again. `/readyz` reports it: a probe of its own could pass on pages the WAL already
   * holds while real writes fail.
   */
  lastWriteFailure: { at: number; message: string } | null = null;

  /**
   * `db` is the writing connection (the engine's own tests read SQLite's counters through it). `slow`
   * runs the reads outside transactions that grow with history (by default on `reader`, this thread);
   * reads inside a transaction always use `db`.
   */
  constructor(
    readonly db: Database.Database,
    private readonly reader: Database.Database,
    private readonly lock: { release(): void } | null = null,
    private readonly slow: SlowReads = mainThreadReads(reader),
  ) {
    const memo = new ExpertStateMemo();
    const zone = new PeriodZone();
    const writes: Repositories = createRepositories(db, { memo, zone });
    super(createRepositories(reader, { slow, zone }));
    this.memo = memo;
    const insights = (this.insightWrites = writes.insights as SqliteInsights);
    this.tx = transactionOf(db, writes, memo, insights);
    this.checkpoints = backgroundCheckpoints(db, slow);
    this.upkeep = new BackgroundUpkeep(db, (work) => this.enqueue({ work }), new SqliteRequestSearch(db), new SqliteAnswerWordsFill(db), insights);
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    return this.enqueue({ work }) as Promise<T>;
  }

  async transactionThenRead<T, R>(work: (tx: Tx) => Promise<T>, read: (reads: Reads, value: T) => Promise<R>): Promise<{ value: T; read: R | undefined }> {
    const value = await this.transaction(work);
    return { value, read: await read(this, value).catch(() => undefined) };
  }

  async checkWritable(minFreeBytes = MIN_FREE_BYTES): Promise<void> {
    // An empty transaction takes the write lock (BEGIN IMMEDIATE) and writes nothing.
    await this.enqueue({ work: async () => undefined, probe: true });
    // A failure counts for a minute: a load balancer that stops sending traffic must not keep the
    // server unready for want of a write that would clear it. A full disk stays caught by the check
    // of free space below.
    if (this.lastWriteFailure && Date.now() - this.lastWriteFailure.at < FAILURE_MEMORY_MS) {
      throw new Error(`a write failed ${Math.round((Date.now() - this.lastWriteFailure.at) / 1000)} s ago (${this.lastWriteFailure.message}) and none has succeeded since`);
    }
    checkFreeSpace(this.db.name, minFreeBytes);
  }

  /** One process writes a SQLite database: there is no older instance to write for. */
  noteInstances(): void {}

  async settle(): Promise<void> {
    await this.upkeep.settle();
  }

  /** Folds the insight rollups' journal into their rows (it is otherwise folded about every half minute). */
  async foldInsights(): Promise<void> {
    // One process writes: with nothing appended since the last fold, there is nothing to fold.
    if (this.insightWrites.unfolded) await this.transaction(() => this.insightWrites.fold());
  }

  async close(): Promise<void> {
    this.upkeep.stop();
    // What the last transactions counted, folded while the database is open (else at the next start).
    if (this.db.open) await this.foldInsights().catch(() => {});
    await this.draining;
    this.checkpoints?.close();
    await this.slow.close();
    if (this.reader !== this.db && this.reader.open) this.reader.close();
    if (this.db.open) this.db.close();
    this.lock?.release();
  }

  private enqueue(item: Omit<Queued, 'resolve' | 'reject'>): Promise<unknown> {
    return new Promise((resolve, reject) => {
      this.queue.push({ ...item, resolve, reject });
      // The first transaction of a turn waits for the turn to end, gathering the others into its commit.
      this.draining ??= new Promise<void>((done) => setImmediate(() => void this.drain().finally(done)));
    });
  }

  private async drain(): Promise<void> {
    try {
      while (this.queue.length > 0) await this.runBatch(this.queue.splice(0, MAX_BATCH));
    } finally {
      this.draining = null;
    }
  }

  private async runBatch(batch: Queued[]): Promise<void> {
    const db = this.db;
    try {
      db.exec('BEGIN IMMEDIATE');
      // References are checked at commit, as on every engine: a transaction may write a row before the
      // row it refers to (a submit writes its request last, in its final state). Compiled anew for each
      // batch: SQLite sets this flag when it compiles the pragma, not when it runs it, and any statement
      // outside a transaction clears it, so a statement prepared once left some batches without it.
      db.pragma('defer_foreign_keys = ON');
    } catch (caught) {
      const error = this.failed(caught);
      for (const item of batch) item.reject(error);
      return;
    }
    // A transaction alone in its batch needs no savepoint: if it fails, the whole batch is rolled back.
    // (A savepoint makes SQLite copy every page it changes to a sub-journal: about a fifth of the work.)
    if (batch.length === 1) return this.runAlone(batch[0]!);
    const outcomes: Outcome[] = [];
    const insights = this.insightWrites;
    insights.buffer.rollBack(0);
    for (const [i, item] of batch.entries()) {
      db.exec('SAVEPOINT tx');
      this.memo.forget();
      const counted = insights.buffer.mark();
      try {
        const value = await item.work(this.tx);
        db.exec('RELEASE tx');
        outcomes.push({ ok: true, value });
      } catch (caught) {
        const error = this.failed(caught);
        if (!db.inTransaction) {
          // On some errors (a full disk, I/O) SQLite rolls the whole transaction back: nothing of this
          // batch was written. What ran fails with the error; what has not run yet goes back in line.
          insights.buffer.rollBack(0);
          for (const ran of batch.slice(0, i + 1)) ran.reject(error);
          this.queue.unshift(...batch.slice(i + 1));
          return;
        }
        db.exec('ROLLBACK TO tx');
        db.exec('RELEASE tx');
        insights.buffer.rollBack(counted);
        outcomes.push({ ok: false, error });
      }
    }
    try {
      // The rollups the batch counted, merged: one write for the batch.
      await insights.flush();
      db.exec('COMMIT');
    } catch (caught) {
      const error = this.failed(caught);
      insights.buffer.rollBack(0);
      if (db.inTransaction) db.exec('ROLLBACK');
      for (const item of batch) item.reject(error);
      return;
    }
    if (outcomes.some((o, i) => o.ok && !batch[i]!.probe)) this.wrote();
    batch.forEach((item, i) => {
      const outcome = outcomes[i]!;
      if (outcome.ok) item.resolve(outcome.value);
      else item.reject(outcome.error);
    });
  }

  /** One transaction in a batch of its own, inside `BEGIN IMMEDIATE` already. */
  private async runAlone(item: Queued): Promise<void> {
    const db = this.db;
    let value: unknown;
    this.memo.forget();
    this.insightWrites.buffer.rollBack(0);
    try {
      value = await item.work(this.tx);
      await this.insightWrites.flush();
      db.exec('COMMIT');
    } catch (caught) {
      const error = this.failed(caught);
      this.insightWrites.buffer.rollBack(0);
      if (db.inTransaction) db.exec('ROLLBACK');
      item.reject(error);
      return;
    }
    if (!item.probe) this.wrote();
    item.resolve(value);
  }

  keepInsightsIn(zone: string, onRebuild?: (hourRows: number, estimatedMs: number) => void): Promise<boolean> {
    return this.transaction(() => this.insightWrites.keepIn(zone, onRebuild));
  }

  /** After a commit that wrote (a readiness probe writes nothing): storage works, and the WAL holds new pages. */
  private wrote(): void {
    this.lastWriteFailure = null;
    this.checkpoints?.wrote();
  }

  /** The driver-neutral error for what was thrown, remembered when the storage failed. */
  private failed(caught: unknown): unknown {
    const error = toStoreError(caught);
    if (isStorageFault(error)) this.lastWriteFailure = { at: Date.now(), message: (error as Error).message };
    return error;
  }
}
