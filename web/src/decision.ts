import type { QueueItem } from './wire.js';

/** What a reviewer decided about one proposal, as the card hands it to whoever sends it. */
export type Decision =
  | { kind: 'accept'; note?: string; answer?: string; structured?: unknown }
  | { kind: 'reject'; reason: string }
  | { kind: 'return'; instructions?: string };

/** Sends a decision; resolves false when it did not go ahead (no name given, or the call failed). */
export type Decide = (item: QueueItem, decision: Decision) => Promise<boolean>;

/** The decision forms a card can have open instead of its accept form. */
export type OpenForm = 'reject' | 'return';
