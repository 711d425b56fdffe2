import type { ProposalRecord } from '../../domain/records.js';
import type { RequestSummary } from '../../store/store.js';
import type { Engine } from '../engine/index.js';
import { askedQuestion, proposalBody, type ProposalBody } from './proposal-body.js';

/** One entry of the reviewer's queue: a pending proposal with what a reviewer needs from its request. */
export interface QueueItem {
  proposal: ProposalBody;
  request: Omit<RequestSummary, 'drafting' | 'created_at'> & { created_at: string };
  /** Earlier answers on this request that a reviewer sent back, oldest first. */
  history: ReturnedAnswer[];
}

export interface ReturnedAnswer {
  proposal_id: string;
  answer: string;
  instructions: string | null;
  returned_by: string;
  returned_at: string;
}

/**
 * The reviewer's queue, oldest first: the pending proposals joined with the question, topic, consumer
 * and reason of their requests. The web UI (`GET /queue` and its stream) and MCP's `queue` tool show it.
 * Three reads however long the queue is: the pending proposals, what the queue shows of their requests,
 * and the answers sent back on them (each request's other proposals are not read: a queue of hundreds
 * spent most of its time turning rows nobody shows into records).
 */
export async function queueView(store: Engine['store']): Promise<QueueItem[]> {
  const pending = await store.proposals.pending();
  const ids = [...new Set(pending.map((p) => p.request_id))];
  const [requests, returned] = await Promise.all([store.requests.summaries(ids), store.proposals.returnedFor(ids)]);
  const items: QueueItem[] = [];
  for (const p of pending) {
    const request = requests.get(p.request_id);
    if (!request) continue;
    items.push({
      proposal: proposalBody(p),
      request: {
        id: request.id,
        consumer_id: request.consumer_id,
        kind: request.kind,
        topic: request.topic,
        question: request.question,
        asked_question: askedQuestion(request),
        asked_because: request.asked_because,
        status: request.status,
        created_at: new Date(request.created_at).toISOString(),
      },
      history: returnedAnswers(returned.get(request.id) ?? []),
    });
  }
  return items;
}

/** The answers a reviewer sent back on a request (its returned proposals, oldest first), with their instructions. */
function returnedAnswers(proposals: readonly ProposalRecord[]): ReturnedAnswer[] {
  return proposals.map((p) => ({
    proposal_id: p.id,
    answer: p.answer,
    instructions: p.decision!.note,
    returned_by: p.decision!.decided_by,
    returned_at: new Date(p.decision!.decided_at).toISOString(),
  }));
}
