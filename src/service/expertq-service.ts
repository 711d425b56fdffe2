import type { ExpertEntry } from '../config/expert-schema.js';
import type { ConsumerHandlers } from '../delivery/delivery-dispatcher.js';
import { AppError, notFound } from '../errors.js';
import type { ProposalRecord, RequestRecord } from '../domain/records.js';
import type { RequestQuery } from '../store/store.js';
import type { AwayRequest, ExpertHome, InboundOutcome, InboundReply, ReviewAction, ReviewOutcome } from '../transport/transport.js';
import { cancelRequest, type SubmitInput, type SubmitResult, libraryFor, submitAll, SubmitBatcher, workMadeBy, waitForDecision, auditTrail, expertAuditTrail, listRequests, requestView, type RequestView } from './requests/index.js';
import { consumerView, deleteConsumer, deliveryView, listDeliveries, listKinds, registerConsumer, retryDelivery, type ConsumerInput, type DeliveryListQuery } from './consumers/index.js';
import { decideOrVote, type DecisionInput, type DecisionOutcome, reviewFromChat, type ReviewSurface, SLACK_REVIEW, returnProposal, type ReturnInput, queueView, type QueueItem, type QueueViewer, reviewedProposals, type ReviewedProposal } from './review/index.js';
import { listInstances } from './operations/index.js';
import { readInsights } from './insights/index.js';
import type { InsightsQuery, InsightsView } from '../wire/insight-schemas.js';
import { endSession, isSessionLive, listSessions, revokeSessions, startSession, type SignedIn } from './sessions/index.js';
import { endAway, setAway, type AwayInput, awayFromChat, expertHome, listExperts, muteExpert, replaceExperts, unmuteExpert, type ExpertView } from './experts/index.js';
import { receiveAutoReply, receiveInbound, receiveRefused, receiveReply, receiveUndeliverable, type ChannelNotice, type ReplyInput, type ReplyResult } from './replies/index.js';
import { liveStates, withLeasedAsks } from './engine/index.js';
import { listTopics, type TopicView } from './availability/index.js';
import { addAnswers, getAnswer, libraryStats, listAnswers, retireAnswer, type AnswerListQuery, type AnswerView, type AnswerViewer, type CuratedInput } from './library/index.js';
import type { ExpertqServiceOptions } from './service-options.js';
import { ServiceBase } from './service-base.js';

export type { ExpertqServiceOptions };

/**
 * The operations of expertq behind one object: HTTP routes, the scheduler and the SDK call these.
 * Each operation commits its state change, audit rows, events and messages in one transaction (shared
 * with the other operations of the same event-loop turn: group commit) and then wakes the
 * dispatchers, which deliver what was committed.
 */
export class ExpertqService extends ServiceBase {
  private readonly submits = new SubmitBatcher(async (inputs) => {
    const library = await libraryFor(this, inputs);
    // The asks go out once the batch commits, with no claim; the dispatcher is woken only for other messages.
    const { value: results, leased } = await withLeasedAsks(this.store, this.messages, (tx) => submitAll(this, tx, inputs, library), false, { optimisticRouting: true });
    const wake = workMadeBy(results);
    if (leased.unleased > 0) this.onMessagesQueued();
    if (wake.drafts) this.llmWorker?.kick();
    if (wake.events) this.onEventsQueued();
    this.changes.publish();
    return results;
  });

  async submitRequest(input: SubmitInput): Promise<SubmitResult> {
    const { reused, ...result } = await this.submits.submit(input).catch((error: unknown) => {
      if (error instanceof AppError && error.code === 'rate_limited') {
        this.counters.rateLimitedSubmits++;
        this.log.info({ consumer_id: input.consumer_id }, 'submit refused: the consumer reached its daily quota');
      }
      throw error;
    });
    this.log.info({ request_id: result.request_id, status: result.status, consumer_id: input.consumer_id, reused }, 'request submitted');
    return result;
  }

  async getRequest(id: string): Promise<RequestView> {
    const request = await this.store.requests.get(id);
    if (!request) throw notFound('Request', id);
    return requestView(this, request);
  }

  /**
   * Resolves with the request once it is accepted, rejected or failed, or at `timeoutMs` (or when
   * `signal` aborts, or at shutdown) with its state then. Unknown id: throws 404 at once.
   */
  waitForDecision(id: string, timeoutMs: number, signal?: AbortSignal, changedFrom?: string): Promise<RequestView> {
    return waitForDecision(this, id, timeoutMs, [signal, this.stopping.signal], changedFrom);
  }

  listRequests(query: RequestQuery): Promise<{ items: RequestView[]; next_cursor: string | null }> {
    return listRequests(this, query);
  }

