import { randomBytes } from 'node:crypto';
import { iso } from '../../clock.js';
import { MAX_DURATION_MS, parseDuration } from '../../config/durations.js';
import { checkWebhookUrl } from '../../delivery/address-guard.js';
import { badRequest, notFound } from '../../errors.js';
import { schemaProblem } from '../../llm/json-schema.js';
import type { ConsumerRecord, DeliveryRecord } from '../../domain/records.js';
import { audit, type Engine } from '../engine/index.js';

export interface ConsumerInput {
  id: string;
  handles_kinds: string[];
  delivery: { type: 'webhook'; url: string; secret?: string | undefined } | { type: 'in_process' };
  dedup_window?: string | undefined;
  auto_accept?: boolean | undefined;
  kind_schemas?: Record<string, unknown> | undefined;
  /** Requests it may submit per local day; unset: `defaults.max_requests_per_consumer_per_day`. */
  max_requests_per_day?: number | undefined;
}

/** `whsec_` + base64 of 24 random bytes, the Standard Webhooks secret format. */
export function newSigningSecret(): string {
  return `whsec_${randomBytes(24).toString('base64')}`;
}

/**
 * Registers (or replaces: start-up registration is idempotent) a consumer. Webhook URLs are checked
 * for scheme and, unless private targets are allowed, for addresses inside our network.
 */
export async function registerConsumer(engine: Pick<Engine, 'store' | 'clock' | 'log' | 'quotaConsumers'>, input: ConsumerInput, allowPrivate: boolean): Promise<{ id: string; signing_secret: string | null }> {
  const dedupWindow = input.dedup_window ?? 'P1D';
  const dedupMs = parseDuration(dedupWindow);
  if (dedupMs === null || !/^P/i.test(dedupWindow)) {
    throw badRequest('dedup_window must be an ISO-8601 duration such as P1D or PT12H.', [{ path: 'dedup_window', message: `"${dedupWindow}" is not an ISO-8601 duration` }]);
  }
  if (dedupMs > MAX_DURATION_MS) {
    throw badRequest('dedup_window must be at most 365 days.', [{ path: 'dedup_window', message: `"${dedupWindow}" is longer than the maximum of 365 days` }]);
  }
  const quota = input.max_requests_per_day;
  if (quota !== undefined && !(Number.isSafeInteger(quota) && quota >= 1)) {
    throw badRequest('max_requests_per_day must be a whole number of at least 1.', [{ path: 'max_requests_per_day', message: `${String(quota)} is not a positive whole number` }]);
  }
  for (const [kind, schema] of Object.entries(input.kind_schemas ?? {})) {
    // Answers of the kind are validated against it: a schema Ajv cannot compile is refused now.
    const problem = schemaProblem(schema as Record<string, unknown>);
    if (problem) throw badRequest(`kind_schemas.${kind} is not a usable JSON Schema.`, [{ path: `kind_schemas.${kind}`, message: problem }]);
  }
  let secret: string | null = null;
  if (input.delivery.type === 'webhook') {
    const problem = await checkWebhookUrl(input.delivery.url, allowPrivate);
    if (problem) throw badRequest(`The webhook URL ${problem}.`, [{ path: 'delivery.url', message: problem }]);
    secret = input.delivery.secret ?? newSigningSecret();
  }
  const now = engine.clock.now();
  const existing = await engine.store.consumers.get(input.id);
  const record: ConsumerRecord = {
    id: input.id,
    handles_kinds: [...new Set(input.handles_kinds)],
    delivery: input.delivery.type === 'webhook' ? { type: 'webhook', url: input.delivery.url } : { type: 'in_process' },
    secret,
    dedup_window: dedupWindow.toUpperCase(),
    dedup_window_ms: dedupMs,
    auto_accept: input.auto_accept ?? false,
    kind_schemas: input.kind_schemas ?? null,
    max_requests_per_day: quota ?? null,
    created_at: existing?.created_at ?? now,
    updated_at: now,
  };
  // In a transaction, like every write an API caller may be told to retry.
  await engine.store.transaction(async (tx) => {
    await tx.consumers.upsert(record);
    if (record.max_requests_per_day !== null) engine.quotaConsumers.added(record.id, engine.clock.now());
  });
  engine.log.info({ consumer_id: record.id, delivery: record.delivery.type, auto_accept: record.auto_accept, replaced: Boolean(existing) }, 'consumer registered');
  return { id: record.id, signing_secret: secret };
}

