import { bestMatch, STOP_WORDS } from '../core/match-question.js';
import type { AnswerRecord } from '../domain/answers.js';
import type { ProposalRecord, RequestRecord } from '../domain/records.js';
import { newId } from '../ids.js';
import { queryWords } from '../store/answer-repository.js';
import type { Tx } from '../store/store.js';
import { createProposal } from './create-proposal.js';
import { audit, countOne, type Engine } from './engine.js';
import { writeNewRequest } from './new-request.js';

/** The index's best this many entries are scored: enough for any paraphrase, bounded for a popular topic. */
export const REUSE_CANDIDATES = 50;

export type ReuseMode = 'offer' | 'off';

/**
 * Offers a library entry instead of asking an expert, for a request being submitted: when an active,
 * fresh entry of the same topic and kind asks close enough the same question (`library.min_score`),
 * the request is written and gets a pending proposal made of that entry, in the caller's transaction.
 * Returns whether it did; when not, the request is routed as usual. A stale entry that would have
 * matched is not offered: the request notes it (`refreshes`), so its asks show the expert that
 * answer and the reply `same` confirms it. With
 * `library.share: same_consumer`, only entries of the submitter's own requests and those added by
 * hand are offered, so no consumer receives another's answers.
 */
export async function offerReuse(engine: Engine, tx: Tx, request: RequestRecord, mode: ReuseMode, now: number): Promise<boolean> {
  if (mode === 'off') return false;
  const library = engine.config.library;
  const words = queryWords(request.question).filter((w) => !STOP_WORDS.has(w));
  if (words.length === 0) return false;
  const candidates = await tx.answers.reuseCandidates({
    topic: request.topic,
    kind: request.kind,
    words,
    staleBefore: now - engine.config.library.verify_after,
    limit: REUSE_CANDIDATES,
    ...(library.share === 'same_consumer' ? { consumerId: request.consumer_id } : {}),
  });
  const staleBefore = now - library.verify_after;
  const fresh = candidates.filter((c) => c.verified_at >= staleBefore);
  const match = bestMatch(request.question, fresh, library.min_score);
  if (match === null) {
    const stale = bestMatch(request.question, candidates.filter((c) => c.verified_at < staleBefore), library.min_score);
    if (stale !== null) {
      request.refreshes = stale.entry.id;
      await audit(engine, tx, { request_id: request.id, at: now, type: 'stale_match', actor: 'system', data: { answer_id: stale.entry.id, score: stale.score } });
      engine.log.info({ request_id: request.id, answer_id: stale.entry.id, score: stale.score }, 'stale library answer: the expert is shown it');
    }
    return false;
  }

  // Nobody is asked, so there is no question to draft.
  request.drafting = false;
  await writeNewRequest(tx, request);
  await audit(engine, tx, {
    request_id: request.id,
    at: now,
    type: 'reused',
    actor: 'system',
    data: { answer_id: match.entry.id, score: match.score, by: 'lexical' },
  });
  await createProposal(engine, tx, request, reusedProposal(match.entry, request, match.score, now), now);
  countOne(engine.counters.reuse, 'offered');
  engine.log.info({ request_id: request.id, answer_id: match.entry.id, score: match.score }, 'library answer offered: no expert asked');
  return true;
}

/** A pending proposal made of a library entry: its answer as delivered then, and who gave it. */
function reusedProposal(entry: AnswerRecord, request: RequestRecord, score: number, now: number): ProposalRecord {
  return {
    id: newId('prop'),
    request_id: request.id,
    status: 'pending',
    answer: entry.answer,
    structured: entry.structured ?? { text: entry.answer },
    confidence: score,
    provenance: {
      expert_id: entry.expert_id,
      expert_name: entry.expert_name,
      source: entry.expert_name,
      transport: 'library',
      answered_at: new Date(entry.accepted_at).toISOString(),
      ask_id: null,
      escalated: false,
      reused_from: entry.id,
      original_request_id: entry.request_id,
      original_question: entry.question,
      verified_at: new Date(entry.verified_at).toISOString(),
    },
    decision: null,
    original_answer: null,
    created_at: now,
  };
}
