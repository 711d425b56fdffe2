import { dateTime, humanize } from './format.js';
import type { AuditEntry } from './wire.js';

/** Names for the ids an audit row carries: experts by their name, everything else as written. */
export type NameOf = (expertId: string) => string;

const str = (value: unknown): string => (value === null || value === undefined ? '' : String(value));
const quote = (text: unknown): string => `“${str(text)}”`;

/** `expert:dana` → "Dana Smith", `reviewer:alice` → "alice", `consumer:bot` → "bot", `system` → "expertq". */
export function actorName(actor: string, name: NameOf): string {
  if (actor === 'system') return 'expertq';
  const [kind, ...rest] = actor.split(':');
  const who = rest.join(':');
  if (!who) return actor;
  return kind === 'expert' ? name(who) : who;
}

const STEP: Record<string, string> = {
  target: 'named by the consumer',
  exact: 'exact topic match',
  fuzzy: 'similar topic',
  fallback: 'the topic’s fallback expert',
};

const VIA: Record<string, string> = { escalation: ' (escalation)', return: ' (sent back with instructions)' };

/** What an ask waits for, by the reason the expert cannot be asked yet. */
const WAIT_FOR: Record<string, string> = { working_hours: 'to start work', away: 'to be back', dnd: 'to end do-not-disturb' };

const WHY: Record<string, string> = {
  no_reply: 'no reply in time',
  skip: 'skipped',
  mute: 'muted',
  undeliverable: 'could not be reached',
};

/**
 * One audit row as a sentence a reviewer or auditor reads at a glance ("Dana Smith replied: “Thirty
 * days.”"). Unknown types fall back to their name and fields, so nothing recorded is ever hidden.
 */
export function auditSentence(entry: AuditEntry, name: NameOf): string {
  const d = entry.data;
  const who = actorName(entry.actor, name);
  const experts = (ids: unknown) => (Array.isArray(ids) && ids.length ? ids.map((id) => name(str(id))).join(', ') : 'no one');
  switch (entry.type) {
    case 'received':
      return `${who} asked about topic ${quote(d.topic)}${d.kind && d.kind !== 'answer' ? ` (kind ${str(d.kind)})` : ''}${d.dedup_key ? `, dedup key ${str(d.dedup_key)}` : ''}.`;
    case 'routed':
      return `Routed to ${experts(d.experts)} (${STEP[str(d.step)] ?? str(d.step)})${Array.isArray(d.waiting_for) && d.waiting_for.length ? `; waiting for ${experts(d.waiting_for)}` : ''}.`;
    case 'held':
      return `Held: every candidate is at a rate-limit cap${Array.isArray(d.waiting_for) && d.waiting_for.length ? `; waiting for ${experts(d.waiting_for)}` : ''}.`;
    case 'asked':
      return `Asked ${d.expert_name ? str(d.expert_name) : name(str(d.expert_id))}${VIA[str(d.via)] ?? ''}.`;
    case 'quiet_hours_wait':
      return `Waiting for ${name(str(d.expert_id))}'s quiet hours to end${d.until ? ` at ${dateTime(str(d.until))}` : ''}.`;
    case 'waiting_for_expert':
      return `Waiting for ${name(str(d.expert_id))} ${WAIT_FOR[str(d.why)] ?? `(${str(d.why).replace(/_/g, ' ')})`}${d.until ? ` at ${dateTime(str(d.until))}` : ''}.`;
    case 'replied':
      return `${who} replied: ${quote(d.text)}`;
    case 'late_reply':
      return `${who} replied after the request was ${str(d.request_status)}; the reply is kept for the record.`;
    case 'ignored_reply':
      return `${who}'s reply ${quote(d.text)} changed nothing${d.ask_state ? ` (the ask was already ${str(d.ask_state)})` : ''}.`;
    case 'skipped':
      return d.why === 'mute'
        ? `${who}'s question was passed on (muted).`
        : d.why === 'undeliverable'
          ? `${who} could not be reached; the question was passed on.`
          : `${who} skipped the question.`;
    case 'muted':
      return entry.actor.startsWith('expert:') ? `${who} muted themselves; the question was passed on.` : `${who} muted the expert; the question was passed on.`;
    case 'unmuted':
      return `${who} unmuted.`;
    case 'ask_undeliverable':
      return `Could not reach ${name(str(d.expert_id))} (${str(d.code)}); the question was passed on.`;
    case 'escalated':
      return d.to
        ? `Escalated from ${name(str(d.from))} to ${name(str(d.to))}: ${WHY[str(d.because)] ?? str(d.because)}${d.waited ? ` after ${str(d.waited)}` : ''}.`
        : `${name(str(d.from))} ${WHY[str(d.because)] ?? str(d.because)}, and there is no one left to escalate to.`;
    case 'proposed':
      return `The answer became proposal ${str(d.proposal_id)}, waiting for review.`;
    case 'decided':
      return d.status === 'accepted'
        ? `${who} accepted the answer${d.edited ? ', edited before accepting' : ''}${d.note ? `, noting ${quote(d.note)}` : ''}.`
        : `${who} rejected the answer: ${quote(d.reason)}`;
    case 'returned':
      return `${who} sent the answer back to ${name(str(d.expert_id))}: ${quote(d.instructions)}`;
    case 'reused':
      return `Library answer ${str(d.answer_id)} matched (score ${Number(d.score).toFixed(2)}); no expert was asked.`;
    case 'reuse_declined':
      return `${who} sent library answer ${str(d.answer_id)} back: not a match, an expert is asked.`;
    case 'stale_match':
      return `Library answer ${str(d.answer_id)} matched (score ${Number(d.score).toFixed(2)}) but is due for checking: the expert is shown it and can reply “same”.`;
    case 'failed':
      return `Failed (${str(d.code).replace(/_/g, ' ')}): ${str(d.message)}`;
    case 'cancelled':
      return `Cancelled by ${who}.`;
    case 'expiring':
      return `Subscribers were told the request gives up ${d.in ? `in ${str(d.in)}` : 'soon'}${d.gives_up_at ? `, at ${dateTime(str(d.gives_up_at))}` : ''}.`;
    case 'deduped':
      return `${str(d.consumer_id)} asked the same question again; ${d.newly_attached ? 'it now gets this request’s answer too' : 'it was already subscribed'}.`;
    case 'llm_call':
      return `The LLM (${str(d.model)}) ${d.stage === 'draft' ? 'drafted the question' : d.stage === 'match' ? 'judged a library answer' : 'structured the answer'} in ${str(d.latency_ms)} ms: ${d.outcome === 'ok' ? (d.used ? 'used' : 'not used') : d.outcome === 'invalid' ? 'unusable output' : 'the call failed'}.`;
    case 'llm_fallback':
      return `The LLM's ${d.stage === 'draft' ? 'draft' : d.stage === 'match' ? 'judgement of a library answer' : 'structuring'} was not used (${str(d.error)}); expertq went on without it.`;
    case 'delivery_dead':
      return `Delivery to ${str(d.consumer_id)} gave up: ${str(d.error)}.`;
    default:
      return `${humanize(entry.type)}${Object.keys(d).length ? `: ${Object.entries(d).map(([k, v]) => `${k.replace(/_/g, ' ')} ${typeof v === 'string' ? v : JSON.stringify(v)}`).join(', ')}` : ''}.`;
  }
}
