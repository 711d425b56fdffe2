import { channelPhrase } from '../wire/channel-phrase.js';
import { relativeText, timeText } from '../core/describe-time.js';
import { waitSentence } from '../core/wait-sentence.js';
import type { RequestRecord as RequestView } from '../wire/types.js';

/**
 * What a waiting agent is told, in sentences a person can read: who was asked and when, when the
 * question passes to someone else, why nobody is asked yet and until when, and when it gives up.
 * Built from the request record alone, so a consumer token that may read nothing else gets it too.
 */
export function waitingMessage(view: RequestView, now: number): string {
  const parts: string[] = [];
  for (const a of view.asked) {
    if (a.sent_at === null) continue;
    const escalates = a.escalates_at && a.escalates_to ? `; passes to ${a.escalates_to} at ${timeText(Date.parse(a.escalates_at), now)} if unanswered` : '';
    parts.push(`Asked ${a.expert_name}${channelPhrase(a.channel)} ${relativeText(Date.parse(a.sent_at), now)}${escalates}.`);
  }
  const wait = view.waiting;
  if (wait) parts.push(waitingSentence(view, wait, now));
  if (view.gives_up_at) parts.push(`Gives up at ${timeText(Date.parse(view.gives_up_at), now)} if nobody has answered.`);
  return parts.join(' ');
}

/** Why it waits, in the words the CLI and the web UI use too. */
function waitingSentence(view: RequestView, wait: NonNullable<RequestView['waiting']>, now: number): string {
  const name = (id: string) => view.asked.find((a) => a.expert_id === id)?.expert_name ?? id;
  return `${waitSentence(wait, { now, name, proposal: view.proposal })}.`;
}

/** The final answer of a request, as an agent should read it. */
export function describeOutcome(result: Record<string, unknown>): string {
  const p = result.proposal as { answer: string; provenance: { expert_name: string }; decision: { reason: string | null } | null } | undefined;
  const reason = result.reason as { code: string; message: string } | undefined;
  switch (result.status) {
    case 'accepted':
    case 'deduped_resolved':
      return `Accepted answer from ${p?.provenance.expert_name} (human-reviewed): ${p?.answer}`;
    case 'rejected':
      return `A reviewer rejected the answer${p?.decision?.reason ? `: ${p.decision.reason}` : ''}. Do not use it.`;
    case 'failed':
      return `The request failed (${reason?.code}): ${reason?.message}`;
    default:
      return `Request ${String(result.request_id)}: ${String(result.status)}.`;
  }
}
