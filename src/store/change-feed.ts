import { EventEmitter } from 'node:events';

/**
 * How live views learn that something committed: long polls (`GET /requests/{id}/wait`, MCP
 * `wait_for_answer`) and the review queue's stream re-read when told, instead of polling. Every
 * operation publishes after its commit. In one process this is an in-memory signal; with several
 * processes on one database, an engine that can notify other processes (PostgreSQL's LISTEN/NOTIFY)
 * publishes their commits here too.
 */
export interface ChangeFeed {
  /** Says that a transaction committed. */
  publish(): void;
  /** Calls `listener` after every commit from now on; returns the function that stops it. */
  subscribe(listener: () => void): () => void;
}

/** The change feed of one process: commits made by this process only. */
export function inProcessChangeFeed(): ChangeFeed {
  const emitter = new EventEmitter();
  // One listener per open long poll or stream: no fixed limit is right.
  emitter.setMaxListeners(0);
  return {
    publish: () => void emitter.emit('change'),
    subscribe(listener) {
      emitter.on('change', listener);
      return () => void emitter.off('change', listener);
    },
  };
}
