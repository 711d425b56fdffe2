import type { AnswerRecord } from '../domain/answers.js';
import type { ProposalRecord, RequestRecord } from '../domain/records.js';
import { newId } from '../ids.js';
import type { Tx } from '../store/store.js';
import type { Engine } from './engine.js';

/**
 * Adds an accepted proposal to the answer library, in the transaction that accepts it: the question
 * as the consumer asked it, the answer as delivered (a reviewer's edit included), who answered and
 * who accepted. The entry is verified as of its acceptance.
 */
export async function recordAnswer(engine: Engine, tx: Tx, request: RequestRecord, accepted: ProposalRecord, now: number): Promise<AnswerRecord> {
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
  engine.libraryTopics.added(entry.topic, entry.kind, now);
  return entry;
}
