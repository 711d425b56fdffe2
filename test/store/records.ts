import type { AnswerRecord } from '../../src/domain/answers.js';
import type {
  AskRecord, AuditEntry, ConsumerRecord, DeliveryRecord, EventRecord, LlmJobRecord, MessageRecord, ProposalRecord, RequestRecord,
} from '../../src/domain/records.js';

/** Small record builders for the store contract suite: valid rows with the fields a test cares about overridable. */

export const T0 = Date.parse('2026-11-23T10:00:00.000Z');
export const MINUTE = 60_000;
export const HOUR = 3_600_000;
export const DAY = 86_400_000;

export function request(id: string, over: Partial<RequestRecord> = {}): RequestRecord {
  return {
    id,
    consumer_id: 'ledger',
    kind: 'answer',
    topic: 'billing',
    question: `Question of ${id}?`,
    context: { asked_because: 'contract test' },
    target_experts: null,
    routing_policy: { escalation_after: 2 * HOUR, give_up_after: DAY, quiet_hours: null, max_open_asks_per_expert: 3, max_asks_per_expert_per_day: 5 },
    own_policy: null,
    dedup_key: null,
    status: 'asked',
    reason: null,
    proposal_id: null,
    held: false,
    drafting: false,
    asked_question: null,
    give_up_at: T0 + DAY,
    warn_at: null,
    created_at: T0,
    updated_at: T0,
    ...over,
  };
}

export function ask(id: string, requestId: string, expertId: string, over: Partial<AskRecord> = {}): AskRecord {
  return {
    id,
    request_id: requestId,
    expert_id: expertId,
    state: 'open',
    via: 'exact',
    created_at: T0,
    sent_at: T0,
    escalate_at: T0 + 2 * HOUR,
    closed_at: null,
    send_after: null,
    instructions: null,
    channel: null,
    ...over,
  };
}

export function proposal(id: string, requestId: string, over: Partial<ProposalRecord> = {}): ProposalRecord {
  return {
    id,
    request_id: requestId,
    status: 'pending',
    answer: `The answer of ${id}.`,
    structured: null,
    confidence: null,
    provenance: { expert_id: 'dana', expert_name: 'Dana', source: 'reply', transport: 'console', answered_at: new Date(T0).toISOString(), ask_id: `ask_of_${id}`, escalated: false },
    decision: null,
    original_answer: null,
    created_at: T0,
    ...over,
  };
}

export function message(id: string, over: Partial<MessageRecord> = {}): MessageRecord {
  return {
    id,
    expert_id: 'dana',
    request_id: null,
    ask_id: null,
    purpose: 'notice',
    channel: null,
    text: `Message ${id}`,
    elements: null,
    proposal_id: null,
    state: 'pending',
    attempts: 0,
    next_attempt_at: T0,
    created_at: T0,
    sent_at: null,
    last_error: null,
    ...over,
  };
}

export function consumer(id: string, over: Partial<ConsumerRecord> = {}): ConsumerRecord {
  return {
    id,
    handles_kinds: ['answer'],
    delivery: { type: 'webhook', url: `https://hooks.example.com/${id}` },
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    dedup_window: '1h',
    dedup_window_ms: HOUR,
    auto_accept: false,
    kind_schemas: null,
    max_requests_per_day: null,
    created_at: T0,
    updated_at: T0,
    ...over,
  };
}

export function event(id: string, requestId: string, over: Partial<EventRecord> = {}): EventRecord {
  const type = over.type ?? 'proposal_accepted';
  const createdAt = over.created_at ?? T0;
  return {
    id,
    request_id: requestId,
    type,
    body: { event: type, id, created_at: new Date(createdAt).toISOString(), request_id: requestId },
    created_at: createdAt,
    ...over,
  };
}

export function delivery(id: string, eventId: string, consumerId: string, requestId: string, over: Partial<DeliveryRecord> = {}): DeliveryRecord {
  return {
    id,
    event_id: eventId,
    consumer_id: consumerId,
    request_id: requestId,
    state: 'pending',
    attempts: 0,
    next_attempt_at: T0,
    last_status: null,
    last_error: null,
    created_at: T0,
    delivered_at: null,
    ...over,
  };
}

export function llmJob(id: string, requestId: string, over: Partial<LlmJobRecord> = {}): LlmJobRecord {
  return {
    id,
    stage: 'structure',
    request_id: requestId,
    proposal: null,
    state: 'pending',
    attempts: 0,
    deadline_at: null,
    created_at: T0,
    finished_at: null,
    ...over,
  };
}

export function audit(requestId: string, at: number, over: Partial<AuditEntry> = {}): AuditEntry {
  return { request_id: requestId, at, type: 'received', actor: 'consumer:ledger', data: {}, ...over };
}

export function answerEntry(id: string, over: Partial<AnswerRecord> = {}): AnswerRecord {
  return {
    id,
    topic: 'billing',
    kind: 'answer',
    question: `Question of ${id}?`,
    answer: `Answer of ${id}.`,
    structured: { text: `Answer of ${id}.` },
    expert_id: 'dana',
    expert_name: 'Dana Smith',
    consumer_id: 'ledger',
    request_id: `req_${id}`,
    proposal_id: `prop_${id}`,
    accepted_at: T0,
    accepted_by: 'rita',
    verified_at: T0,
    status: 'active',
    reuse_count: 0,
    retired: null,
    created_at: T0,
    ...over,
  };
}
