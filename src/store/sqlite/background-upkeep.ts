import type Database from 'better-sqlite3';
import type { SqliteAnswerWordsFill } from './answer-words-fill.js';
import type { SqliteInsights } from './insights.js';
import type { SqliteRequestSearch } from './request-search.js';

/**
 * New requests reach the text index this often, up to `INDEX_CHUNK` per transaction: indexing them
 * together costs a fraction of indexing each with its own write, and a search reads the few written
 * since directly.
 */
const INDEX_EVERY_MS = 1000;
const INDEX_CHUNK = 2000;
/** Library entries kept from before their word list get their words this many at a time: about 10 ms. */
const FILL_SPAN = 100;
/**
 * The insight rollups' journal is folded this often at most (and before every insights read): the
 * longer between folds, the more of its counts share a row.
 */
const FOLD_EVERY_MS = 30_000;

/**
 * The SQLite store's work after commits, in transactions of its own about once a second: the insight
 * rollups' journal folded, the requests written since indexed for text search, then the words of
 * library entries kept from before the word list listed (see the constants above).
 */
export class BackgroundUpkeep {
  private readonly timer: NodeJS.Timeout;
  private running = false;
  private foldedAt = 0;

  constructor(
    private readonly db: Database.Database,
    private readonly inTransaction: (work: () => Promise<boolean>) => Promise<unknown>,
    private readonly search: SqliteRequestSearch,
    private readonly unlisted: SqliteAnswerWordsFill,
    private readonly insights: SqliteInsights,
  ) {
    this.timer = setInterval(() => this.round(), INDEX_EVERY_MS).unref();
  }

  stop(): void {
    clearInterval(this.timer);
  }

  /** Does all of the work now (the journal folded whenever it was last). */
  async settle(): Promise<void> {
    while ((await this.inTransaction(() => this.slice(true))) === true);
  }

  private round(): void {
    if (this.running || !this.db.open || (!this.search.pending() && !this.unlisted.pending() && !this.foldDue())) return;
    this.running = true;
    const next = async (): Promise<void> => {
      // A failure (a full disk) is the store's `lastWriteFailure` to report; the next round tries again.
      const more = await this.inTransaction(() => this.slice()).catch(() => false);
      if (more === true && this.db.open) return next();
    };
    void next().finally(() => (this.running = false));
  }

  /** Whether the journal has counts to fold, and the last fold was `FOLD_EVERY_MS` ago. */
  private foldDue(): boolean {
    return this.insights.unfolded && Date.now() - this.foldedAt >= FOLD_EVERY_MS;
  }

  /** One slice of the work; whether more is left. */
  private async slice(foldNow = false): Promise<boolean> {
    if (foldNow ? this.insights.unfolded : this.foldDue()) {
      this.foldedAt = Date.now();
      await this.insights.fold();
    }
    if (this.search.indexPending(INDEX_CHUNK) === INDEX_CHUNK) return true;
    return this.unlisted.fillPending(FILL_SPAN);
  }
}