  async cancelRequest(id: string, by = 'api'): Promise<RequestView> {
    const request: RequestRecord = await this.store.transaction((tx) => cancelRequest(this, tx, id, by));
    this.log.info({ request_id: id }, 'request cancel');
    return this.committed(await requestView(this, request));
  }

  async receiveReply(input: ReplyInput): Promise<ReplyResult> {
    const result = await this.store.transaction((tx) => receiveReply(this, tx, input));
    this.log.info({ expert_id: input.expert_id, request_id: result.request_id, outcome: result.outcome, proposal_id: result.proposal_id }, 'reply received');
    return this.committed(result);
  }

  /** A message, button or modal from a chat platform; committed (once per event id) before it resolves. */
  async receiveInbound(input: InboundReply): Promise<InboundOutcome> {
    const result = await this.store.transaction((tx) => receiveInbound(this, tx, input));
    this.log.info({ expert_id: input.expertId, request_id: result.request_id, outcome: result.outcome, event_id: input.eventId }, 'chat reply received');
    return this.committed(result);
  }

  /** What a channel reports besides replies (an out-of-office, a bounce, a refusal); committed once per event id before it resolves. */
  async receiveNotice(notice: ChannelNotice): Promise<InboundOutcome> {
    const result = await this.store.transaction((tx) =>
      notice.kind === 'auto_reply' ? receiveAutoReply(this, tx, notice) : notice.kind === 'undeliverable' ? receiveUndeliverable(this, tx, notice) : receiveRefused(this, tx, notice),
    );
    this.log.info({ kind: notice.kind, request_id: result.request_id, outcome: result.outcome, event_id: notice.eventId }, 'channel notice received');
    return this.committed(result);
  }

  /** A decision from the chat platform's review channel; committed (once per event id) before it resolves. */
  async reviewFromChat(action: ReviewAction, surface: ReviewSurface = SLACK_REVIEW): Promise<ReviewOutcome> {
    const result = await this.store.transaction((tx) => reviewFromChat(this, tx, action, surface));
    this.log.info({ proposal_id: action.proposalId, user: action.userId, action: action.action, outcome: result.outcome }, 'review from chat');
    return this.committed(result);
  }

  listPendingProposals(): Promise<ProposalRecord[]> {
    return this.store.proposals.pending();
  }

  /** The reviewer's queue: pending proposals with their requests, votes and returned answers, oldest first; a viewer's shows what they may decide. */
  queue(viewer: QueueViewer | null = null): Promise<QueueItem[]> {
    return queueView(this, viewer);
  }

  /** Proposals as reviewers see them, with their votes and the approvals their rule needs. */
  reviewed(proposals: readonly ProposalRecord[]): Promise<ReviewedProposal[]> {
    return reviewedProposals(this, this.store, proposals);
  }

  async getProposal(id: string): Promise<ProposalRecord> {
    const proposal = await this.store.proposals.get(id);
    if (!proposal) throw notFound('Proposal', id);
    return proposal;
  }

  async decide(id: string, status: 'accepted' | 'rejected', input: DecisionInput): Promise<ProposalRecord> {
    return (await this.decideOrVote(id, status, input)).proposal;
  }

  /** A decision, or a vote when a review rule covers the proposal: the proposal afterwards, and what happened and what remains. */
  async decideOrVote(id: string, status: 'accepted' | 'rejected', input: DecisionInput): Promise<DecisionOutcome> {
    const outcome = await this.store.transaction((tx) => decideOrVote(this, tx, id, status, input));
    const { proposal } = outcome;
    this.log.info({ proposal_id: id, request_id: proposal.request_id, status: proposal.status, decided_by: input.decided_by, outcome: outcome.message }, 'proposal decision');
    return this.committed(outcome);
  }

  /** Sends a pending proposal back to its expert with instructions. */
  async returnProposal(id: string, input: ReturnInput): Promise<ProposalRecord> {
    const proposal = await this.store.transaction((tx) => returnProposal(this, tx, id, input));
    this.log.info({ proposal_id: id, request_id: proposal.request_id, decided_by: input.decided_by }, 'proposal sent back to the expert');
    return this.committed(proposal);
  }

  listExperts(): Promise<ExpertView[]> {
    return listExperts(this);
  }

  /** The instances serving from this database, with warnings when they disagree (admin). */
  listInstances() {
    return listInstances(this);
  }

  listTopics(): Promise<TopicView[]> {
    return listTopics(this, this.clock.now());
  }

  replaceExperts(entries: ExpertEntry[]): Promise<ExpertView[]> {
    return replaceExperts(this, entries);
  }

  async muteExpert(id: string, mutedBy: string): Promise<ExpertView> {
    return this.committed(await muteExpert(this, id, mutedBy));
  }

