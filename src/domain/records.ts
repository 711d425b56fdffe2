import type { ChannelName } from './channels.js';
/** The records and status unions every layer shares: plain data, no I/O, whatever stores them. */
import type { Policy } from '../config/config-schema.js';

export type RequestStatus = 'queued' | 'asked' | 'escalated' | 'proposed' | 'accepted' | 'rejected' | 'failed';
export const OPEN_STATUSES: readonly RequestStatus[] = ['queued', 'asked', 'escalated', 'proposed'];

/** The statuses of a request that still waits for an expert's answer (open, with no proposal under review): it can give up, and its asks can go out. */
export const WAITING_STATUSES: readonly RequestStatus[] = ['queued', 'asked', 'escalated'];
/** Whether a request still waits for an expert's answer (`WAITING_STATUSES`). */
export const isWaiting = (r: Pick<RequestRecord, 'status'>): boolean => WAITING_STATUSES.includes(r.status);
/** The statuses a request ends in. */
export const FINAL_STATUSES: readonly RequestStatus[] = ['accepted', 'rejected', 'failed'];
export const REQUEST_STATUSES: readonly RequestStatus[] = [...OPEN_STATUSES, ...FINAL_STATUSES];
export type FailureCode = 'timeout' | 'no_expert_found' | 'expert_declined' | 'rate_limited' | 'cancelled' | 'error';

export interface Reason {
  code: FailureCode;
  message: string;
}

export interface RequestRecord {
  id: string;
  consumer_id: string;
  kind: string;
  topic: string;
  question: string;
  context: Record<string, unknown>;
  target_experts: string[] | null;
  /** The effective policy: `defaults` merged with the request's `routing_policy`; durations in ms. */
  routing_policy: Policy;
  /** The fields of `routing_policy` the request set itself (the rest follow `defaults`); null on rows older than this field. */
  own_policy: Partial<Policy> | null;
  dedup_key: string | null;
  status: RequestStatus;
  reason: Reason | null;
  proposal_id: string | null;
  /** True while every candidate is capped and the request waits for capacity. */
  held: boolean;
  /**
   * With an LLM: true while the model works on it before anyone is asked: judging whether a library
   * answer answers it, then drafting its question. Its asks wait (queued) until the draft ends.
   */
  drafting: boolean;
  /** The drafted question every ask of this request carries (element 3); null without a draft. */
  asked_question: string | null;
  /**
   * A stale library entry that asked the same question: its asks show its answer, and the reply `same`
   * confirms it (accepting that refreshes the entry). Null or absent otherwise.
   */
  refreshes?: string | null;
  give_up_at: number;
  /** When its subscribers get `request_expiring` (`give_up_at - warn_before`); null: no warning due (none set, or sent). */
  warn_at: number | null;
  created_at: number;
  updated_at: number;
}

export type AskState = 'queued' | 'open' | 'answered' | 'released' | 'escalated' | 'skipped';
export type AskVia = 'target' | 'exact' | 'fuzzy' | 'fallback' | 'escalation' | 'return';

export interface AskRecord {
  id: string;
  request_id: string;
  expert_id: string;
  state: AskState;
  via: AskVia;
  created_at: number;
  sent_at: number | null;
  /** When an open ask escalates to the expert's `escalation_to`. */
  escalate_at: number | null;
  closed_at: number | null;
  /** A queued ask held back by quiet hours: the instant they end. Null otherwise. */
  send_after: number | null;
  /** The channel it went out on (null while queued, and on the console before channels were recorded). */
  channel?: ChannelName | null;
  /** An ask made by a reviewer's "send back": the reviewer's instructions (null otherwise). */
  instructions?: string | null;
}

export type ProposalStatus = 'pending' | 'accepted' | 'rejected';

export interface Provenance {
  expert_id: string;
  expert_name: string;
  source: string;
  transport: string;
  answered_at: string;
  /** Null when the answer came from the library: nobody was asked. */
  ask_id: string | null;
  escalated: boolean;
  /** Only on a proposal reused from the library: the entry, the request it first answered (null if curated), when it was last verified. */
  reused_from?: string;
  original_request_id?: string | null;
  /** Only when reused: the entry's question as first asked, for the reviewer to compare with the new one. */
  original_question?: string;
  verified_at?: string;
  /** Only when the expert replied `same` to an ask showing a stale library entry: that entry, which accepting refreshes. */
  refreshes?: string;
  /** Who edited the answer before accepting it (the expert's text is kept as `original_answer`). */
  edited_by?: string;
  /** Only when an LLM is configured: the model, and whether drafting and structuring succeeded. */
  llm?: { model: string; drafted: boolean; structured: boolean };
}

export interface Decision {
  decided_by: string;
  note: string | null;
  reason: string | null;
  decided_at: number;
}

export interface ProposalRecord {
  id: string;
  request_id: string;
  status: ProposalStatus;
  answer: string;
  structured: unknown;
  confidence: number | null;
  provenance: Provenance;
  decision: Decision | null;
  /** The expert's own text when a reviewer edited the answer before accepting; null otherwise. */
  original_answer: string | null;
  created_at: number;
}

export type AuditType =
  | 'received' | 'deduped' | 'routed' | 'held' | 'quiet_hours_wait' | 'waiting_for_expert' | 'asked' | 'escalated' | 'replied'
  | 'late_reply' | 'ignored_reply' | 'skipped' | 'muted' | 'unmuted' | 'proposed' | 'decided' | 'delivered'
  | 'delivery_failed' | 'delivery_dead' | 'failed' | 'cancelled' | 'ask_undeliverable' | 'channel_failed' | 'returned'
  | 'llm_call' | 'llm_fallback' | 'answer_retired' | 'expiring' | 'passed_on' | 'away' | 'back' | 'reused' | 'reuse_declined' | 'stale_match'
  | 'vote' | 'quorum_met' | 'votes_reset';

