import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import { ANSWER_STATUSES } from '../domain/answers.js';
import { LLM_STAGES, REQUEST_STATUSES } from '../domain/records.js';
import { REUSE_OUTCOMES } from '../domain/reuse.js';
import type { ExpertqService } from '../service/expertq-service.js';

/** prom-client's default gauges whose names end in `_total`, which `promtool check metrics` refuses. */
const GAUGES_NAMED_LIKE_COUNTERS = ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total'];

/** How old the requests-by-status (and library entries) figures may grow before a scrape has them counted again. */
export const STATUS_COUNTS_MAX_AGE_MS = 30_000;

/**
 * Prometheus metrics for one service (a registry of its own, not prom-client's global one, so several
 * services in one process, as in tests, do not collide). Gauges are read from the database at scrape
 * time with a few indexed counts, except requests by status (see `latestOf`); counters mirror the
 * service's in-memory counts.
 */
export function createMetrics(service: ExpertqService): ServiceMetrics {
  const registry = new Registry();
  // A scrape collects every gauge at once: the gauges built on the same reads share one read, not one each.
  const counts = sharedWhileInFlight(() => service.store.metrics.counts());
  const requestsByStatus = latestOf(() => service.store.metrics.requestsByStatus(), STATUS_COUNTS_MAX_AGE_MS, service.clock, (error) =>
    service.log.warn({ err: error }, 'metrics: counting requests by status failed; the last counts stay'),
  );
  // One pass over every entry, growing with the library: counted in the background like requests by status.
  const library = latestOf(() => service.libraryStats(), STATUS_COUNTS_MAX_AGE_MS, service.clock, (error) =>
    service.log.warn({ err: error }, 'metrics: counting library entries failed; the last counts stay'),
  );
  // Every expert's state in one pass (a few indexed ranges), not three counts per registered expert.
  const states = sharedWhileInFlight(() => service.expertStatesNow());
  const experts = async () => {
    const all = await states();
    return service.experts.experts.map((e) => [e.id, all.get(e.id) ?? { openAsks: 0, asksToday: 0 }] as const);
  };
  const gauge = (name: string, help: string, labelNames: string[], collect: (g: Gauge) => Promise<void>) =>
    new Gauge({ name, help, labelNames, registers: [registry], async collect() { this.reset(); await collect(this); } });

  gauge('expertq_requests', 'Requests by status.', ['status'], async (g) => {
    // Every status, 0 included: a ratio such as failed / all needs both series to exist.
    const byStatus = await requestsByStatus();
    for (const status of REQUEST_STATUSES) g.set({ status }, byStatus[status] ?? 0);
  });
  gauge('expertq_library_entries', 'Answer library entries by status (stale: not verified within library.verify_after).', ['status'], async (g) => {
    const stats = await library();
    for (const status of ANSWER_STATUSES) g.set({ status }, stats[status]);
  });
  gauge('expertq_expert_open_asks', 'Unanswered asks per expert.', ['expert'], async (g) => {
    for (const [expert, s] of await experts()) g.set({ expert }, s.openAsks);
  });
  gauge('expertq_expert_asks_today', 'Asks sent to each expert today (org.timezone).', ['expert'], async (g) => {
    for (const [expert, s] of await experts()) g.set({ expert }, s.asksToday);
  });
  gauge('expertq_pending_proposals', 'Proposals waiting for review.', [], async (g) => g.set((await counts()).pendingProposals));
  gauge('expertq_oldest_pending_proposal_age_seconds', 'How long the oldest pending proposal has waited (0 when none).', [], async (g) => {
    const oldest = await service.store.proposals.oldestPending();
    g.set(oldest ? (service.clock.now() - oldest.created_at) / 1000 : 0);
  });
  gauge('expertq_outbox_backlog', 'Outbox rows not yet sent: messages to experts, deliveries to consumers.', ['outbox'], async (g) => {
    const c = await counts();
    g.set({ outbox: 'messages' }, c.pendingMessages);
    g.set({ outbox: 'deliveries' }, c.pendingDeliveries);
  });
  gauge('expertq_outbox_oldest_age_seconds', 'Age of the oldest unsent outbox row (0 when none).', ['outbox'], async (g) => {
    const c = await counts();
    const age = (at: number | null) => (at === null ? 0 : (service.clock.now() - at) / 1000);
    g.set({ outbox: 'messages' }, age(c.oldestPendingMessageAt));
    g.set({ outbox: 'deliveries' }, age(c.oldestPendingDeliveryAt));
  });
  gauge('expertq_dead_deliveries', 'Deliveries that gave up after every retry (replay with POST /deliveries/{id}/retry).', [], async (g) =>
    g.set((await counts()).deadDeliveries),
  );

  new Counter({
    name: 'expertq_review_reminders_total',
    help: 'Reminders sent because the oldest pending proposal waited past review.remind_after.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(service.counters.reviewReminders);
    },
  });
  new Counter({
    name: 'expertq_rate_limited_submits_total',
    help: 'Submits refused with 429 because their consumer reached its daily request quota.',
    registers: [registry],
    collect() {
      this.reset();
      this.inc(service.counters.rateLimitedSubmits);
    },
  });
  new Counter({
    name: 'expertq_transport_errors_total',
    help: 'Failed sends to experts (Slack, email or console), by error code (ratelimited, user_not_found, smtp_550, http_503, …).',
    labelNames: ['code'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [code, n] of service.counters.transportFailures) this.inc({ code }, n);
    },
  });
  new Counter({
    name: 'expertq_email_refused_total',
    help: 'Inbound mail refused as an answer: a reply token that does not verify (bad_token), a DMARC fail (dmarc_fail), no sender (no_sender).',
    labelNames: ['why'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [key, n] of service.counters.refusedInbound) {
        const [channel, why] = key.split(' ');
        if (channel === 'email') this.inc({ why }, n);
      }
    },
  });
  new Counter({
    name: 'expertq_llm_errors_total',
    help: 'LLM calls that failed (call_failed: timeout, HTTP error, refused) or answered unusably (unusable_output), by stage (draft, structure), and questions not given to the model because it was too far behind to draft them within llm.timeout (behind). Each fell back to the non-LLM path.',
    labelNames: ['stage', 'reason'],
    registers: [registry],
    collect() {
      this.reset();
      if (service.llm) {
        for (const stage of LLM_STAGES) for (const reason of ['call_failed', 'unusable_output']) this.inc({ stage, reason }, 0);
        this.inc({ stage: 'draft', reason: 'behind' }, 0);
      }
      for (const [key, n] of service.counters.llmFailures) {
        const [stage, reason] = key.split(' ');
        this.inc({ stage, reason }, n);
      }
    },
  });

  new Counter({
    name: 'expertq_reuse_total',
    help: 'Library answers offered instead of asking an expert, and what reviewers made of them (accepted, returned to ask an expert, rejected).',
    labelNames: ['outcome'],
    registers: [registry],
    collect() {
      this.reset();
      for (const outcome of REUSE_OUTCOMES) this.inc({ outcome }, service.counters.reuse.get(outcome) ?? 0);
    },
  });

  new Counter({
    name: 'expertq_review_votes_total',
    help: 'Reviewers\' votes on proposals a review rule covers, by decision (accept, reject).',
    labelNames: ['decision'],
    registers: [registry],
    collect() {
      this.reset();
      for (const decision of ['accept', 'reject']) this.inc({ decision }, service.counters.reviewVotes.get(decision) ?? 0);
    },
  });

  // The usual process_* and nodejs_* series (memory, CPU, event-loop lag, handles), under their usual
  // names so stock Node.js dashboards work.
  collectDefaultMetrics({ register: registry });
  // Except three gauges named like counters (`_total`), which Prometheus's checker refuses: each is the
  // sum of its per-type series (nodejs_active_handles{type}, …), which stay.
  for (const name of GAUGES_NAMED_LIKE_COUNTERS) registry.removeSingleMetric(name);

  const tick = new Histogram({
    name: 'expertq_scheduler_tick_seconds',
    help: 'How long each scheduler tick took (give-ups, escalations, quiet-hour releases, held and queued work).',
    buckets: [0.0005, 0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5],
    registers: [registry],
  });
  const onTick = (seconds: number) => tick.observe(seconds);
  service.ticks.on('tick', onTick);

  // Observed at each scrape from the decisions made since the last one (the service keeps them until then).
  new Histogram({
    name: 'expertq_review_decision_seconds',
    help: 'Time from a proposal to its accept or reject, by the review rule that covered it (`none`: no rule).',
    labelNames: ['rule'],
    buckets: [60, 300, 900, 3600, 4 * 3600, 24 * 3600, 3 * 24 * 3600, 7 * 24 * 3600],
    registers: [registry],
    collect() {
      for (const { rule, seconds } of service.counters.decisionTimes.splice(0)) this.observe({ rule }, seconds);
    },
  });

  const http = new Histogram({
    name: 'expertq_http_request_duration_seconds',
    help: 'HTTP request latency by method, route pattern and status code (long polls and streams included).',
    labelNames: ['method', 'route', 'status_code'],
    buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
    registers: [registry],
  });
  return {
    registry,
    observeHttp: (method, route, statusCode, seconds) => http.observe({ method, route, status_code: statusCode }, seconds),
    close: () => service.ticks.off('tick', onTick),
  };
}

