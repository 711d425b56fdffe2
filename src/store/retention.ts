import type { Store } from './store.js';

/**
 * Retention (`storage.retention`, `storage.retention_requests`): what may go, counted and deleted in
 * small batches. Each batch is one short transaction, so a large backlog never holds the write lock
 * long enough to stall the API; the caller yields between batches.
 *
 * - With `retention`: delivered deliveries, sent messages and events (of requests no longer open;
 *   an event only once no delivery needs its body), processed chat event ids and finished LLM jobs older than it.
 * - With `retention_requests` as well: finished requests (accepted, rejected, failed) last changed
 *   before it, with everything that belongs to them: asks, proposals, audit rows, events, deliveries,
 *   messages and chat references. A request with a delivery or message still pending is kept.
 */
export interface RetentionCutoffs {
  /** Rows of the outboxes older than this instant (ms) may go; null: keep them. */
  outboxBefore: number | null;
  /** Finished requests last changed before this instant (ms) may go; null: keep them. */
  requestsBefore: number | null;
}

/** What a prune removed, or (a dry run) would remove, by kind of row. */
export interface PruneCounts {
  deliveries: number;
  messages: number;
  events: number;
  chat_events: number;
  llm_jobs: number;
  requests: number;
  proposals: number;
  audit: number;
}

export const emptyCounts = (): PruneCounts => ({ deliveries: 0, messages: 0, events: 0, chat_events: 0, llm_jobs: 0, requests: 0, proposals: 0, audit: 0 });

/** True when a batch removed nothing. */
export function isEmpty(counts: PruneCounts): boolean {
  return Object.values(counts).every((n) => n === 0);
}

/** Adds one batch's counts into a running total. */
export function addCounts(total: PruneCounts, batch: PruneCounts): void {
  for (const key of Object.keys(total) as Array<keyof PruneCounts>) total[key] += batch[key];
}

/**
 * One batch of retention: the requests to remove are picked outside the transaction (on SQLite, off
 * the event loop's thread: at a million requests the pick is the batch's slow part), then the batch's
 * one short transaction checks them again and removes them with the old outbox rows. What went; all
 * zero means nothing is left to prune.
 */
export async function pruneOnce(store: Pick<Store, 'retention' | 'transaction'>, cutoffs: RetentionCutoffs, limit: number): Promise<PruneCounts> {
  const picked = cutoffs.requestsBefore === null ? [] : await store.retention.pickRequests(cutoffs.requestsBefore, limit);
  return store.transaction((tx) => tx.retention.pruneBatch(cutoffs, limit, picked));
}
