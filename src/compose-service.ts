import { DeliveryDispatcher } from './delivery/delivery-dispatcher.js';
import { MessageDispatcher } from './delivery/message-dispatcher.js';
import { Scheduler } from './scheduler/scheduler.js';
import { countOne } from './service/engine/index.js';
import { ExpertqService, type ExpertqServiceOptions } from './service/expertq-service.js';
import { LlmWorker } from './service/llm/index.js';
import { reviewCardOf } from './service/review/index.js';
import { askUndeliverable } from './service/routing/index.js';

export interface ComposeServiceOptions extends ExpertqServiceOptions {
  /** Tuning for the webhook dispatcher (tests shorten the timeout). */
  delivery?: { timeoutMs?: number; maxInFlight?: number; perConsumer?: number };
}

/**
 * The one place an `ExpertqService` and the workers that carry out what it commits are built: chat
 * messages, webhook deliveries, LLM jobs, and the scheduler its `tick()` runs. Each worker claims its
 * work with a lease in this process's name, so processes sharing a database never do one piece of
 * work at once. The service knows the workers only to wake them after a commit.
 */
export function composeService(options: ComposeServiceOptions): ExpertqService {
  const service = new ExpertqService(options);
  const deliveries = new DeliveryDispatcher(service.store, service.clock, service.log, {
    allowPrivate: service.allowPrivateWebhooks,
    instanceId: service.instanceId,
    ...options.delivery,
  });
  const messages = new MessageDispatcher(
    service.store,
    options.transport,
    service.clock,
    service.log,
    {
      onUndeliverable: (tx, message, code, now) => askUndeliverable(service, tx, message.ask_id!, code, now),
      afterOutcomes: () => deliveries.kick(),
      reviewCard: (proposalId, now) => reviewCardOf(service.store, proposalId, now),
      onFailure: (code) => countOne(service.counters.transportFailures, code),
    },
    { instanceId: service.instanceId },
  );
  const llmWorker = options.llm ? new LlmWorker(service, options.llm, () => service.kick(), { instanceId: service.instanceId }) : null;
  service.attach({ messages, deliveries, llmWorker, scheduler: new Scheduler(service) });
  return service;
}
