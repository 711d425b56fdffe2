/** Entries of the answer library: plain data shared by every layer. */

/** What a store keeps; `stale` is worked out when an entry is read (see `AnswerStatus`). */
export type StoredAnswerStatus = 'active' | 'retired';
/** As callers see it: an active entry whose `verified_at` is older than `library.verify_after` reads `stale`. */
export type AnswerStatus = 'active' | 'stale' | 'retired';
export const ANSWER_STATUSES: readonly AnswerStatus[] = ['active', 'stale', 'retired'];

/** An active entry last verified before this instant is stale at `now` (`verifyAfter`: `library.verify_after`). */
export const staleBefore = (now: number, verifyAfter: number): number => now - verifyAfter;

/** Whether an entry verified at `verifiedAt` is still fresh (not stale) at `now`. */
export const isFresh = (entry: { verified_at: number }, now: number, verifyAfter: number): boolean => entry.verified_at >= staleBefore(now, verifyAfter);

/** An entry's status as callers see it at `now`: an active one not verified within `verifyAfter` reads `stale`. */
export function answerStatusAt(entry: { status: StoredAnswerStatus; verified_at: number }, now: number, verifyAfter: number): AnswerStatus {
  if (entry.status === 'retired') return 'retired';
  return isFresh(entry, now, verifyAfter) ? 'active' : 'stale';
}

export interface Retirement {
  reason: string;
  by: string;
  at: number;
}

/** An accepted (or curated) answer, kept to be found and reused. */
export interface AnswerRecord {
  id: string;
  /** Normalized like a request's topic. */
  topic: string;
  kind: string;
  /** The question as it was asked. */
  question: string;
  /** The answer as it was delivered, reviewer's edits included. */
  answer: string;
  structured: unknown;
  expert_id: string;
  expert_name: string;
  /** Who submitted the request it answered; null for a curated entry. Decides who sees it with `share: same_consumer`. */
  consumer_id: string | null;
  /** Null for a curated entry. */
  request_id: string | null;
  /** Null for a curated entry. */
  proposal_id: string | null;
  accepted_at: number;
  accepted_by: string;
  verified_at: number;
  status: StoredAnswerStatus;
  reuse_count: number;
  /** Who retired it, when and why; null while it is active. */
  retired: Retirement | null;
  created_at: number;
}

/** A curated entry (an existing FAQ, added by hand): no request, proposal or consumer behind it. */
export function curatedEntry(fields: {
  id: string;
  topic: string;
  kind: string;
  question: string;
  answer: string;
  structured: AnswerRecord['structured'];
  expert: { id: string; name: string };
  by: string;
  now: number;
  verifiedAt: number;
}): AnswerRecord {
  return {
    id: fields.id,
    topic: fields.topic,
    kind: fields.kind,
    question: fields.question,
    answer: fields.answer,
    structured: fields.structured,
    expert_id: fields.expert.id,
    expert_name: fields.expert.name,
    consumer_id: null,
    request_id: null,
    proposal_id: null,
    accepted_at: fields.now,
    accepted_by: fields.by,
    verified_at: fields.verifiedAt,
    status: 'active',
    reuse_count: 0,
    retired: null,
    created_at: fields.now,
  };
}
