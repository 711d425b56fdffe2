import type { ValidateFunction } from 'ajv';
import { composeAcceptedNotice } from '../../core/compose-ask.js';
import { AppError, badRequest, notFound } from '../../errors.js';
import type { ConsumerRecord, ProposalRecord, RequestRecord } from '../../domain/records.js';
import { compileSchema } from '../../llm/json-schema.js';
import { DEFAULT_KIND_SCHEMA } from '../../llm/structure-answer.js';
import { kindSchemaOf } from '../consumers/index.js';
import type { Reads, Tx } from '../../store/store.js';
import { audit, countOne, emitEvent, queueMessage, type Engine, type Roster } from '../engine/index.js';
import { updateReviewCard } from './review-channel.js';
import { proposalBody } from './proposal-body.js';
import { recordAnswer } from '../library/index.js';

export interface DecisionInput {
  decided_by: string;
  note?: string | undefined;
  reason?: string | undefined;
  /** Who typed the decision when a named token decided (its name is `decided_by`). */
  typed_by?: string | undefined;
  /** Accept only: the reviewer's corrected answer; the expert's text is kept. */
  answer?: string | undefined;
  /** Accept only: the reviewer's structured form, validated against the kind's schema. */
  structured?: unknown;
}

/**
 * Accepts or rejects a pending proposal. Atomic: the conditional
 * update lets exactly one of several concurrent decisions win; the others are no-ops that return the
 * decided proposal, and events are written once. The expert who answered cannot decide their own
 * proposal (409). An accept may carry the reviewer's edit: consumers get the edited answer, and the
 * record keeps the expert's text (`original_answer`) and who edited it (`provenance.edited_by`).
 * Accepting an answer reused from the library counts the reuse on its entry instead of adding an
 * entry, and messages nobody.
 */
export async function decideProposal(
  engine: Roster & Pick<Engine, 'clock' | 'review' | 'counters' | 'llm' | 'libraryTopics'>,
  tx: Tx,
  proposalId: string,
  status: 'accepted' | 'rejected',
  input: DecisionInput,
): Promise<ProposalRecord> {
  const now = engine.clock.now();
  const { proposal, pending } = await proposalToDecide(engine, tx, proposalId, input.decided_by);
  if (!pending) return proposal;
  const request = (await tx.requests.get(proposal.request_id))!;
  const edit = status === 'accepted' ? await reviewerEdit(engine.llm, tx, proposal, request, input) : null;
  const decision = { decided_by: input.decided_by, note: input.note ?? null, reason: input.reason ?? null, decided_at: now };
  if (!(await tx.proposals.decide(proposalId, status, decision))) return (await tx.proposals.get(proposalId))!;
  // The library entry this proposal was made of, if any.
  const reusedFrom = proposal.provenance.reused_from;
  if (reusedFrom !== undefined) countOne(engine.counters.reuse, status);

  let decided: ProposalRecord = { ...proposal, status, decision };
  if (edit) {
    decided = { ...decided, ...edit };
    await tx.proposals.revise(proposalId, edit);
  }
  await tx.requests.update(request.id, { status, updated_at: now });
  await updateReviewCard(engine.review, tx, proposal, now);
  await audit(engine, tx, {
    request_id: request.id,
    at: now,
    type: 'decided',
    actor: `reviewer:${input.decided_by}`,
    data: {
      proposal_id: proposalId,
      status,
      note: decision.note,
      reason: decision.reason,
      ...(input.typed_by !== undefined ? { typed_by: input.typed_by } : {}),
      ...(edit ? { edited: true, original_answer: edit.original_answer, answer: edit.answer } : {}),
    },
  });
  if (status === 'accepted' && reusedFrom !== undefined) {
    // A library answer: the entry already holds it, so it counts one more reuse; nobody was asked, so nobody is told.
    await tx.answers.countReuse(reusedFrom);
    await emitEvent(tx, request, 'proposal_accepted', { proposal: proposalBody(decided) }, now);
  } else if (status === 'accepted') {
    await recordAnswer(engine.libraryTopics, tx, request, decided, now);
    await emitEvent(tx, request, 'proposal_accepted', { proposal: proposalBody(decided) }, now);
    const expert = engine.experts.get(proposal.provenance.expert_id);
    await queueMessage(
      tx,
      {
        expert_id: proposal.provenance.expert_id,
        request_id: request.id,
        ask_id: proposal.provenance.ask_id,
        purpose: 'accepted',
        // On the channel the question went out on.
        channel: proposal.provenance.ask_id ? ((await tx.asks.get(proposal.provenance.ask_id))?.channel ?? null) : null,
        text: composeAcceptedNotice({
          orgName: engine.config.org.name,
          expertName: expert?.name ?? proposal.provenance.expert_name,
          question: request.asked_question ?? request.question,
          edited: edit !== null,
        }),
      },
      now,
    );
  } else {
    await emitEvent(tx, request, 'proposal_rejected', { proposal: proposalBody(decided), reason: input.reason }, now);
  }
  return decided;
}

