import { bestMatch, lookupWords, type QuestionMatch } from '../../core/match-question.js';
import { isFresh, staleBefore, type AnswerRecord } from '../../domain/answers.js';
import type { ProposalRecord, RequestRecord } from '../../domain/records.js';
import { newId } from '../../ids.js';
import type { AnswerReads } from '../../store/answer-repository.js';
import type { Tx } from '../../store/store.js';
import { createProposal } from '../review/index.js';
import { audit, countOne, type Engine, type Drafting, libraryKey, queueMatch, updateRequest, writeNewRequest } from '../engine/index.js';

/** At most this many entries are scored, those sharing the most looked-up words: enough for any paraphrase, bounded for a popular topic. */
export const REUSE_CANDIDATES = 50;

export type ReuseMode = 'offer' | 'off';

/** What reuse did at submit: offered an entry, left the judgement to the model, or found nothing. */
export type ReuseOutcome = 'reused' | 'judging' | 'none';

/**
 * Offers a library entry instead of asking an expert, for a request being submitted: when an active,
 * fresh entry of the same topic and kind asks close enough the same question (`library.min_score`),
 * the request is written and gets a pending proposal made of that entry, in the caller's transaction.
 * With an LLM and no such entry, but one scoring at least `library.llm_min_score`, the request is
 * written `queued`, waiting for the model (`drafting`), and an `answer_match` job is queued: nobody is
 * asked before the judgement. Otherwise the request is routed as usual. A stale entry that would have
 * matched is not offered: the request notes it (`refreshes`), so its asks show the expert that answer
 * and the reply `same` confirms it. With
 * `library.share: same_consumer`, only entries of the submitter's own requests and those added by
 * hand are offered, so no consumer receives another's answers. The entries scored are those
 * `prefetchReuse` looked up for it before the transaction.
 */
export async function offerReuse(engine: Drafting & Pick<Engine, 'log' | 'config' | 'review' | 'experts' | 'channels'>, tx: Tx, request: RequestRecord, { fresh, stale }: LibraryCandidates, now: number): Promise<ReuseOutcome> {
  if (fresh.length === 0 && stale.length === 0) return 'none';
  const library = engine.config.library;
  const match = bestMatch(request.question, fresh, library.min_score);
  if (match !== null) {
    await reuseEntry(engine, tx, request, match, { by: 'lexical', confidence: match.score }, now);
    return 'reused';
  }
  await noteStaleMatch(engine, tx, request, stale, now);
  if (engine.llm === null || bestMatch(request.question, fresh, library.llm_min_score, { swaps: 'allowed' }) === null) return 'none';
  request.drafting = true;
  await writeNewRequest(tx, request);
  await queueMatch(engine, tx, request, now);
  return 'judging';
}

/** Library entries a submitted request could be offered, fresh and stale apart. */
export interface LibraryCandidates {
  fresh: AnswerRecord[];
  stale: AnswerRecord[];
}

const NONE: LibraryCandidates = { fresh: [], stale: [] };

/** The entries `offerReuse` scores for a request (none when reuse is off or its topic has no library). */
async function lookUpReuse(engine: Pick<Engine, 'store' | 'config' | 'llm' | 'libraryTopics'>, request: ReuseSubject & { mode: ReuseMode }, now: number): Promise<LibraryCandidates> {
  if (request.mode === 'off' || !(await engine.libraryTopics.mayHave(libraryKey(request.topic, request.kind), now))) return NONE;
  const library = engine.config.library;
  // With a model, entries down to its lower score are judged: they are looked up too.
  const lowest = engine.llm === null ? library.min_score : Math.min(library.min_score, library.llm_min_score);
  return libraryCandidates(engine.config, engine.store, request, lowest, now);
}

/**
 * The library entries of several submits, looked up side by side before their transaction (on
 * PostgreSQL each on a pooled connection of its own), so the transaction, which holds its experts'
 * locks, does not wait for them: an entry accepted in between is missed, as if the submit had come a
 * moment earlier. One per subject, in order.
 */
