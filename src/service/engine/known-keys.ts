import type { Reads } from '../../store/store.js';

/** How long another instance's change may go unseen here: the keys are read again this often. */
export const KNOWN_KEYS_REFRESH_MS = 10_000;

/**
 * A set of keys read from the database and kept in memory, so that a submit can skip a lookup when
 * its key is not in it (on PostgreSQL, a round trip saved per submit). Keys this process adds count at
 * once (`added`); those other instances add, once the set is read again, at most
 * `KNOWN_KEYS_REFRESH_MS` later. Until a first read succeeds, every key may be in it.
 */
export class KnownKeys {
  private known: Set<string> | null = null;
  /**
   * Keys added here, with when: a read whose snapshot began before their transaction committed
   * misses them, so each is kept in for a whole refresh period after it was added.
   */
  private readonly recent = new Map<string, number>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;

  constructor(private readonly read: () => Promise<Iterable<string>>) {}

  /** Whether `key` may be in the set (false: it is not). */
  async mayHave(key: string, now: number): Promise<boolean> {
    if (this.known === null || now - this.readAt >= KNOWN_KEYS_REFRESH_MS) await this.refresh(now);
    return this.known === null || this.known.has(key);
  }

  /** `key` is being written here (call it inside the writing transaction). */
  added(key: string, now: number): void {
    this.known?.add(key);
    this.recent.set(key, now);
  }

  /** Reads the keys again; a failed read keeps the set it had (or none: every key may be in it). */
  private refresh(now: number): Promise<void> {
    this.reading ??= (async () => {
      this.readAt = now;
      try {
        const found = new Set(await this.read());
        for (const [key, at] of this.recent) {
          if (now - at > KNOWN_KEYS_REFRESH_MS) this.recent.delete(key);
          else found.add(key);
        }
        this.known = found;
      } catch {
        // The next submit past the refresh period tries again.
      } finally {
        this.reading = null;
      }
    })();
    return this.reading;
  }
}

/** A library key: a topic and a kind with at least one active entry. */
export const libraryKey = (topic: string, kind: string) => `${kind}\u0000${topic}`;

/** The topics and kinds the library has active entries for: a submit on any other skips the library lookup. */
export function libraryTopics(reads: () => Reads): KnownKeys {
  return new KnownKeys(async () => (await reads().answers.activeTopics()).map((t) => libraryKey(t.topic, t.kind)));
}

/** The consumers with a daily quota of their own: a submit of any other, without a default quota, counts nothing. */
export function quotaConsumers(reads: () => Reads): KnownKeys {
  return new KnownKeys(async () => (await reads().consumers.list()).filter((c) => c.max_requests_per_day != null).map((c) => c.id));
}
