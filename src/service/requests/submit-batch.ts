import { normalizeTopic } from '../../core/normalize-topic.js';
import { firstCandidates } from '../../core/route-request.js';
import { StorageUnavailable } from '../../store/errors.js';
import type { Tx } from '../../store/store.js';
import { liveStates, type Engine, type Intake } from '../engine/index.js';
import { dailyQuotaOf } from '../consumers/index.js';
import { submitRequest, type SubmitInput, type SubmitOptions, type SubmitResult } from './submit-request.js';
import type { ConsumerRecord } from '../../domain/records.js';
import { type LibraryCandidates, prefetchReuse } from './reuse-answer.js';

/** At most this many submits share one transaction. */
const MAX_BATCH = 64;

/**
 * Submits in one transaction: each deduplicated and routed as if alone, in the order given, each
 * seeing the asks of those before it. The experts they will most likely be routed to are read first,
 * in one go, so a database across the network is asked once for all of them. Where several instances
 * write, its transaction routes optimistically (`TransactionOptions.optimisticRouting`): it locks only
 * the experts it asks, so batches of different instances routing to different experts do not wait for
 * each other.
 */
export async function submitAll(
  engine: Intake & Pick<Engine, 'quotaConsumers'>,
  tx: Tx,
  inputs: readonly SubmitInput[],
  library: readonly LibraryCandidates[],
): Promise<SubmitResult[]> {
  const now = engine.clock.now();
  const likely = new Set<string>();
  for (const input of inputs) {
    for (const c of firstCandidates(normalizeTopic(input.topic), input.target_experts ?? null, engine.experts)) likely.add(c.expertId);
  }
  if (likely.size > 0) await liveStates(engine, tx, [...likely], now);
  const results: SubmitResult[] = [];
  const consumers = new Map<string, ConsumerRecord | undefined>();
  const defaultQuota = engine.config.defaults.max_requests_per_consumer_per_day != null;
  for (const [i, input] of inputs.entries()) {
    // The consumer's row matters to a request with a dedup key (its window) and to a consumer that may
    // have a quota; reading it for every submit was one more round trip on PostgreSQL.
    const needed = input.dedup_key !== undefined || defaultQuota || (await engine.quotaConsumers.mayHave(input.consumer_id, now));
    if (needed && !consumers.has(input.consumer_id)) consumers.set(input.consumer_id, await tx.consumers.get(input.consumer_id));
    const consumer = consumers.get(input.consumer_id);
    const options: SubmitOptions = { dailyQuota: needed ? dailyQuotaOf(engine.config, consumer) : null, library: library[i]! };
    if (consumer) options.dedupWindowMs = consumer.dedup_window_ms;
    results.push(await submitRequest(engine, tx, input, options));
  }
  return results;
}

/**
 * The library entries each submit could be offered, looked up before their transaction
 * (`prefetchReuse`), not beside it: on a small pool, a transaction waiting for lookups that wait for
 * its connection would never end.
 */
export function libraryFor(engine: Pick<Engine, 'store' | 'clock' | 'config' | 'llm' | 'libraryTopics'>, inputs: readonly SubmitInput[]): Promise<LibraryCandidates[]> {
  const subjects = inputs.map((input) => ({
    topic: normalizeTopic(input.topic),
    kind: input.kind ?? 'answer',
    question: input.question,
    consumer_id: input.consumer_id,
    mode: input.routing_policy?.reuse ?? engine.config.library.reuse,
  }));
  return prefetchReuse(engine, subjects, engine.clock.now());
}

/**
 * Which workers the committed submits may have given work, so only those are woken (each wake-up
 * costs the database a look): a queued request may wait for its draft; events come only from a
 * submit that failed, found its answer already accepted, or was offered a library answer. (Messages
 * are counted as they are written: `leased-messages.ts`.) The scheduler's tick wakes every worker
 * anyway.
 */
export function workMadeBy(results: readonly SubmitResult[]): { drafts: boolean; events: boolean } {
  return {
    drafts: results.some((r) => r.status === 'queued'),
    events: results.some((r) => r.status === 'failed' || r.status === 'deduped_resolved' || r.reused === true),
  };
}

interface Waiting {
  input: SubmitInput;
  resolve: (result: SubmitResult) => void;
  reject: (error: unknown) => void;
}

/**
 * Gathers submits into one transaction (`submitAll`): one commit, and one wait for the database, for
 * all of them. One batch runs at a time; the submits that arrive while it runs form the next. Batches
 * run side by side would lock the same experts (most topics share a few) and wait for each other's
 * commits anyway, and on a busy server one batch at a time gathers more submits per commit. If a
 * batch's transaction fails, each of its submits runs again in one of its own, so one bad submit
 * answers with its own error and the others still succeed.
 */
export class SubmitBatcher {
  private waiting: Waiting[] = [];
  private scheduled = false;
  /** A batch's transaction is running: submits arriving meanwhile wait for it and form the next batch. */
  private running = false;

  constructor(private readonly run: (inputs: readonly SubmitInput[]) => Promise<SubmitResult[]>) {}

  submit(input: SubmitInput): Promise<SubmitResult> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ input, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => this.flush());
    });
  }

  private flush(): void {
    this.scheduled = false;
    if (this.running || this.waiting.length === 0) return;
    this.running = true;
    void this.runBatch(this.waiting.splice(0, MAX_BATCH)).finally(() => {
      this.running = false;
      this.flush();
    });
  }

  private async runBatch(batch: Waiting[]): Promise<void> {
    try {
      const results = await this.run(batch.map((w) => w.input));
      batch.forEach((w, i) => w.resolve(results[i]!));
    } catch (error) {
      // The database failed, not a submit: each would fail alike, and trying each costs it more.
      if (batch.length === 1 || error instanceof StorageUnavailable) {
        for (const w of batch) w.reject(error);
        return;
      }
      await Promise.all(batch.map((w) => this.run([w.input]).then(([result]) => w.resolve(result!), w.reject)));
    }
  }
}