export function prefetchReuse(engine: Pick<Engine, 'store' | 'config' | 'llm' | 'libraryTopics'>, subjects: ReadonlyArray<ReuseSubject & { mode: ReuseMode }>, now: number): Promise<LibraryCandidates[]> {
  return Promise.all(subjects.map((s) => lookUpReuse(engine, s, now)));
}

/** What a library lookup needs of a request. */
export type ReuseSubject = Pick<RequestRecord, 'topic' | 'kind' | 'question' | 'consumer_id'>;

/** A stale entry that would have matched: the request's asks show its answer, which `same` confirms. */
async function noteStaleMatch(engine: Pick<Engine, 'clock' | 'log' | 'config'>, tx: Tx, request: RequestRecord, stale: AnswerRecord[], now: number): Promise<void> {
  const match = bestMatch(request.question, stale, engine.config.library.min_score);
  if (match === null) return;
  request.refreshes = match.entry.id;
  await audit(engine, tx, { request_id: request.id, at: now, type: 'stale_match', actor: 'system', data: { answer_id: match.entry.id, score: match.score } });
  engine.log.info({ request_id: request.id, answer_id: match.entry.id, score: match.score }, 'stale library answer: the expert is shown it');
}

/** Active, fresh entries of the request's topic and kind that could score `minScore` against its question, that its consumer may see. */
export async function reuseCandidates(config: Engine['config'], reads: { answers: AnswerReads }, request: RequestRecord, minScore: number, now: number): Promise<AnswerRecord[]> {
  return (await libraryCandidates(config, reads, request, minScore, now)).fresh;
}

/**
 * Active entries of the request's topic and kind that could score `minScore` against its question
 * (they hold one of its rarer words) and that its consumer may see, fresh and stale apart.
 */
async function libraryCandidates(
  config: Engine['config'],
  reads: { answers: AnswerReads },
  request: ReuseSubject,
  minScore: number,
  now: number,
): Promise<{ fresh: AnswerRecord[]; stale: AnswerRecord[] }> {
  const library = config.library;
  const words = lookupWords(request.question, request.topic, minScore);
  if (words.length === 0) return { fresh: [], stale: [] };
  const found = await reads.answers.reuseCandidates({
    topic: request.topic,
    kind: request.kind,
    words,
    staleBefore: staleBefore(now, library.verify_after),
    limit: REUSE_CANDIDATES,
    ...(library.share === 'same_consumer' ? { consumerId: request.consumer_id } : {}),
  });
  const fresh = (a: AnswerRecord) => isFresh(a, now, library.verify_after);
  return { fresh: found.filter(fresh), stale: found.filter((a) => !fresh(a)) };
}

/**
 * Answers a request with a library entry, in the caller's transaction: it stops waiting for the model,
 * is written if new, gets a pending proposal made of the entry (`confidence` the lexical score or the
 * model's), and `reused {answer_id, score, by}` is audited. Nobody is asked.
 */
export async function reuseEntry(
  engine: Pick<Engine, 'clock' | 'log' | 'review' | 'counters' | 'experts' | 'channels'>,
  tx: Tx,
  request: RequestRecord,
  match: QuestionMatch<AnswerRecord>,
  how: { by: 'lexical' | 'llm'; confidence: number },
  now: number,
): Promise<void> {
  // Nobody is asked, so there is no question to draft.
  await updateRequest(tx, request, { drafting: false, updated_at: now });
  await writeNewRequest(tx, request);
  await audit(engine, tx, {
    request_id: request.id,
    at: now,
    type: 'reused',
    actor: 'system',
    data: { answer_id: match.entry.id, score: match.score, by: how.by },
  });
  await createProposal(engine, tx, request, reusedProposal(match.entry, request, how.confidence, now), now);
  countOne(engine.counters.reuse, 'offered');
  engine.log.info({ request_id: request.id, answer_id: match.entry.id, score: match.score, by: how.by }, 'library answer offered: no expert asked');
}

/** A pending proposal made of a library entry: its answer as delivered then, and who gave it. */
function reusedProposal(entry: AnswerRecord, request: RequestRecord, confidence: number, now: number): ProposalRecord {
  return {
    id: newId('prop'),
    request_id: request.id,
    status: 'pending',
    answer: entry.answer,
    structured: entry.structured ?? { text: entry.answer },
    confidence,
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
