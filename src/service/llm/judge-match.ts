import { bestMatch } from '../../core/match-question.js';
import type { RequestRecord } from '../../domain/records.js';
import type { LlmCall } from '../../llm/create-llm-client.js';
import { checkMatch, matchCall } from '../../llm/match-answer.js';
import type { Engine } from '../engine/index.js';
import type { MatchOutcome } from './finish-match.js';
import { reuseCandidates } from '../requests/index.js';

/**
 * The judging call for a request waiting on one: the entry with the best lexical score at or above
 * `library.llm_min_score` (read now, so an entry retired meanwhile is not judged), and how to read
 * the reply. One entry per request: one call, bounded by `llm.timeout`. Null when no entry is close
 * enough any more.
 */
export async function judgeCall(
  engine: Pick<Engine, 'store' | 'clock' | 'config'>,
  request: RequestRecord,
): Promise<{ call: Omit<LlmCall, 'signal'>; check: (content: string) => MatchOutcome['result'] } | null> {
  const now = engine.clock.now();
  const minScore = engine.config.library.llm_min_score;
  const candidates = await reuseCandidates(engine.config, engine.store, request, minScore, now);
  // A swapped word may be a synonym: the model tells.
  const best = bestMatch(request.question, candidates, minScore, { swaps: 'allowed' });
  if (best === null) return null;
  return {
    call: matchCall({
      topic: request.topic,
      kind: request.kind,
      question: request.question,
      earlierQuestion: best.entry.question,
      earlierAnswer: best.entry.answer,
    }),
    check: (content) => {
      const checked = checkMatch(content);
      return checked.ok ? { ...checked, answer_id: best.entry.id, score: best.score } : checked;
    },
  };
}
