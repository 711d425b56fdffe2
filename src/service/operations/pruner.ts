import { performance } from 'node:perf_hooks';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import { addCounts, emptyCounts, isEmpty, pruneOnce, type PruneCounts, type RetentionCutoffs } from '../../store/retention.js';
import type { Store } from '../../store/store.js';

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

const MIN_BATCH = 10;

/**
 * The next batch's size from the last one's: scaled so a batch takes about `sliceMs`, at most double
 * the last (a quick batch of a nearly pruned table says little), at least 10, at most `max`.
 */
export function nextBatchSize(current: number, elapsedMs: number, sliceMs: number, max: number): number {
  const fitting = elapsedMs > 0 ? Math.floor((current * sliceMs) / elapsedMs) : max;
  return Math.min(max, Math.max(MIN_BATCH, Math.min(2 * current, fitting)));
}

/**
 * Runs retention in a live server: batch after batch until nothing is left, giving the event loop back
 * between batches so API calls, ticks and dispatchers go on while a large backlog is pruned. Each batch
 * is sized to take about the store's `retention.batchMs` (a request of three years' history brings many rows with it),
 * up to `batchSize` requests. One run at a time; `stop` ends a run after its current batch. Every run,
 * with retention configured or not, also removes the sign-in sessions that have expired.
 */
export class Pruner {
  private running: Promise<PruneCounts> | null = null;
  private stopped = false;

  constructor(
    private readonly store: Pick<Store, 'retention' | 'transaction' | 'sessions'>,
    private readonly settings: RetentionSettings,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly batchSize = 500,
    /** Where a batch's duration is read: the process's own clock, as it measures work, not the time of day. */
    private readonly elapsed: () => number = () => performance.now(),
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
    const now = this.clock.now();
    // An expired session can sign nobody in; its row only waits to be removed (one indexed range),
    // written only when there is one: an idle database sees no write from this.
    const sessions = (await this.store.sessions.anyExpired(now)) ? await this.store.transaction((tx) => tx.sessions.removeExpired(now)) : 0;
    if (sessions > 0) this.log.info({ sessions }, 'removed expired sign-in sessions');
    if (!this.enabled) return emptyCounts();
    const cutoffs = cutoffsAt(this.settings, now);
    const total = await pruneInSlices(this.store, cutoffs, { maxBatch: this.batchSize, stopped: () => this.stopped, elapsed: this.elapsed });
    if (!isEmpty(total)) this.log.info({ pruned: total }, 'retention: pruned rows past storage.retention');
    return total;
  }
}

/**
 * Prunes everything past `cutoffs`, batch after batch, each sized to take about `retention.batchMs`
 * (`maxBatch` at most), the event loop given back between batches; until nothing is left or `stopped`.
 */
export async function pruneInSlices(
  store: Pick<Store, 'retention' | 'transaction'>,
  cutoffs: RetentionCutoffs,
  { maxBatch = 500, stopped = () => false, elapsed = () => performance.now() }: { maxBatch?: number; stopped?: () => boolean; elapsed?: () => number } = {},
): Promise<PruneCounts> {
  const total = emptyCounts();
  let size = Math.min(maxBatch, 50);
  while (!stopped()) {
    const started = elapsed();
    const batch = await pruneOnce(store, cutoffs, size);
    if (isEmpty(batch)) break;
    addCounts(total, batch);
    size = nextBatchSize(size, elapsed() - started, store.retention.batchMs, maxBatch);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return total;
}
