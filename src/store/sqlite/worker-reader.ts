import { Worker } from 'node:worker_threads';
import type Database from 'better-sqlite3';
import { BUSY_TIMEOUT_MS } from './open-database.js';
import type { Row } from './rows.js';
import { statementCache } from './rows.js';

/** A statement's parameters as better-sqlite3 takes them: positional, or one object of named ones. */
export type Params = unknown[] | Record<string, unknown>;

/**
 * Reads whose cost grows with history (a text search, the counts behind `/metrics`, picking a
 * retention batch): run where they do not hold up the event loop when the engine allows it.
 */
export interface SlowReads {
  all(sql: string, params?: Params): Promise<Row[]>;
  get(sql: string, params?: Params): Promise<Row | undefined>;
  /** Ends the thread, once the reads already asked for are answered. */
  close(): Promise<void>;
  /** Copies the WAL into the database file off this thread (`background-checkpoint.ts`); absent where reads share the writer's thread. */
  checkpoint?(): Promise<void>;
}

/**
 * Reads on a connection of this thread: for an in-memory database, which exists on one connection
 * only and so cannot be read from another thread.
 */
export function mainThreadReads(db: Database.Database): SlowReads {
  const prepare = statementCache(db);
  const args = (params: Params | undefined) => (params === undefined ? [] : Array.isArray(params) ? params : [params]);
  return {
    all: async (sql, params) => prepare(sql).all(...args(params)) as Row[],
    get: async (sql, params) => prepare(sql).get(...args(params)) as Row | undefined,
    close: async () => undefined,
  };
}

interface Pending {
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Answer {
  id: number;
  result?: unknown;
  error?: { message: string; code?: string };
}

/**
 * A read-only connection to the database file in a worker thread (read-worker.mjs). In WAL mode it
 * sees the last commit, as the main thread's reader does; while a search scans a million questions
 * there (about 300 ms), the main thread goes on serving. The thread keeps the process alive only
 * while a read is in flight, so a store left open never holds a finished CLI command.
 */
export class WorkerReader implements SlowReads {
  private worker: Worker | null = null;
  private readonly pending = new Map<number, Pending>();
  private nextId = 0;
  private closed = false;

  constructor(private readonly path: string) {
    this.start();
  }

  all(sql: string, params?: Params): Promise<Row[]> {
    return this.ask('all', sql, params) as Promise<Row[]>;
  }

  get(sql: string, params?: Params): Promise<Row | undefined> {
    return this.ask('get', sql, params) as Promise<Row | undefined>;
  }

  async checkpoint(): Promise<void> {
    await this.ask('checkpoint', '', undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const worker = this.worker;
    if (!worker) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.ref();
    worker.postMessage({ type: 'close' });
    await exited;
  }

  private ask(method: 'all' | 'get' | 'checkpoint', sql: string, params: Params | undefined): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the store is closed'));
    const worker = this.worker ?? this.start();
    const id = ++this.nextId;
    return new Promise((resolve, reject) => {
      if (this.pending.size === 0) worker.ref();
      this.pending.set(id, { resolve, reject });
      worker.postMessage({ id, method, sql, params });
    });
  }

  private start(): Worker {
    const worker = new Worker(new URL('./read-worker.mjs', import.meta.url), {
      workerData: { path: this.path, busyTimeoutMs: BUSY_TIMEOUT_MS },
      // The thread needs none of the process's Node options, and some stop it from starting
      // (`--input-type`, given to a script on standard input).
      execArgv: [],
    });
    worker.unref();
    worker.on('message', (answer: Answer) => this.answer(worker, answer));
    // A thread that died (out of memory, a crashed driver) fails what it had been asked; the next read starts another.
    const failAll = (error: Error) => {
      if (this.worker === worker) this.worker = null;
      for (const { reject } of this.pending.values()) reject(error);
      this.pending.clear();
    };
    worker.on('error', failAll);
    worker.on('exit', (code) => failAll(new Error(`the database read thread stopped (exit code ${code})`)));
    this.worker = worker;
    return worker;
  }

  private answer(worker: Worker, { id, result, error }: Answer): void {
    const waiting = this.pending.get(id);
    if (!waiting) return;
    this.pending.delete(id);
    // Not once closing: `close` holds the thread until it has ended, or a process with nothing else
    // to do would exit in the middle of the close.
    if (this.pending.size === 0 && !this.closed) worker.unref();
    if (error) waiting.reject(Object.assign(new Error(error.message), { code: error.code }));
    else waiting.resolve(result);
  }
}
