import type { ReviewerEntry } from '../../config/review-rules-schema.js';
import type { ProposalRecord, RequestRecord } from '../../domain/records.js';
import type { Tx, VoteRecord } from '../../store/store.js';
import { queueMessage, type Engine } from '../engine/index.js';
import { entryIdentities, entryText, personOf, type ReviewRule } from './review-rules.js';

/** What reaching a rule's reviewers reads. */
export type Reaching = Pick<Engine, 'review' | 'experts' | 'channels'>;

/**
 * The person a reviewer entry stands for, as votes record them, so a vote is matched to the entry that
 * named its voter; null for a group (many people, any of whom may vote).
 */
export function entryPerson(experts: Engine['experts'], rule: ReviewRule, entry: ReviewerEntry): string | null {
  const identities = entryIdentities(entry);
  if (identities.length === 0 || identities.every((i) => i.startsWith('group:'))) return null;
  return personOf(experts, rule, { by: entryText(entry), identities, admin: false });
}

/** Every entry that may vote under a rule (reviewers, then required sign-offs), each once, never the expert who answered. */
function voters(experts: Engine['experts'], rule: ReviewRule, expertId: string): ReviewerEntry[] {
  const seen = new Set<string>();
  return [...rule.reviewers, ...rule.require].filter((entry) => {
    const key = entryText(entry);
    if (seen.has(key) || entryPerson(experts, rule, entry) === `expert:${expertId}`) return false;
    seen.add(key);
    return true;
  });
}

/** The rule's reviewers and required sign-offs who have not voted yet, as the rule names them (groups always). */
export function stillToVote(experts: Engine['experts'], rule: ReviewRule, expertId: string, votes: readonly VoteRecord[]): string[] {
  const voted = new Set(votes.map((v) => v.person));
  return voters(experts, rule, expertId)
    .filter((entry) => {
      const person = entryPerson(experts, rule, entry);
      return person === null || !voted.has(person);
    })
    .map(entryText);
}

type Reach = { channel: 'slack' | 'teams' | 'email'; address: string };

/**
 * Where a reviewer entry is told directly, or null: a Slack or Teams reviewer is told by the card when
 * that platform has the review channel, and an address of `email.reviewers` by the review mail every
 * pending proposal gets (already told); otherwise the first of Slack, Teams and email that runs and
 * has an address for them.
 */
function reachOf(engine: Reaching, entry: ReviewerEntry): Reach | null {
  const candidates = entryIdentities(entry).flatMap((identity): Reach[] => {
    const [, kind, address] = /^(slack|teams|email):(.+)$/s.exec(identity) ?? [];
    return kind && address ? [{ channel: kind as Reach['channel'], address }] : [];
  });
  const { review } = engine;
  const toldAlready = ({ channel, address }: Reach) =>
    channel === 'email' ? review.emailReviewers.includes(address) : review.channel !== null && (review.channelOn === 'teams') === (channel === 'teams');
  if (candidates.some(toldAlready)) return null;
  const order = ['slack', 'teams', 'email'] as const;
  return order.flatMap((channel) => candidates.filter((c) => c.channel === channel && engine.channels.running.has(channel)))[0] ?? null;
}

/**
 * Queues a direct message to a reviewer entry on its channel: a review mail (with its decision links)
 * by email, a `review_notice` in a Slack or Teams direct chat. Returns whether it queued one.
 */
async function tell(engine: Reaching, tx: Tx, entry: ReviewerEntry, proposal: Pick<ProposalRecord, 'id' | 'request_id'>, text: string, now: number): Promise<boolean> {
  const reach = reachOf(engine, entry);
  if (!reach) return false;
  const purpose = reach.channel === 'email' ? 'review_mail' : 'review_notice';
  await queueMessage(tx, { expert_id: reach.address, request_id: proposal.request_id, ask_id: null, proposal_id: proposal.id, purpose, channel: reach.channel, text }, now);
  return true;
}

const clipped = (question: string) => (question.length > 120 ? `${question.slice(0, 119)}…` : question);

/**
 * A new proposal a rule governs: each of its reviewers (and required sign-offs) who is not told by the
 * review channel or the review mail gets one direct message, in the transaction that creates it.
 */
export async function tellRuleReviewers(engine: Reaching, tx: Tx, rule: ReviewRule, request: RequestRecord, proposal: ProposalRecord, now: number): Promise<void> {
  const needed = rule.approvals === 1 ? 'one approval' : `${rule.approvals} approvals`;
  const text =
    `An answer waits for your vote under the review rule "${rule.name}" (${needed} needed): "${clipped(request.question)}", ` +
    `answered by ${proposal.provenance.expert_name}. Accept or reject it in the review queue.`;
  for (const entry of voters(engine.experts, rule, proposal.provenance.expert_id)) await tell(engine, tx, entry, proposal, text, now);
}

/**
 * A reminder to the reviewers of a pending rule-governed proposal whose vote is still missing (the
 * caller decides it is time: once per `review.remind_after`). Returns how many were reminded.
 */
export async function remindMissingVoters(engine: Reaching, tx: Tx, rule: ReviewRule, request: RequestRecord, proposal: ProposalRecord, waited: string, now: number): Promise<number> {
  const votes = await tx.votes.list(proposal.id);
  const voted = new Set(votes.map((v) => v.person));
  const accepts = votes.filter((v) => v.decision === 'accept').length;
  const text =
    `Reminder: your vote is still missing on an answer waiting ${waited} under the review rule "${rule.name}" ` +
    `(${accepts} of ${rule.approvals} approvals so far): "${clipped(request.question)}".`;
  let reminded = 0;
  for (const entry of voters(engine.experts, rule, proposal.provenance.expert_id)) {
    const person = entryPerson(engine.experts, rule, entry);
    if (person !== null && voted.has(person) === false && (await tell(engine, tx, entry, proposal, text, now))) reminded++;
  }
  return reminded;
}
