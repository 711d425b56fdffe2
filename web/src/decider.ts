import { Unauthorized, type Api } from './api.js';
import type { Decide } from './decision.js';
import type { Announce } from './flash.js';
import type { LiveQueue } from './hooks.js';

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

/**
 * Sends a card's decision under the reviewer's name. The card leaves the screen at once; if the call
 * fails it comes back, selected, and the page says why. A decision another reviewer beat is announced
 * as such.
 */
export function decider({ api, queue, reviewer, announce, onUnauthorized, onSelect }: DeciderDeps): Decide {
  return async (item, decision) => {
    const decidedBy = await reviewer();
    if (!decidedBy) return false;
    const id = item.proposal.id;
    const wanted = decision.kind === 'accept' ? 'accepted' : 'rejected';
    queue.hide(id);
    try {
      const result =
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
      const done = decision.kind === 'return' ? result.decision?.reason === 'returned' && result.decision.decided_by === decidedBy : result.status === wanted;
      const verb = { accept: decision.kind === 'accept' && decision.answer ? 'Accepted (edited)' : 'Accepted', reject: 'Rejected', return: `Sent back to ${item.proposal.provenance.expert_name}` }[decision.kind];
      announce(
        done
          ? `${verb}: ${short(item.request.question)}`
          : `Already ${result.status} by ${result.decision?.decided_by ?? 'another reviewer'}: ${short(item.request.question)}`,
      );
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