  async unmuteExpert(id: string): Promise<ExpertView> {
    return this.committed(await unmuteExpert(this, id));
  }

  /** Sets an expert away until a time, with an optional delegate; their waiting questions pass on at once. */
  async setAway(id: string, input: AwayInput, by: string): Promise<ExpertView> {
    await setAway(this, id, input, by);
    return this.committed((await listExperts(this)).find((e) => e.id === id)!);
  }

  /** What the expert's home page in the chat platform shows; null for someone who is not an expert. */
  expertHome(id: string): Promise<ExpertHome | null> {
    return expertHome(this, id);
  }

  /** The expert sets themselves away (or back, with null) from the chat platform; a refusal comes back as a sentence. */
  async awayFromChat(id: string, away: AwayRequest | null): Promise<string | null> {
    return this.committed(await awayFromChat(this, id, away));
  }

  /** Ends an expert's away spell now; nothing happens when they are not away. */
  async endAway(id: string, by: string): Promise<ExpertView> {
    await endAway(this, id, by);
    return this.committed((await listExperts(this)).find((e) => e.id === id)!);
  }

  audit(requestId: string) {
    return auditTrail(this.store, requestId);
  }

  /** An expert's own audit trail (away, back). */
  expertAudit(expertId: string) {
    return expertAuditTrail(this, expertId);
  }

  /** Registers a webhook consumer (HTTP) or, with `handlers`, an in-process one (SDK). */
  async registerConsumer(input: ConsumerInput, handlers?: ConsumerHandlers): Promise<{ id: string; signing_secret: string | null }> {
    const result = await registerConsumer(this, input, this.allowPrivateWebhooks);
    this.deliveries.setHandlers(input.id, input.delivery.type === 'in_process' ? (handlers ?? {}) : null);
    return this.committed(result);
  }

  async listConsumers() {
    return (await this.store.consumers.list()).map(consumerView);
  }

  async deleteConsumer(id: string): Promise<void> {
    await deleteConsumer(this, id);
    this.deliveries.setHandlers(id, null);
  }

  listKinds() {
    return listKinds(this.store);
  }

  listDeliveries(query: DeliveryListQuery) {
    return listDeliveries(this.store, query);
  }

  async retryDelivery(id: string) {
    const delivery = await retryDelivery(this, id);
    this.log.info({ delivery_id: id, consumer_id: delivery.consumer_id }, 'delivery replay requested');
    return this.committed(deliveryView(delivery));
  }

  /** Records a sign-in through the identity provider; the id its session cookie carries. */
  startSession(who: SignedIn, expiresAt: number): Promise<string> {
    return startSession(this, who, expiresAt);
  }

  /** Whether a session is live now (not signed out, revoked or expired), as the database says. */
  isSessionLive(id: string): Promise<boolean> {
    return isSessionLive(this, id);
  }

  /** Signs a session out; whether it was live. */
  endSession(id: string): Promise<boolean> {
    return endSession(this.store, id);
  }

  /** The live sessions (admin). */
  listSessions() {
    return listSessions(this);
  }

  /** Ends every live session of one person (admin); how many. */
  async revokeSessions(name: string, by: string | null): Promise<number> {
    const ended = await revokeSessions(this, name);
    this.log.info({ name, ended, by }, 'sessions revoked');
    return ended;
  }

  /** The answer library as `viewer` may read it: a consumer sees only entries it may be offered. */
  listAnswers(viewer: AnswerViewer, query: AnswerListQuery): Promise<{ items: AnswerView[]; next_cursor: string | null }> {
    return listAnswers(this, viewer, query);
  }

  getAnswer(viewer: AnswerViewer, id: string): Promise<AnswerView> {
    return getAnswer(this, viewer, id);
  }

  /** Curated entries, all or none; `at` names an entry the way the caller counts them in an error. */
  addAnswers(inputs: readonly CuratedInput[], by: string, at: (index: number) => string, options?: Parameters<typeof addAnswers>[4]): Promise<AnswerView[]> {
    return addAnswers(this, inputs, by, at, options);
  }

  retireAnswer(id: string, input: { by: string; reason: string }): Promise<AnswerView> {
    return retireAnswer(this, id, input);
  }

  libraryStats() {
    return libraryStats(this);
  }

  /** The insights of a window, from the rollups only (docs/insights.md). */
  insights(query: InsightsQuery): Promise<InsightsView> {
    return readInsights(this, query);
  }

  /** Every expert's open, queued and today's asks as committed now (what `/metrics` reports). */
  expertStatesNow() {
    return liveStates(this, this.store, null, this.clock.now());
  }
}
