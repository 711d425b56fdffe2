import type { AnswerRecord } from '../domain/answers.js';
import type { AuditEntry, AwayState, ConsumerRecord, ExpertLiveState, LlmJobRecord, MessageRecord, ProposalRecord, RequestRecord } from '../domain/records.js';
import type { HeldRequest, RequestSummary } from './store.js';

/**
 * Rows to records, for every engine: each keeps JSON as text, flags as 0/1 and times as epoch
 * milliseconds, so one mapping serves them all.
 */

export type Row = Record<string, unknown>;

export const json = (value: unknown) => JSON.stringify(value);
export const parseJson = (text: unknown): unknown => (text === null || text === undefined ? null : JSON.parse(text as string));

export function toRequest(r: Row): RequestRecord {
  // Each field written out: records built by spreading a helper's object were several times slower to
  // build and serialize (list pages p50 1.2 -> 1.9 ms at 100,000 submissions).
  return {
    id: r.id as string,
    consumer_id: r.consumer_id as string,
    kind: r.kind as string,
    topic: r.topic as string,
    question: r.question as string,
    context: JSON.parse(r.context as string),
    target_experts: r.target_experts === null ? null : JSON.parse(r.target_experts as string),
    routing_policy: JSON.parse(r.routing_policy as string),
    own_policy: r.own_policy === null || r.own_policy === undefined ? null : JSON.parse(r.own_policy as string),
    dedup_key: r.dedup_key as string | null,
    status: r.status as RequestRecord['status'],
    reason: r.reason_code === null ? null : { code: r.reason_code as never, message: r.reason_message as string },
    proposal_id: r.proposal_id as string | null,
    held: r.held === 1,
    drafting: r.drafting === 1,
    asked_question: r.asked_question as string | null,
    // Only when set: most requests never refresh a library entry.
    ...(typeof r.refreshes === 'string' ? { refreshes: r.refreshes } : {}),
    give_up_at: r.give_up_at as number,
    warn_at: (r.warn_at as number | null | undefined) ?? null,
    created_at: r.created_at as number,
    updated_at: r.updated_at as number,
  };
}

/** A held request's row, as the scheduler weighs it. */
export function toHeld(r: Row): HeldRequest {
  return {
    id: r.id as string,
    topic: r.topic as string,
    target_experts: r.target_experts === null ? null : JSON.parse(r.target_experts as string),
    created_at: r.created_at as number,
  };
}

/** A request summary's row: the columns of `RequestSummary`, `asked_because` already taken out of the context. */
export function toRequestSummary(r: Row): RequestSummary {
  const { id, consumer_id, kind, topic, question, asked_question, asked_because, status, created_at } = r as Omit<RequestSummary, 'drafting'>;
  return { id, consumer_id, kind, topic, question, asked_question, drafting: r.drafting === 1, asked_because, status, created_at };
}

export function toProposal(r: Row): ProposalRecord {
  return {
    id: r.id as string,
    request_id: r.request_id as string,
    status: r.status as ProposalRecord['status'],
    answer: r.answer as string,
    structured: JSON.parse(r.structured as string),
    confidence: r.confidence as number | null,
    provenance: JSON.parse(r.provenance as string),
    decision:
      r.decided_at === null
        ? null
        : {
            decided_by: r.decided_by as string,
            note: r.note as string | null,
            reason: r.reason as string | null,
            decided_at: r.decided_at as number,
          },
    original_answer: (r.original_answer as string | null | undefined) ?? null,
    created_at: r.created_at as number,
  };
}

export function toConsumer(r: Row): ConsumerRecord {
  return {
    id: r.id as string,
    handles_kinds: JSON.parse(r.handles_kinds as string),
    delivery: JSON.parse(r.delivery as string),
    secret: r.secret as string | null,
    dedup_window: r.dedup_window as string,
    dedup_window_ms: r.dedup_window_ms as number,
    auto_accept: r.auto_accept === 1,
    kind_schemas: r.kind_schemas === null ? null : JSON.parse(r.kind_schemas as string),
    max_requests_per_day: (r.max_requests_per_day as number | null | undefined) ?? null,
    created_at: r.created_at as number,
    updated_at: r.updated_at as number,
  };
}

export const toAudit = (r: Row): AuditEntry => ({
  request_id: r.request_id as string,
  at: r.at as number,
  type: r.type as AuditEntry['type'],
  actor: r.actor as string,
  data: JSON.parse(r.data as string),
});

export function toLlmJob(r: Row): LlmJobRecord {
  return {
    id: r.id as string,
    stage: r.stage as LlmJobRecord['stage'],
    request_id: r.request_id as string,
    proposal: r.proposal === null ? null : JSON.parse(r.proposal as string),
    state: r.state as LlmJobRecord['state'],
    attempts: r.attempts as number,
    deadline_at: r.deadline_at as number | null,
    created_at: r.created_at as number,
    finished_at: r.finished_at as number | null,
  };
}

