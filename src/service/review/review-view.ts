import type { ProposalRecord } from '../../domain/records.js';
import type { Reads, VoteRecord } from '../../store/store.js';
import type { Engine } from '../engine/index.js';
import { proposalBody, type ProposalBody } from './proposal-body.js';
import { mayDecide, personOf, ruleFor, type Decider, type ReviewRule } from './review-rules.js';
import { stillToVote } from './rule-reviewers.js';

/** A vote as the API shows it. */
export interface VoteBody {
  by: string;
  decision: 'accept' | 'reject';
  note: string | null;
  reason: string | null;
  at: string;
}

/**
 * A proposal as reviewers see it: with review rules configured, the votes cast on it and how many
 * accepts it needs (1 when no rule covers it); without rules, as it always was.
 */
export type ReviewedProposal = ProposalBody & { votes?: VoteBody[]; approvals_needed?: number; may_vote?: string[] };

/** The proposal's body with its votes, the approvals its rule needs and who may still vote, while any review rule is configured. */
export function withVotes(engine: Pick<Engine, 'review' | 'experts'>, body: ProposalBody, votes: readonly VoteRecord[], rule: ReviewRule | null): ReviewedProposal {
  if ((engine.review.rules ?? []).length === 0) return body;
  const stillOpen = rule && body.status === 'pending';
  return {
    ...body,
    votes: votes.map(voteBody),
    approvals_needed: rule?.approvals ?? 1,
    ...(stillOpen ? { may_vote: stillToVote(engine.experts, rule, body.provenance.expert_id, votes) } : {}),
  };
}

export const voteBody = (v: VoteRecord): VoteBody => ({ by: v.by, decision: v.decision, note: v.note, reason: v.reason, at: new Date(v.at).toISOString() });

/** The wire form of proposals with their votes and the approvals their rule needs, in two reads however many. */
export async function reviewedProposals(engine: Pick<Engine, 'review' | 'experts'>, reads: Reads, proposals: readonly ProposalRecord[]): Promise<ReviewedProposal[]> {
  const ids = proposals.map((p) => p.id);
  const [requests, votes] = await Promise.all([reads.requests.summaries([...new Set(proposals.map((p) => p.request_id))]), reads.votes.listMany(ids)]);
  return proposals.map((p) => {
    const request = requests.get(p.request_id);
    const rule = request ? ruleFor(engine.review, request) : null;
    return withVotes(engine, proposalBody(p), votes.get(p.id) ?? [], rule);
  });
}

/**
 * Whether a pending proposal shows in a reviewer's queue: one no rule covers shows to every reviewer
 * (and, with `mine`, waits for each of them until decided); one a rule covers shows to the people the
 * rule lets decide, and with `mine` only while their vote is missing.
 */
export function showsTo(
  engine: Pick<Engine, 'review' | 'experts'>,
  request: { topic: string; kind: string },
  votes: readonly VoteRecord[],
  decider: Decider,
  mine: boolean,
): boolean {
  const rule = ruleFor(engine.review, request);
  if (!rule) return true;
  if (!mayDecide(engine.review, rule, decider)) return false;
  if (!mine) return true;
  const person = personOf(engine.experts, rule, decider);
  return !votes.some((v) => v.person === person);
}
