import { hourOf } from '../../core/insight-buckets.js';
import type { AskRecord, ProposalRecord, Reason, RequestRecord, RequestStatus } from '../../domain/records.js';
import type { InsightCount, InsightKey, Tx } from '../../store/store.js';
import { isNewRequest } from './unwritten-request.js';

/**
 * The insight rollups, counted in the transaction of each event they count (docs/insights.md). A
 * request counts in the hour it was submitted, its outcome moving with it; asks, replies, proposals
 * and decisions count in their own hour. Every count goes to the rows of everything ('') and, when it
 * concerns one expert, to theirs.
 */

const keyAt = (request: Pick<RequestRecord, 'topic' | 'consumer_id'>, at: number): InsightKey => ({ hour: hourOf(at), topic: request.topic, consumer: request.consumer_id });
const submitted = (request: RequestRecord): InsightKey => keyAt(request, request.created_at);
const ALL = '';

/** The column a request's status counts in beside `requests`: null while it is open. */
export function outcomeColumn(status: RequestStatus, reason: Reason | null): InsightCount | null {
  if (status === 'accepted' || status === 'rejected') return status;
  if (status === 'failed') return `failed_${reason?.code ?? 'error'}` as InsightCount;
  return null;
}

/** The asks sent on a request not written yet (expert, time): all in this transaction, so known here without a read. */
const askedOnNew = new WeakMap<RequestRecord, Array<{ expert: string; at: number }>>();

/**
 * A request just written: counted at its submission hour, in the rows of everything and of every
 * expert already sent an ask; the asks sent in that same hour are counted with it (one count a row,
 * where counting them apart made two).
 */
export async function countNewRequest(tx: Tx, request: RequestRecord): Promise<void> {
  const asks = askedOnNew.get(request) ?? [];
  askedOnNew.delete(request);
  const key = submitted(request);
  const outcome = outcomeColumn(request.status, request.reason);
  const base = { requests: 1, asked_requests: asks.length > 0 ? 1 : 0, ...(outcome ? { [outcome]: 1 } : {}) };
  // Per expert asked, their asks sent in the submission's hour (a count of 0 adds nothing).
  const asksOf = new Map<string, number>();
  for (const ask of asks) {
    const sameHour = hourOf(ask.at) === key.hour;
    asksOf.set(ask.expert, (asksOf.get(ask.expert) ?? 0) + (sameHour ? 1 : 0));
    if (!sameHour) await tx.insights.add(keyAt(request, ask.at), [ALL, ask.expert], { asks: 1 });
  }
  await tx.insights.add(key, [ALL], { ...base, asks: [...asksOf.values()].reduce((a, b) => a + b, 0) });
  for (const [expert, n] of asksOf) await tx.insights.add(key, [expert], { ...base, asks: n });
}

/** An open request ends (`status`): its outcome counts at its submission hour. Not written yet: its insert counts it. */
export async function countOutcome(tx: Tx, request: RequestRecord, status: RequestStatus, reason: Reason | null): Promise<void> {
  const column = outcomeColumn(status, reason);
  if (column === null || isNewRequest(request)) return;
  await tx.insights.addToRequest(request.id, submitted(request), { [column]: 1 });
}

/** The request becomes `escalated` (before its `escalated` audit entry is written). */
export async function countEscalation(tx: Tx, request: RequestRecord): Promise<void> {
  await tx.insights.addEscalated(request.id, submitted(request));
}

/** An ask went out at `sentAt`. */
export async function countAskSent(tx: Tx, request: RequestRecord, ask: AskRecord, sentAt: number): Promise<void> {
  if (isNewRequest(request)) {
    // Counted with the request, as it is written.
    let asks = askedOnNew.get(request);
    if (!asks) askedOnNew.set(request, (asks = []));
    asks.push({ expert: ask.expert_id, at: sentAt });
    return;
  }
  await tx.insights.add(keyAt(request, sentAt), [ALL, ask.expert_id], { asks: 1 });
  await tx.insights.addAsked(request.id, ask.id, ask.expert_id, submitted(request));
}

/** An expert's `skip` or a mute of an ask of theirs. */
export async function countPass(tx: Tx, request: RequestRecord, expertId: string, what: 'skips' | 'mutes', now: number): Promise<void> {
  await tx.insights.add(keyAt(request, now), [ALL, expertId], { [what]: 1 });
}

/** Every candidate was at a cap: the request is held. */
export async function countHold(tx: Tx, request: RequestRecord, now: number): Promise<void> {
  await tx.insights.add(keyAt(request, now), [ALL], { cap_holds: 1 });
}

/**
 * A proposal is created (before it is inserted). One an expert's reply made is an answer, at the time of
 * the reply; the request's first such answer also counts its time from submission.
 */
export async function countProposal(tx: Tx, request: RequestRecord, proposal: ProposalRecord, now: number): Promise<void> {
  const experts = [ALL, proposal.provenance.expert_id];
  await tx.insights.add(keyAt(request, now), experts, { proposals: 1 });
  if (proposal.provenance.ask_id === null) return;
  const answeredAt = Date.parse(proposal.provenance.answered_at);
  await tx.insights.add(keyAt(request, answeredAt), experts, { answers: 1 });
  const earlier = isNewRequest(request) ? [] : await tx.proposals.listFor(request.id);
  if (earlier.some((p) => p.id !== proposal.id && p.provenance.ask_id !== null)) return;
  await tx.insights.addTime(keyAt(request, answeredAt), experts, 'answer', (answeredAt - request.created_at) / 1000);
}

/** A reviewer accepted or rejected a proposal: its time to the decision, a library answer, the request's outcome. */
export async function countDecision(tx: Tx, request: RequestRecord, proposal: ProposalRecord, status: 'accepted' | 'rejected', now: number): Promise<void> {
  const experts = [ALL, proposal.provenance.expert_id];
  await tx.insights.addTime(keyAt(request, now), experts, 'decision', (now - proposal.created_at) / 1000);
  if (status === 'accepted' && proposal.provenance.reused_from !== undefined) await tx.insights.add(keyAt(request, now), experts, { library_answers: 1 });
  await countOutcome(tx, request, status, null);
}

/** A reviewer sent a proposal back (to its expert, or, for a library answer, to be asked of an expert). */
export async function countSentBack(tx: Tx, request: RequestRecord, proposal: ProposalRecord, now: number): Promise<void> {
  await tx.insights.add(keyAt(request, now), [ALL, proposal.provenance.expert_id], { sent_back: 1 });
}