/**
 * `read` shared by every caller while one call is in flight, and called afresh after it settles.
 * prom-client starts every metric's collect in the same turn, so the gauges of one scrape (and a
 * scrape that overlaps it) share one read, and the next scrape reads again.
 */
function sharedWhileInFlight<T>(read: () => Promise<T>): () => Promise<T> {
  let inFlight: Promise<T> | null = null;
  return () =>
    (inFlight ??= read().finally(() => {
      inFlight = null;
    }));
}

/**
 * The latest figures of `read` at once, counted again in the background when older than `maxAgeMs`
 * (one count at a time): a scrape never waits for a count that grows with history, and the figures
 * lag by at most `maxAgeMs` plus one scrape interval. Only the first call waits, for the first count.
 * A failed count keeps the last figures (and is retried by the next call).
 */
function latestOf<T>(read: () => Promise<T>, maxAgeMs: number, clock: { now(): number }, onError: (error: unknown) => void): () => Promise<T> {
  let latest: { value: T; at: number } | null = null;
  let inFlight: Promise<T> | null = null;
  const refresh = () =>
    (inFlight ??= (async () => {
      const at = clock.now();
      try {
        const value = await read();
        latest = { value, at };
        return value;
      } finally {
        inFlight = null;
      }
    })());
  return async () => {
    if (latest === null) return refresh();
    if (clock.now() - latest.at >= maxAgeMs) refresh().catch(onError);
    return latest.value;
  };
}

export interface ServiceMetrics {
  registry: Registry;
  /** Records one HTTP request; `route` is the route pattern (`/api/v1/requests/:id`), never the raw URL. */
  observeHttp(method: string, route: string, statusCode: number, seconds: number): void;
  /** Stops listening to the service (the app closes). */
  close(): void;
}