export function consumerView(c: ConsumerRecord) {
  return {
    id: c.id,
    handles_kinds: c.handles_kinds,
    delivery: c.delivery,
    dedup_window: c.dedup_window,
    auto_accept: c.auto_accept,
    kind_schemas: c.kind_schemas,
    max_requests_per_day: c.max_requests_per_day,
    created_at: iso(c.created_at),
    updated_at: iso(c.updated_at),
  };
}

/** Unregisters a consumer; its pending deliveries are dropped, and each drop is audited on its request. */
export async function deleteConsumer(engine: Pick<Engine, 'store' | 'clock' | 'log'>, id: string): Promise<void> {
  const now = engine.clock.now();
  await engine.store.transaction(async (tx) => {
    if (!(await tx.consumers.delete(id))) throw notFound('Consumer', id);
    for (const d of await tx.outbox.dropPendingDeliveries(id, now)) {
      await audit(engine, tx, {
        request_id: d.request_id,
        at: now,
        type: 'delivery_dead',
        actor: 'system',
        data: { delivery_id: d.id, consumer_id: id, event_id: d.event_id, error: 'consumer deleted; delivery dropped' },
      });
    }
  });
  engine.log.info({ consumer_id: id }, 'consumer deleted');
}

/** The kinds consumers deal with, their capture schema, and who handles each (`*` handles all). */
export async function listKinds(store: Engine['store']): Promise<Array<{ kind: string; schema: unknown; consumers: string[] }>> {
  const consumers = await store.consumers.list();
  const kinds = new Set<string>();
  for (const c of consumers) {
    c.handles_kinds.filter((k) => k !== '*').forEach((k) => kinds.add(k));
    Object.keys(c.kind_schemas ?? {}).forEach((k) => kinds.add(k));
  }
  return [...kinds].sort().map((kind) => ({
    kind,
    schema: kindSchemaOf(consumers, kind),
    consumers: consumers.filter((c) => c.handles_kinds.includes(kind) || c.handles_kinds.includes('*')).map((c) => c.id),
  }));
}

/**
 * The capture schema of a kind: the first registered consumer (in registration order) whose
 * `kind_schemas` has one. `GET /kinds` shows it and the LLM structures answers of that kind with it.
 */
export function kindSchemaOf(consumers: readonly ConsumerRecord[], kind: string): Record<string, unknown> | null {
  const schema = consumers.find((c) => c.kind_schemas && kind in c.kind_schemas)?.kind_schemas?.[kind];
  return (schema as Record<string, unknown> | undefined) ?? null;
}

export function deliveryView(d: DeliveryRecord) {
  return {
    id: d.id,
    event_id: d.event_id,
    event: d.event ?? null,
    consumer_id: d.consumer_id,
    request_id: d.request_id,
    state: d.state,
    attempts: d.attempts,
    next_attempt_at: d.state === 'pending' ? iso(d.next_attempt_at) : null,
    last_status: d.last_status,
    last_error: d.last_error,
    created_at: iso(d.created_at),
    delivered_at: iso(d.delivered_at),
  };
}

/** Replays a delivery now, whatever its state (a dead one after the endpoint is fixed, or a re-send). */
export function retryDelivery(engine: Pick<Engine, 'store' | 'clock'>, id: string): Promise<DeliveryRecord> {
  return engine.store.transaction(async (tx) => {
    const delivery = await tx.outbox.getDelivery(id);
    if (!delivery) throw notFound('Delivery', id);
    if (!(await tx.consumers.get(delivery.consumer_id))) throw badRequest(`Consumer "${delivery.consumer_id}" no longer exists.`);
    await tx.outbox.retryDelivery(id, engine.clock.now());
    return (await tx.outbox.getDelivery(id))!;
  });
}

export interface DeliveryListQuery {
  consumer_id?: string | undefined;
  state?: 'pending' | 'delivered' | 'dead' | 'dropped' | undefined;
  limit: number;
  cursor?: string | undefined;
}

/** A page of deliveries, newest first, with the cursor of the next page (null on the last). */
export async function listDeliveries(store: Engine['store'], query: DeliveryListQuery) {
  const rows = await store.outbox.deliveries({ consumer_id: query.consumer_id, state: query.state, limit: query.limit + 1, before: query.cursor });
  const page = rows.slice(0, query.limit);
  return { items: page.map(deliveryView), next_cursor: rows.length > query.limit ? page[page.length - 1]!.id : null };
}
