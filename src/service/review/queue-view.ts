import type { ProposalRecord } from '../../domain/records.js';
import type { RequestSummary } from '../../store/store.js';
import type { Engine } from '../engine/index.js';
import { askedQuestion, proposalBody } from './proposal-body.js';
import { ruleFor, type Decider } from './review-rules.js';
import { showsTo, withVotes, type ReviewedProposal } from './review-view.js';

/** Whose queue: only what they may decide, and with `mine` only what still waits for their vote. */
export interface QueueViewer {
  decider: Decider;
  mine: boolean;
}

/** One entry of the reviewer's queue: a pending proposal with what a reviewer needs from its request. */
export interface QueueItem {
  proposal: ReviewedProposal;
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
 * The reviewer's queue, oldest first (with a viewer: only what they may decide, see `showsTo`): the pending proposals joined with the question, topic, consumer
 * and reason of their requests. The web UI (`GET /queue` and its stream) and MCP's `queue` tool show it.
 * Three reads however long the queue is: the pending proposals, what the queue shows of their requests,
 * and the answers sent back on them (each request's other proposals are not read: a queue of hundreds
 * spent most of its time turning rows nobody shows into records).
 */
export async function queueView(engine: Pick<Engine, 'store' | 'review' | 'experts'>, viewer: QueueViewer | null = null): Promise<QueueItem[]> {
  const { store } = engine;
  const pending = await store.proposals.pending();
  const ids = [...new Set(pending.map((p) => p.request_id))];
  const [requests, returned, votes] = await Promise.all([store.requests.summaries(ids), store.proposals.returnedFor(ids), store.votes.listMany(pending.map((p) => p.id))]);
  const items: QueueItem[] = [];
  for (const p of pending) {
    const request = requests.get(p.request_id);
    if (!request) continue;
    const cast = votes.get(p.id) ?? [];
    if (viewer && !showsTo(engine, request, cast, viewer.decider, viewer.mine)) continue;
    items.push({
      proposal: withVotes(engine, proposalBody(p), cast, ruleFor(engine.review, request)),
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
