import type { Reads } from './store.js';

/** Every repository of `Reads`; the type below fails to compile when one is left out. */
const READ_KEYS = [
  'requests', 'asks', 'proposals', 'outbox', 'consumers', 'chat', 'llmJobs',
  'serviceState', 'retention', 'metrics', 'instances', 'sessions', 'answers', 'votes', 'insights',
] as const satisfies ReadonlyArray<keyof Reads>;
type Unlisted = Exclude<keyof Reads, (typeof READ_KEYS)[number]>;
const everyKeyListed: [Unlisted] extends [never] ? true : never = true;

abstract class RepositoriesOf {
  constructor(reads: Reads) {
    void everyKeyListed;
    for (const key of READ_KEYS) (this as Record<string, unknown>)[key] = reads[key];
  }
}

/**
 * The reads of a store outside transactions, one repository per aggregate, each reading only what
 * was committed. Every engine's store extends it with the repositories over its read connection(s).
 */
export const StoreReads = RepositoriesOf as unknown as abstract new (reads: Reads) => Reads;
