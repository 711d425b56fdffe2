import type { AnswerRecord } from '../../domain/answers.js';
import type { ProposalRecord, RequestRecord } from '../../domain/records.js';
import { newId } from '../../ids.js';
import type { Tx } from '../../store/store.js';
import { type Engine, libraryKey } from '../engine/index.js';

/**
 * Adds an accepted proposal to the answer library, in the transaction that accepts it: the question
 * as the consumer asked it, the answer as delivered (a reviewer's edit included), who answered and
 * who accepted. The entry is verified as of its acceptance.
 *
 * An expert's `same` confirms the entry their ask showed: accepting it refreshes that entry (verified
 * now, with the answer as delivered, so a reviewer's edit replaces the old wording) instead of adding
 * a second one; its question, author and first acceptance stay. An entry retired meanwhile is left
 * alone and the answer makes a new entry.
 */
export async function recordAnswer(libraryTopics: Engine['libraryTopics'], tx: Tx, request: RequestRecord, accepted: ProposalRecord, now: number): Promise<void> {
  const refreshes = accepted.provenance.refreshes;
  if (refreshes !== undefined && (await tx.answers.refresh(refreshes, { answer: accepted.answer, structured: accepted.structured, verifiedAt: now }))) return;
  const entry: AnswerRecord = {
    id: newId('ans'),
    topic: request.topic,
    kind: request.kind,
    question: request.question,
    answer: accepted.answer,
    structured: accepted.structured,
    expert_id: accepted.provenance.expert_id,
    expert_name: accepted.provenance.expert_name,
    consumer_id: request.consumer_id,
    request_id: request.id,
    proposal_id: accepted.id,
    accepted_at: now,
    accepted_by: accepted.decision?.decided_by ?? 'unknown',
    verified_at: now,
    status: 'active',
    reuse_count: 0,
    retired: null,
    created_at: now,
  };
  await tx.answers.insert(entry);
  libraryTopics.added(libraryKey(entry.topic, entry.kind), now);
}
