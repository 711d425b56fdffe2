import { DeliveryDispatcher } from '../../delivery/delivery-dispatcher.js';
import { MessageDispatcher } from '../../delivery/message-dispatcher.js';
import type { LlmClient } from '../../llm/create-llm-client.js';
import type { Transport } from '../../transport/transport.js';
import { askUndeliverable } from '../routing/index.js';
import { countOne, type Engine } from '../engine/index.js';
import { LlmWorker } from '../llm/index.js';
import { reviewCardOf } from '../review/index.js';

export interface Workers {
  /** Sends the message outbox through the transport. */
  messages: MessageDispatcher;
  /** Delivers the event outbox to consumers. */
  deliveries: DeliveryDispatcher;
  /** Runs drafting and structuring jobs; null without an LLM. */
  llmWorker: LlmWorker | null;
}

export interface WorkerOptions {
  transport: Transport;
  /** Tuning for the webhook dispatcher (tests shorten the timeout). */
  delivery?: { timeoutMs?: number; maxInFlight?: number; perConsumer?: number };
  /** The LLM client when `llm.model` is configured; without it, nothing LLM-related runs. */
  llm?: LlmClient | null;
}

/**
 * The service's background workers, which carry out what operations committed: chat messages,
 * webhook deliveries and LLM jobs. Each claims its work with a lease in this process's name, so
 * processes sharing a database never do one piece of work at once.
 */
export function startWorkers(engine: Engine & { allowPrivateWebhooks: boolean; instanceId: string; kick(): void }, options: WorkerOptions): Workers {
  const deliveries = new DeliveryDispatcher(engine.store, engine.clock, engine.log, {
    allowPrivate: engine.allowPrivateWebhooks,
    instanceId: engine.instanceId,
    ...options.delivery,
  });
  const messages = new MessageDispatcher(
    engine.store,
    options.transport,
    engine.clock,
    engine.log,
    {
      onUndeliverable: (tx, message, code, now) => askUndeliverable(engine, tx, message.ask_id!, code, now),
      afterOutcomes: () => deliveries.kick(),
      reviewCard: (proposalId, now) => reviewCardOf(engine.store, proposalId, now),
      onFailure: (code) => countOne(engine.counters.transportFailures, code),
    },
    { instanceId: engine.instanceId },
  );
  const llmWorker = options.llm ? new LlmWorker(engine, options.llm, () => engine.kick(), { instanceId: engine.instanceId }) : null;
  return { messages, deliveries, llmWorker };
}
