import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import { addCounts, emptyCounts, isEmpty, pruneOnce, type PruneCounts, type RetentionCutoffs } from '../store/retention.js';
import type { Store } from '../store/store.js';

export interface RetentionSettings {
  /** `storage.retention` in ms, or null. */
  retention: number | null;
  /** `storage.retention_requests` in ms, or null. */
  retentionRequests: number | null;
}

/** The cutoffs for "now": rows older than now minus each retention may go. */
export function cutoffsAt(settings: RetentionSettings, now: number): RetentionCutoffs {
  return {
    outboxBefore: settings.retention === null ? null : now - settings.retention,
    requestsBefore: settings.retentionRequests === null ? null : now - settings.retentionRequests,
  };
}

/**
 * Runs retention in a live server: batch after batch until nothing is left, giving the event loop back
 * between batches so API calls, ticks and dispatchers go on while a large backlog is pruned. One run at
 * a time; `stop` ends a run after its current batch.
 */
export class Pruner {
  private running: Promise<PruneCounts> | null = null;
  private stopped = false;

  constructor(
    private readonly store: Pick<Store, 'retention' | 'transaction'>,
    private readonly settings: RetentionSettings,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly batchSize = 500,
  ) {}

  get enabled(): boolean {
    return this.settings.retention !== null || this.settings.retentionRequests !== null;
  }

  /** What a run now would remove. */
  preview(): Promise<PruneCounts> {
    return this.store.retention.countPrunable(cutoffsAt(this.settings, this.clock.now()));
  }

  /** Prunes everything past retention; resolves with what went. A run already going is joined. */
  run(): Promise<PruneCounts> {
    this.running ??= this.loop().finally(() => (this.running = null));
    return this.running;
  }

  stop(): Promise<unknown> {
    this.stopped = true;
    return this.running ?? Promise.resolve();
  }

  private async loop(): Promise<PruneCounts> {
    const total = emptyCounts();
    const cutoffs = cutoffsAt(this.settings, this.clock.now());
    while (!this.stopped) {
      const batch = await pruneOnce(this.store, cutoffs, this.batchSize);
      if (isEmpty(batch)) break;
      addCounts(total, batch);
      await new Promise((resolve) => setImmediate(resolve));
    }
    if (!isEmpty(total)) this.log.info({ pruned: total }, 'retention: pruned rows past storage.retention');
    return total;
  }
}