export function toAnswer(r: Row): AnswerRecord {
  return {
    id: r.id as string,
    topic: r.topic as string,
    kind: r.kind as string,
    question: r.question as string,
    answer: r.answer as string,
    structured: parseJson(r.structured),
    expert_id: r.expert_id as string,
    expert_name: r.expert_name as string,
    consumer_id: r.consumer_id as string | null,
    request_id: r.request_id as string | null,
    proposal_id: r.proposal_id as string | null,
    accepted_at: r.accepted_at as number,
    accepted_by: r.accepted_by as string,
    verified_at: r.verified_at as number,
    status: r.status as AnswerRecord['status'],
    reuse_count: r.reuse_count as number,
    retired: r.retired_at === null ? null : { reason: r.retired_reason as string, by: r.retired_by as string, at: r.retired_at as number },
    created_at: r.created_at as number,
  };
}

/** An entry's columns in insert order (both engines). */
export function answerColumns(a: AnswerRecord): unknown[] {
  return [
    a.id, a.topic, a.kind, a.question, a.answer, json(a.structured), a.expert_id, a.expert_name, a.consumer_id, a.request_id,
    a.proposal_id, a.accepted_at, a.accepted_by, a.verified_at, a.status, a.reuse_count,
    a.retired?.reason ?? null, a.retired?.by ?? null, a.retired?.at ?? null, a.created_at,
  ];
}

export const ANSWER_COLUMNS =
  'id, topic, kind, question, answer, structured, expert_id, expert_name, consumer_id, request_id, proposal_id, accepted_at, ' +
  'accepted_by, verified_at, status, reuse_count, retired_reason, retired_by, retired_at, created_at';

/** The columns of `expert_state` an away spell is kept in, in the order `awayValues` gives them. */
export const AWAY_COLUMNS = ['away_until', 'away_delegate', 'away_note', 'away_set_by', 'away_set_at'] as const;

export function awayValues(away: AwayState | null): unknown[] {
  return away ? [away.until, away.delegate_to, away.note, away.set_by, away.set_at] : [null, null, null, null, null];
}

export function toAway(row: Row): AwayState {
  return {
    until: row.away_until as number,
    delegate_to: (row.away_delegate as string | null) ?? null,
    note: (row.away_note as string | null) ?? null,
    set_by: row.away_set_by as string,
    set_at: row.away_set_at as number,
  };
}

/** One expert's live state from a row of counts beside their `expert_state` columns (all null when they have none). */
export function toLiveState(r: Row): ExpertLiveState {
  return {
    muted: r.muted === 1,
    openAsks: Number(r.open),
    queuedAsks: Number(r.queued),
    asksToday: Number(r.today),
    away: liveAway(r),
  };
}

/** The away spell an expert's live state carries, from its `expert_state` columns (null: none). */
export function liveAway(r: Row): AwayState | null {
  return r.away_until === null || r.away_until === undefined ? null : toAway(r);
}

/** Records by their id. */
export function byId<T extends { id: string }>(records: readonly T[]): Map<string, T> {
  return new Map(records.map((r) => [r.id, r]));
}

/** Subscriber rows grouped by their request: each request's consumer ids, in the order given. */
export function consumersByRequest(rows: ReadonlyArray<{ request_id: string; consumer_id: string }>): Map<string, string[]> {
  return new Map([...byRequest(rows)].map(([id, group]) => [id, group.map((r) => r.consumer_id)]));
}

/** Records grouped by their request, each group in the order given. */
export function byRequest<T extends { request_id: string }>(records: readonly T[]): Map<string, T[]> {
  return groupBy(records, (r) => r.request_id);
}

/** Records grouped by a key of theirs, each group in the order given. */
export function groupBy<T>(records: readonly T[], keyOf: (record: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const record of records) {
    const group = groups.get(keyOf(record));
    if (group) group.push(record);
    else groups.set(keyOf(record), [record]);
  }
  return groups;
}

/**
 * The `text` column of a message: an ask's text is its elements joined by newlines, so it is stored
 * once, as the elements, with an empty text (`toMessage` joins them again). A message of any other
 * kind, or an ask whose text is not its elements, keeps its text.
 */
export function messageText(m: Pick<MessageRecord, 'purpose' | 'text' | 'elements'>): string {
  return m.purpose === 'ask' && m.elements !== null && m.text === m.elements.join('\n') ? '' : m.text;
}

export function toMessage(r: Row): MessageRecord {
  const elements = parseJson(r.elements) as string[] | null;
  const { claimed_by: _owner, lease_until: _lease, ...message } = r;
  return { ...message, elements, text: r.purpose === 'ask' && r.text === '' && elements !== null ? elements.join('\n') : r.text } as MessageRecord;
}