/**
 * The proposal a decision is about: unknown → 404; already decided → returned as it is (the decision
 * is a no-op); pending → checked that the decider is not the expert who answered (409).
 */
export async function proposalToDecide(engine: Pick<Engine, 'experts'>, reads: Reads, proposalId: string, decidedBy: string): Promise<{ proposal: ProposalRecord; pending: boolean }> {
  const proposal = await reads.proposals.get(proposalId);
  if (!proposal) throw notFound('Proposal', proposalId);
  if (proposal.status !== 'pending') return { proposal, pending: false };
  // The registry as it is now, after the read above (`PUT /experts` swaps it whole).
  if (isAnsweringExpert(engine.experts, decidedBy, proposal)) {
    throw new AppError('conflict', `${proposal.provenance.expert_name} answered this proposal and cannot decide it; another reviewer must.`);
  }
  return { proposal, pending: true };
}

/**
 * Whether the decider is the expert who answered: people, not strings, are compared. The decider
 * (a token's name, a typed `decided_by`, or a chat user as "<name> (slack:<id>)") matches the expert's
 * id or name, as recorded on the proposal or in the registry now, ignoring case and surrounding spaces.
 */
export function isAnsweringExpert(experts: Engine['experts'], decidedBy: string, proposal: ProposalRecord): boolean {
  const fold = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();
  const expert = proposal.provenance;
  const them = new Set([expert.expert_id, expert.expert_name, experts.get(expert.expert_id)?.name ?? expert.expert_name].map(fold));
  const chatUser = /^(.*)\((?:slack|chat):([^)]+)\)\s*$/.exec(decidedBy);
  const decider = chatUser ? [decidedBy, chatUser[1]!, chatUser[2]!] : [decidedBy];
  return decider.some((d) => them.has(fold(d)));
}

/**
 * The accepted proposal's fields after a reviewer's edit, or null when nothing changed. A structured
 * form that only mirrors the answer (`{text}`) follows the edit; one made by the LLM or against a kind
 * schema would no longer describe the edited text, so the reviewer sends the corrected `structured` too
 * (validated against the kind's schema, or the default `{summary, facts}` with an LLM).
 */
async function reviewerEdit(
  llm: Engine['llm'],
  reads: Reads,
  proposal: ProposalRecord,
  request: RequestRecord,
  input: DecisionInput,
): Promise<Pick<ProposalRecord, 'answer' | 'structured' | 'original_answer' | 'provenance'> | null> {
  const answer = input.answer?.trim();
  const changed = answer !== undefined && answer !== proposal.answer;
  if (input.structured !== undefined) checkStructured(llm, await reads.consumers.list(), request, input.structured);
  if (!changed && input.structured === undefined) return null;
  const text = changed ? answer : proposal.answer;
  let structured = input.structured;
  if (structured === undefined) {
    if (!isTextOnly(proposal.structured)) {
      throw badRequest('The structured form was made from the expert\'s text and would not match your edit: send the corrected structured form with the edited answer.');
    }
    structured = { text };
  }
  return {
    answer: text,
    structured,
    original_answer: proposal.answer,
    provenance: { ...proposal.provenance, edited_by: input.decided_by },
  };
}

const isTextOnly = (structured: unknown) =>
  typeof structured === 'object' && structured !== null && Object.keys(structured).length === 1 && 'text' in structured;

/**
 * A reviewer's `structured` must validate against the schema a consumer registered for the request's
 * kind (`kind_schemas`), or, with an LLM, the default `{summary, facts}`; without either there is no
 * structure to correct beyond the text itself.
 */
function checkStructured(llm: Engine['llm'], consumers: readonly ConsumerRecord[], request: RequestRecord, structured: unknown): void {
  const schema = kindSchemaOf(consumers, request.kind) ?? (llm ? DEFAULT_KIND_SCHEMA : null);
  if (schema === null) {
    throw badRequest(`No consumer registered a schema for kind "${request.kind}", so there is no structured form to edit; edit the answer instead.`);
  }
  let validate: ValidateFunction;
  try {
    validate = compileSchema(schema);
  } catch (error) {
    throw badRequest(`The schema registered for kind "${request.kind}" is not a valid JSON Schema: ${(error as Error).message}`);
  }
  if (!validate(structured)) {
    const details = (validate.errors ?? []).map((e) => ({ path: `structured${e.instancePath.replace(/\//g, '.')}`, message: e.message ?? 'is invalid' }));
    throw badRequest(`structured does not match the schema of kind "${request.kind}".`, details);
  }
}
