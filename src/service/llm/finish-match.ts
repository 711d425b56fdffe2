import { bestMatch } from '../../core/match-question.js';
import type { LlmJobRecord, RequestRecord } from '../../domain/records.js';
import { answerStatusAt } from '../../domain/answers.js';
import { judgedAMatch } from '../../llm/match-answer.js';
import type { Tx } from '../../store/store.js';
import { type Intake, type Routing, type Drafting, draftsQuestion, queueDraft, updateRequest } from '../engine/index.js';
import { auditCall, auditFallback, type JobOutcome } from './audit-llm-call.js';
import { reuseCandidates, reuseEntry } from '../requests/index.js';
import { routeAndAsk } from '../routing/index.js';

/** The model's verdict on one library entry (`answer_id`, with its lexical `score`). */
export type MatchOutcome = JobOutcome<{ answers_question: boolean; confidence: number; answer_id: string; score: number }>;

/**
 * Ends an answer-matching job (in the caller's transaction). A confident yes reuses the judged entry
 * (`by: "llm"`, the model's confidence); a no routes the request as if nothing matched (drafted first,
 * as any new request); a failed, invalid or late judgement is audited (`llm_fallback`) and the lexical
 * rule decides. An entry retired or gone stale meanwhile is not offered. A request no longer waiting
 * (cancelled, timed out, or already decided at the deadline) only records the call.
 */
export async function finishMatch(engine: Intake, tx: Tx, job: LlmJobRecord, outcome: MatchOutcome, now: number): Promise<void> {
  const fresh = await tx.llmJobs.finish(job.id, now);
  const request = fresh ? await tx.requests.get(job.request_id) : undefined;
  const waiting = request !== undefined && request.status === 'queued' && request.drafting && request.proposal_id === null;
  if (outcome.reply) await auditCall(engine, tx, job, outcome, waiting, now);
  if (!waiting) return;
  const { result } = outcome;
  if (result.ok) {
    if (judgedAMatch(result)) {
      const entry = await tx.answers.get(result.answer_id);
      if (entry && answerStatusAt(entry, now, engine.config.library.verify_after) === 'active') {
        await reuseEntry(engine, tx, request, { entry, score: result.score }, { by: 'llm', confidence: result.confidence }, now);
        return;
      }
    }
  } else {
    await auditFallback(engine, tx, job, result.error, now);
    const minScore = engine.config.library.min_score;
    const match = bestMatch(request.question, await reuseCandidates(engine.config, tx, request, minScore, now), minScore);
    if (match !== null) {
      await reuseEntry(engine, tx, request, match, { by: 'lexical', confidence: match.score }, now);
      return;
    }
  }
  await askAfterJudgement(engine, tx, request, now);
}

/** Routes a request no library entry answers, as a new one would be: its question drafted, then asked, held or failed. */
async function askAfterJudgement(engine: Routing & Drafting, tx: Tx, request: RequestRecord, now: number): Promise<void> {
  if (!(await draftsQuestion(engine, tx, request, now))) await updateRequest(tx, request, { drafting: false, updated_at: now });
  const outcome = await routeAndAsk(engine, tx, request, now);
  if (outcome !== 'failed' && request.drafting) await queueDraft(engine, tx, request, now);
}
