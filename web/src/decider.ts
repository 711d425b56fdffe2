import { Unauthorized, type Api } from './api.js';
import type { Decide, Decision } from './decision.js';
import type { Announce } from './flash.js';
import type { LiveQueue } from './hooks.js';
import type { DecidedProposal, QueueItem } from './wire.js';

const short = (text: string) => (text.length > 60 ? `${text.slice(0, 57)}…` : text);

export interface DeciderDeps {
  api: Api;
  queue: LiveQueue;
  reviewer: () => Promise<string | null>;
  announce: Announce;
  onUnauthorized: () => void;
  /** Selects a proposal that came back because its decision failed. */
  onSelect: (id: string) => void;
}

/** Whether an accept is only one vote of several: the proposal will still wait for other reviewers after it. */
function acceptStaysPending(item: QueueItem): boolean {
  const { votes = [], approvals_needed: needed = 1 } = item.proposal;
  return votes.filter((v) => v.decision === 'accept').length + 1 < needed;
}

/** What the page says after a decision the server took: its own words when a review rule shaped them. */
function saying(item: QueueItem, decision: Decision, result: DecidedProposal, decidedBy: string): string {
  const question = short(item.request.question);
  const done = decision.kind === 'return' ? result.decision?.reason === 'returned' && result.decision.decided_by === decidedBy : result.status === (decision.kind === 'accept' ? 'accepted' : 'rejected');
  if (!done) return `Already ${result.status} by ${result.decision?.decided_by ?? 'another reviewer'}: ${question}`;
  // "Accepted: 2 of 2 approvals under the review rule …" says more than the plain verb.
  if (result.message && !/^(Accepted|Rejected)\.$/.test(result.message) && decision.kind !== 'return') return `“${question}”: ${result.message}`;
  const verb = { accept: decision.kind === 'accept' && decision.answer ? 'Accepted (edited)' : 'Accepted', reject: 'Rejected', return: `Sent back to ${item.proposal.provenance.expert_name}` }[decision.kind];
  return `${verb}: ${question}`;
}

/**
 * Sends a card's decision under the reviewer's name. The card leaves the screen at once, unless the
 * decision is one vote of several; a proposal that still waits for other votes stays (or comes back)
 * with its votes, and the page says what remains. If the call fails the card comes back, selected, and
 * the page says why (a review rule's refusal in its own words). A decision another reviewer beat is
 * announced as such.
 */
export function decider({ api, queue, reviewer, announce, onUnauthorized, onSelect }: DeciderDeps): Decide {
  return async (item, decision) => {
    const decidedBy = await reviewer();
    if (!decidedBy) return false;
    const id = item.proposal.id;
    const stays = decision.kind === 'accept' && acceptStaysPending(item);
    if (!stays) queue.hide(id);
    try {
      const result: DecidedProposal =
        decision.kind === 'accept'
          ? await api.accept(id, {
            decided_by: decidedBy,
            ...(decision.note ? { note: decision.note } : {}),
            ...(decision.answer ? { answer: decision.answer } : {}),
            ...(decision.structured !== undefined ? { structured: decision.structured } : {}),
          })
          : decision.kind === 'reject'
            ? await api.reject(id, { decided_by: decidedBy, reason: decision.reason })
            : await api.returnProposal(id, { decided_by: decidedBy, ...(decision.instructions ? { instructions: decision.instructions } : {}) });
      if (decision.kind !== 'return' && result.status === 'pending') {
        // A vote recorded: the proposal waits for others, so its card stays with the vote on it.
        if (!stays) queue.unhide(id);
        const { message, ...proposal } = result;
        queue.update(proposal);
        announce(`“${short(item.request.question)}”: ${message ?? 'Your vote is recorded; the proposal waits for other reviewers.'}`);
        return true;
      }
      if (stays) queue.hide(id);
      announce(saying(item, decision, result, decidedBy));
      return true;
    } catch (error) {
      if (error instanceof Unauthorized) {
        onUnauthorized();
        return false;
      }
      queue.unhide(id);
      onSelect(id);
      announce(`Could not ${decision.kind} “${short(item.request.question)}”: ${error instanceof Error ? error.message : String(error)}`, 'error');
      return false;
    }
  };
}
