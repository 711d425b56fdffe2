import { expertTrail, subscribersAmong, type Engine, type Attendance } from '../engine/index.js';
import { iso } from '../../clock.js';
import type { Policy } from '../../config/config-schema.js';
import { formatDuration } from '../../config/durations.js';
import type { AskRecord, ConsumerRecord, ProposalRecord, RequestRecord } from '../../domain/records.js';
import { notFound } from '../../errors.js';
import type { RequestQuery } from '../../store/store.js';
import { givesUpAt, waitingOf } from '../availability/index.js';
import { askedQuestion, proposalBody } from '../review/index.js';

export function policyView(p: Policy) {
  return {
    escalation_after: formatDuration(p.escalation_after),
    give_up_after: formatDuration(p.give_up_after),
    quiet_hours: p.quiet_hours,
    max_open_asks_per_expert: p.max_open_asks_per_expert,
    max_asks_per_expert_per_day: p.max_asks_per_expert_per_day,
  };
}

/**
 * The full request record of `GET /requests/{id}`. It carries everything a consumer needs to act on
 * its own request without reading any other route: who is asked, why it waits and until when, and
 * the latest proposal (pending or decided).
 */
export async function requestView(engine: Attendance & Pick<Engine, 'store' | 'clock'>, r: RequestRecord, now = engine.clock.now()): Promise<RequestView> {
  return (await requestViews(engine, [r], now))[0]!;
}

/**
 * The views of a page of requests (`requestView` is a page of one). Their asks, proposals and
 * subscribers are read in one query each for the whole page: read request by request, a page of 50
 * was 150-250 queries, each a round trip to PostgreSQL (26 ms for a page at 100,000 requests).
 */
export async function requestViews(engine: Attendance & Pick<Engine, 'store' | 'clock'>, rows: readonly RequestRecord[], now = engine.clock.now()): Promise<RequestView[]> {
  const { store } = engine;
  const ids = rows.map((r) => r.id);
  const [asks, proposals, attached, consumers] = await Promise.all([
    store.asks.listForMany(ids),
    rows.some((r) => r.proposal_id !== null) ? store.proposals.listForMany(ids) : new Map<string, ProposalRecord[]>(),
    store.requests.subscribersOfMany(ids),
    store.consumers.list(),
  ]);
  return Promise.all(
    rows.map((r) => {
      const latest = r.proposal_id === null ? undefined : proposals.get(r.id)?.find((p) => p.id === r.proposal_id);
      return viewOf(engine, r, asks.get(r.id) ?? [], latest, subscribersAmong(consumers, attached.get(r.id) ?? [], r.kind), now);
    }),
  );
}

async function viewOf(
  engine: Attendance & Pick<Engine, 'store'>,
  r: RequestRecord,
  asks: readonly AskRecord[],
  latest: ProposalRecord | undefined,
  subscribers: readonly ConsumerRecord[],
  now: number,
) {
  const waiting = await waitingOf(engine, r, asks, now);
  return {
    id: r.id,
    consumer_id: r.consumer_id,
    kind: r.kind,
    topic: r.topic,
    question: r.question,
    asked_question: askedQuestion(r),
    context: r.context,
    target_experts: r.target_experts,
    routing_policy: policyView(r.routing_policy),
    dedup_key: r.dedup_key,
    status: r.status,
    reason: r.reason,
    asks: asks.map((a) => ({ id: a.id, expert_id: a.expert_id, sent_at: iso(a.sent_at), channel: a.channel ?? null, state: a.state })),
    asked: asks
      .filter((a) => a.state === 'open' || a.state === 'queued')
      .map((a) => {
        const expert = engine.experts.get(a.expert_id);
        const next = expert?.escalation_to ? engine.experts.get(expert.escalation_to) : undefined;
        return {
          expert_id: a.expert_id,
          expert_name: expert?.name ?? a.expert_id,
          sent_at: iso(a.sent_at),
          channel: a.channel ?? null,
          escalates_at: iso(a.state === 'open' ? a.escalate_at : null),
          escalates_to: next?.name ?? null,
        };
      }),
    waiting,
    gives_up_at: givesUpAt(r),
    subscribers: subscribers.map((c) => c.id),
    proposal_id: r.proposal_id,
    proposal: latest ? proposalBody(latest) : null,
    created_at: iso(r.created_at),
    updated_at: iso(r.updated_at),
  };
}

export type RequestView = Awaited<ReturnType<typeof viewOf>>;

/** A page of requests, newest first, with the cursor of the next page (null on the last). */
export async function listRequests(engine: Attendance & Pick<Engine, 'store' | 'clock'>, query: RequestQuery): Promise<{ items: RequestView[]; next_cursor: string | null }> {
  const rows = await engine.store.requests.list({ ...query, limit: query.limit + 1 });
  const page = rows.slice(0, query.limit);
  return {
    items: await requestViews(engine, page),
    next_cursor: rows.length > query.limit ? page[page.length - 1]!.id : null,
  };
}

/** An expert's own audit trail (away, back), oldest first. Unknown expert: 404. */
export async function expertAuditTrail(engine: Pick<Engine, 'store' | 'experts'>, expertId: string) {
  if (!engine.experts.has(expertId)) throw notFound('Expert', expertId);
  return (await engine.store.requests.audit(expertTrail(expertId))).map((e) => ({ at: iso(e.at), type: e.type, actor: e.actor, data: e.data }));
}

/** A request's audit trail, oldest first. Unknown id: 404. */
export async function auditTrail(store: Engine['store'], requestId: string) {
  if (!(await store.requests.get(requestId))) throw notFound('Request', requestId);
  return (await store.requests.audit(requestId)).map((e) => ({ at: iso(e.at), type: e.type, actor: e.actor, data: e.data }));
}
