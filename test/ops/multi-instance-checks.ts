import type { Json } from '../support/instance-pool.js';
import type { Receipt } from '../support/recording-receiver.js';

/** A request as `GET /requests/{id}` and `GET /audit?request_id=` show it. */
export interface Seen {
  request: Json;
  audit: Json[];
}

const ms = (iso: string) => new Date(iso).getTime();

/** Audit rows that close an ask and name it. */
const CLOSING = new Set(['replied', 'escalated', 'skipped', 'muted']);

/**
 * The most asks each expert had open at once, from when each ask was sent (`asks[].sent_at`) to when
 * the audit row that closed it was written; plus what could not be placed on that timeline.
 */
export function peakOpenAsks(seen: Seen[]): { peak: Map<string, { count: number; at: string; open: string[] }>; problems: string[] } {
  const events = new Map<string, Array<{ at: number; delta: number; ask: string }>>();
  const problems: string[] = [];
  for (const { request, audit } of seen) {
    for (const ask of request.asks as Json[]) {
      if (ask.sent_at === null) continue;
      const opened = ms(ask.sent_at);
      const closing = audit.find((e) => CLOSING.has(e.type) && e.data?.ask_id === ask.id);
      if (!closing && ask.state !== 'open') problems.push(`ask ${ask.id} of ${request.id} is ${ask.state} but no audit row says when it closed`);
      const list = events.get(ask.expert_id) ?? [];
      const via = audit.find((e) => e.type === 'asked' && e.data?.ask_id === ask.id)?.data?.via ?? '?';
      const ref = `${request.id}/${ask.id} (${via}) sent ${ask.sent_at}, closed ${closing ? `${closing.at} (${closing.type})` : 'never'}`;
      list.push({ at: opened, delta: +1, ask: ref });
      if (closing) list.push({ at: ms(closing.at), delta: -1, ask: ref });
      events.set(ask.expert_id, list);
    }
  }
  const peak = new Map<string, { count: number; at: string; open: string[] }>();
  for (const [expert, list] of events) {
    // At one instant a close counts before an open: a freed place taken in the same moment.
    list.sort((a, b) => a.at - b.at || a.delta - b.delta);
    const open = new Set<string>();
    let best = { count: 0, at: '', open: [] as string[] };
    for (const e of list) {
      if (e.delta > 0) open.add(e.ask);
      else open.delete(e.ask);
      if (open.size > best.count) best = { count: open.size, at: new Date(e.at).toISOString(), open: [...open] };
    }
    peak.set(expert, best);
  }
  return { peak, problems };
}

/** Requests with more asks to one expert than their escalations and send-backs explain. */
export function unexplainedRepeatAsks(seen: Seen[]): string[] {
  const found: string[] = [];
  for (const { request, audit } of seen) {
    const perExpert = new Map<string, number>();
    for (const ask of request.asks as Json[]) perExpert.set(ask.expert_id, (perExpert.get(ask.expert_id) ?? 0) + 1);
    for (const [expert, count] of perExpert) {
      const explained = audit.filter((e) => (e.type === 'returned' && e.data?.expert_id === expert) || e.type === 'escalated').length;
      if (count - 1 > explained) found.push(`${request.id}: ${count} asks to ${expert}, ${explained} explained by the audit`);
    }
  }
  return found;
}

/** Acknowledged replies and decisions the API does not show. */
export function missingWrites(
  seen: Map<string, Seen>,
  proposals: Map<string, Json>,
  replies: Array<{ requestId: string; askId: string; proposalId: string }>,
  decisions: Map<string, 'accepted' | 'rejected' | 'returned'>,
): string[] {
  const missing: string[] = [];
  for (const r of replies) {
    const trail = seen.get(r.requestId)?.audit ?? [];
    if (!trail.some((e) => e.type === 'replied' && e.data?.ask_id === r.askId)) missing.push(`reply on ask ${r.askId} of ${r.requestId}`);
    if (!proposals.has(r.proposalId)) missing.push(`proposal ${r.proposalId} of the reply on ${r.requestId}`);
  }
  for (const [id, decision] of decisions) {
    const p = proposals.get(id);
    const stored = !p ? 'missing' : p.decision?.reason === 'returned' ? 'returned' : p.status;
    if (stored !== decision) missing.push(`decision ${decision} on ${id} (stored: ${stored})`);
    const trail = p ? (seen.get(p.request_id)?.audit ?? []) : [];
    const type = decision === 'returned' ? 'returned' : 'decided';
    if (!trail.some((e) => e.type === type && e.data?.proposal_id === id)) missing.push(`audit row "${type}" for ${id}`);
  }
  return missing;
}

/** The events consumers must get: one per decided proposal that was accepted or rejected (a send-back tells nobody). */
export function expectedEvents(seen: Iterable<Seen>): Map<string, string> {
  const events = new Map<string, string>(); // proposal id → event
  for (const { request } of seen) {
    if (request.status === 'accepted') events.set(request.proposal_id, 'proposal_accepted');
    if (request.status === 'rejected') events.set(request.proposal_id, 'proposal_rejected');
  }
  return events;
}

const proposalOf = (r: Receipt) => (r.json.proposal as { id?: string } | undefined)?.id ?? '';

/** Expected (consumer, event) pairs with no 2xx receipt yet. */
export function undelivered(expected: Map<string, string>, receipts: Map<string, Receipt[]>): string[] {
  const missing: string[] = [];
  for (const [consumer, list] of receipts) {
    const got = new Set(list.filter((r) => r.status < 300).map((r) => `${r.json.event as string} ${proposalOf(r)}`));
    for (const [proposal, event] of expected) if (!got.has(`${event} ${proposal}`)) missing.push(`${consumer}: ${event} ${proposal}`);
  }
  return missing;
}

/** Receipts that break the webhook contract: an unexpected event, or one event under several webhook-ids. */
export function webhookProblems(expected: Map<string, string>, receipts: Map<string, Receipt[]>): string[] {
  const problems: string[] = [];
  const idsOf = new Map<string, Set<string>>();
  for (const [consumer, list] of receipts) {
    for (const r of list) {
      const event = `${r.json.event as string} ${proposalOf(r)}`;
      if (expected.get(proposalOf(r)) !== r.json.event) problems.push(`${consumer} got an unexpected ${event}`);
      if (r.headers['webhook-id'] !== r.json.id) problems.push(`${consumer}: webhook-id ${String(r.headers['webhook-id'])} is not the event id ${String(r.json.id)}`);
      const ids = idsOf.get(event) ?? new Set<string>();
      ids.add(String(r.headers['webhook-id']));
      idsOf.set(event, ids);
    }
  }
  for (const [event, ids] of idsOf) if (ids.size !== 1) problems.push(`${event} came with ${ids.size} webhook-ids: ${[...ids].join(', ')}`);
  return problems;
}
