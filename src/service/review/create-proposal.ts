import { newId } from '../../ids.js';
import type { AskRecord, ProposalRecord, RequestRecord } from '../../domain/records.js';
import type { Tx } from '../../store/store.js';
import { audit, countProposal, emitEvent, type Engine, type UnstructuredProposal } from '../engine/index.js';
import { postReviewCard } from './review-channel.js';
import { proposalBody } from './proposal-body.js';
import { ruleFor } from './review-rules.js';
import { tellRuleReviewers, type Reaching } from './rule-reviewers.js';

/**
 * The proposal an answer makes: the verbatim answer and its provenance, with a new id. The
 * provenance is fixed at reply time (who answered, when, after an escalation or not), even when the
 * proposal itself is created later, once the answer is structured.
 */
export function proposalFromAnswer(engine: Pick<Engine, 'experts' | 'transportName'>, ask: AskRecord, text: string, now: number): UnstructuredProposal {
  const expertName = engine.experts.get(ask.expert_id)?.name ?? ask.expert_id;
  return {
    id: newId('prop'),
    request_id: ask.request_id,
    status: 'pending',
    answer: text,
    provenance: {
      expert_id: ask.expert_id,
      expert_name: expertName,
      source: expertName,
      transport: engine.transportName,
      answered_at: new Date(now).toISOString(),
      ask_id: ask.id,
      escalated: ask.via === 'escalation' || ask.state === 'escalated',
    },
    decision: null,
    original_answer: null,
  };
}

/**
 * Creates a pending proposal: the request becomes `proposed` and points at it, `proposed` is audited
 * and the `proposal` event queued for auto-accepting subscribers, the review card posted and a rule's
 * reviewers told, all in the caller's transaction.
 * The one place a proposal is created, with or without an LLM.
 */
export async function createProposal(engine: Pick<Engine, 'clock'> & Reaching, tx: Tx, request: RequestRecord, proposal: ProposalRecord, now: number): Promise<void> {
  await countProposal(tx, request, proposal, now);
  await tx.proposals.insert(proposal);
  await tx.requests.update(request.id, { status: 'proposed', proposal_id: proposal.id, held: false, updated_at: now });
  await audit(engine, tx, { request_id: request.id, at: now, type: 'proposed', actor: 'system', data: { proposal_id: proposal.id } });
  // A rule with `auto_accept: false` makes auto-accepting consumers wait for its reviewers too.
  const rule = ruleFor(engine.review, request);
  if (rule?.auto_accept !== false) await emitEvent(tx, request, 'proposal', { proposal: proposalBody(proposal) }, now);
  await postReviewCard(engine.review, tx, proposal, now);
  // The rule's reviewers the review channel and the review mail do not reach are told directly, once.
  if (rule) await tellRuleReviewers(engine, tx, rule, request, proposal, now);
}
