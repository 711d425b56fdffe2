import { EventEmitter } from 'node:events';
import { randomUUID } from 'node:crypto';
import pg from 'pg';
import type { ChangeFeed } from '../change-feed.js';

const CHANNEL = 'expertq_changes';
const RECONNECT_MS = 1_000;
/** Commits within this long share one NOTIFY: other instances hear of them this much later at most. */
const NOTIFY_EVERY_MS = 10;

/**
 * The change feed of every instance on one PostgreSQL database: a commit here is published to this
 * process at once and, through NOTIFY, to the others, which LISTEN on a connection of their own (at
 * most one NOTIFY per 10 ms, however many commits it had: under load a statement per commit would
 * cost the database as much as the commits). If that connection drops, it is
 * opened again a second later, and listeners are told to re-read in case they missed something.
 */
export class PgChangeFeed implements ChangeFeed {
  private readonly emitter = new EventEmitter();
  private readonly id = randomUUID();
  private listener: pg.Client | null = null;
  private notifying = false;
  private closed = false;
  private retry: NodeJS.Timeout | null = null;

  constructor(
    private readonly pool: pg.Pool,
    private readonly url: string,
  ) {
    // One listener per open long poll or stream: no fixed limit is right.
    this.emitter.setMaxListeners(0);
  }

  /** Starts listening; resolves once notifications from other instances arrive. */
  async start(): Promise<void> {
    const client = new pg.Client({ connectionString: this.url });
    client.on('notification', (message) => {
      if (message.payload !== this.id) this.emitter.emit('change');
    });
    client.on('error', () => this.lost(client));
    client.on('end', () => this.lost(client));
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANNEL}`);
    } catch (error) {
      client.removeAllListeners('end');
      await client.end().catch(() => {});
      throw error;
    }
    this.listener = client;
  }

  publish(): void {
    this.emitter.emit('change');
    if (this.notifying || this.closed) return;
    this.notifying = true;
    setTimeout(() => {
      this.notifying = false;
      // Lost notifications only delay other instances' views until their next re-read: never an error.
      this.pool.query('SELECT pg_notify($1, $2)', [CHANNEL, this.id]).catch(() => {});
    }, NOTIFY_EVERY_MS);
  }

  subscribe(listener: () => void): () => void {
    this.emitter.on('change', listener);
    return () => void this.emitter.off('change', listener);
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry) clearTimeout(this.retry);
    const client = this.listener;
    this.listener = null;
    await client?.end().catch(() => {});
  }

  private lost(client: pg.Client): void {
    if (this.closed || this.listener !== client) return;
    this.listener = null;
    client.removeAllListeners('end');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.closed) return;
      this.start().then(
        () => this.emitter.emit('change'),
        () => this.scheduleReconnect(),
      );
    }, RECONNECT_MS);
    this.retry.unref();
  }
}