export interface AuditEntry {
  request_id: string;
  at: number;
  type: AuditType;
  /** Who caused it: `system`, `consumer:<id>`, `expert:<id>`, `reviewer:<name>`. */
  actor: string;
  data: Record<string, unknown>;
}

export type EventType = 'proposal' | 'proposal_accepted' | 'proposal_rejected' | 'request_failed' | 'request_expiring';

export interface EventRecord {
  id: string;
  request_id: string;
  type: EventType;
  /** The full event body as delivered: `{event, id, created_at, request_id, ...}`. */
  body: Record<string, unknown>;
  created_at: number;
}

/**
 * `ask` and `accepted` go through every transport. The chat transport, which has threads and can edit
 * what it posted, also gets `feedback` (a reply in the ask's thread after each reply), `ask_update`
 * (the ask message edited: buttons gone, a status line) and `notice` (a top-level DM, no ask).
 */
export type MessagePurpose =
  | 'ask' | 'accepted' | 'feedback' | 'ask_update' | 'notice'
  // The Slack review channel: a card per pending proposal, its update, reminders.
  | 'review_card' | 'review_update' | 'review_reminder'
  // Review by email: a pending proposal mailed to one of `email.reviewers` (its `expert_id` is their address).
  | 'review_mail'
  // A review rule's reviewer told in a Slack or Teams direct chat (its `expert_id` is their user id there).
  | 'review_notice';

/** A direct message to an expert, queued in the same transaction as the state change that causes it. */
export interface MessageRecord {
  id: string;
  expert_id: string;
  request_id: string | null;
  ask_id: string | null;
  purpose: MessagePurpose;
  /** The channel it goes out on (an ask's channel for the ask's messages); null: the only one running. */
  channel?: ChannelName | null;
  text: string;
  /** An ask's six elements in order (`text` is them joined by newlines); null for other messages. */
  elements: string[] | null;
  /** Review-channel messages: the proposal they show. */
  proposal_id?: string | null;
  /** `dropped`: not sent because it no longer applied (an ask closed before it went out). */
  state: 'pending' | 'sent' | 'dead' | 'dropped';
  attempts: number;
  next_attempt_at: number;
  created_at: number;
  sent_at: number | null;
  last_error: string | null;
}

/**
 * Where the chat transport posted an ask: its DM channel and message timestamp. An ask posted inside
 * an earlier ask's thread (a sent-back answer) also names that thread's root (`thread_ts`).
 */
export interface ChatRef {
  channel: string;
  ts: string;
  thread_ts?: string | null;
}

/**
 * An expert's away spell: no asks until `until` (ms); `delegate_to` is tried first for what would have
 * gone to them. Kept beside the mute in the expert's live state.
 */
export interface AwayState {
  until: number;
  delegate_to: string | null;
  note: string | null;
  set_by: string;
  set_at: number;
}

export interface ExpertLiveState {
  muted: boolean;
  openAsks: number;
  queuedAsks: number;
  asksToday: number;
  /**
   * The away spell recorded for the expert (maybe past its end, not cleared yet), read with the rest
   * so routing, and the registry's page, need no read of their own.
   */
  away?: AwayState | null;
}

export interface ConsumerRecord {
  id: string;
  handles_kinds: string[];
  /** `webhook` consumers are POSTed to; `in_process` ones are SDK handlers in this process. */
  delivery: { type: 'webhook'; url: string } | { type: 'in_process' };
  /** Standard Webhooks secret (`whsec_…`); null for in-process consumers. */
  secret: string | null;
  dedup_window: string;
  dedup_window_ms: number;
  auto_accept: boolean;
  kind_schemas: Record<string, unknown> | null;
  /** Requests it may submit per local day (org time zone); null: `defaults.max_requests_per_consumer_per_day` applies. */
  max_requests_per_day: number | null;
  created_at: number;
  updated_at: number;
}

export type DeliveryState = 'pending' | 'delivered' | 'dead' | 'dropped';

/** One event owed to one consumer: the outbox row the dispatcher works from. */
export interface DeliveryRecord {
  id: string;
  event_id: string;
  consumer_id: string;
  request_id: string;
  state: DeliveryState;
  attempts: number;
  next_attempt_at: number;
  last_status: number | null;
  last_error: string | null;
  created_at: number;
  delivered_at: number | null;
  /** The event's type, when read back (`GET /deliveries`, a replay). */
  event?: EventType;
}

/** A claimed delivery with what it takes to send it. */
export interface DeliveryJob extends DeliveryRecord {
  event_type: EventType;
  /** The event body exactly as stored: the same bytes on every attempt. */
  body: string;
}

export const LLM_STAGES = ['draft', 'structure', 'match'] as const;
export type LlmStage = (typeof LLM_STAGES)[number];

/**
 * Drafting, structuring or answer-matching work owed to a request, written in the same transaction as
 * the submit or the reply that causes it, and done by the LLM worker after commit. `pending` rows survive
 * a restart and resume.
 */
export interface LlmJobRecord {
  id: string;
  stage: LlmStage;
  request_id: string;
  /** Structuring: the proposal to create, everything but `structured`, `confidence` and `created_at`. */
  proposal: Omit<ProposalRecord, 'structured' | 'confidence' | 'created_at'> | null;
  state: 'pending' | 'done';
  /** Calls started; a job that keeps failing to finish is given up after a few. */
  attempts: number;
  /** Drafting: when the first ask stops waiting and goes out with the raw question; matching: when the lexical rule decides instead. */
  deadline_at: number | null;
  created_at: number;
  finished_at: number | null;
}
