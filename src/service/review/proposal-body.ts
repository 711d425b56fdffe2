import type { ProposalRecord, RequestRecord } from '../../domain/records.js';

/**
 * The question its asks carry (element 3): the drafted one, else the raw question (no LLM,
 * or the draft fell back); null while the draft is still being written and nothing was asked yet.
 */
export function askedQuestion(r: Pick<RequestRecord, 'question' | 'asked_question' | 'drafting'>): string | null {
  return r.asked_question ?? (r.drafting ? null : r.question);
}

/** The wire form of a proposal. */
export function proposalBody(p: ProposalRecord) {
  return {
    id: p.id,
    request_id: p.request_id,
    status: p.status,
    answer: p.answer,
    structured: p.structured,
    confidence: p.confidence,
    provenance: p.provenance,
    decision: p.decision && { ...p.decision, decided_at: new Date(p.decision.decided_at).toISOString() },
    original_answer: p.original_answer,
    created_at: new Date(p.created_at).toISOString(),
  };
}
export type ProposalBody = ReturnType<typeof proposalBody>;
