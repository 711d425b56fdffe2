import type { Reads } from '../store/store.js';

/** How long another instance's new entry may go unseen here: the list is read again this often. */
export const LIBRARY_TOPICS_REFRESH_MS = 10_000;

const keyOf = (topic: string, kind: string) => `${kind}\u0000${topic}`;

/**
 * The topics and kinds the library has active entries for, kept in memory, so that a submit on any
 * other topic (most of them, and all of them while the library is empty) skips the library lookup,
 * which on PostgreSQL is one more round trip per submit. Entries written by this process count at
 * once (`added`); those of other instances once the list is read again, at most
 * `LIBRARY_TOPICS_REFRESH_MS` later. Until a first read succeeds, every topic may have entries.
 */
export class LibraryTopics {
  private known: Set<string> | null = null;
  /**
   * Keys written here, with when: a read whose snapshot began before their transaction committed
   * misses them, so each is kept in for a whole refresh period after it was added.
   */
  private readonly added_ = new Map<string, number>();
  private readAt = Number.NEGATIVE_INFINITY;
  private reading: Promise<void> | null = null;

  constructor(private readonly reads: () => Reads) {}

  /** Whether the library may hold an active entry of this topic and kind (false: it holds none). */
  async mayHave(topic: string, kind: string, now: number): Promise<boolean> {
    if (this.known === null || now - this.readAt >= LIBRARY_TOPICS_REFRESH_MS) await this.read(now);
    return this.known === null || this.known.has(keyOf(topic, kind));
  }

  /** An entry of this topic and kind is being written here (call it inside the writing transaction). */
  added(topic: string, kind: string, now: number): void {
    this.known?.add(keyOf(topic, kind));
    this.added_.set(keyOf(topic, kind), now);
  }

  /** Reads the list again; a failed read keeps the list it had (or none: every topic may have entries). */
  private read(now: number): Promise<void> {
    this.reading ??= (async () => {
      this.readAt = now;
      try {
        const found = new Set((await this.reads().answers.activeTopics()).map((t) => keyOf(t.topic, t.kind)));
        for (const [key, at] of this.added_) {
          if (now - at > LIBRARY_TOPICS_REFRESH_MS) this.added_.delete(key);
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
