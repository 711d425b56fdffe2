import { placeWaiting } from './place-waiting.js';
import type { Tx } from '../../store/store.js';
import { audit, queueMessage, type Routing } from '../engine/index.js';
import type { ChannelName } from '../../domain/channels.js';
import { passOn } from './pass-on.js';

/**
 * A channel refused an ask for good (Slack: `user_not_found`, `account_inactive`; an email hard bounce
 * or a 5xx from the mail server, …). The same ask moves to the expert's next channel (audit
 * `channel_failed`, then `asked` on the new one); with no channel left it is passed on exactly as a
 * `skip` would pass it, with the audit row `ask_undeliverable` carrying the platform's error code.
 * Runs in the caller's transaction (the dispatcher's outcome commit, or the one taking a bounce).
 */
export async function askUndeliverable(engine: Routing, tx: Tx, askId: string, code: string, now: number, failedOn: ChannelName | null = null): Promise<void> {
  const ask = await tx.asks.get(askId);
  if (!ask || ask.state !== 'open') return;
  const failed = failedOn ?? ask.channel ?? null;
  // A bounce of a mail sent before the ask moved on to another channel changes nothing.
  if (failedOn !== null && ask.channel && ask.channel !== failedOn) return;
  const expert = engine.experts.get(ask.expert_id);
  const next = expert && failed !== null ? (expert.reach[expert.reach.indexOf(failed) + 1] ?? null) : null;
  if (expert && next !== null && expert.reach.includes(failed!)) {
    await audit(engine, tx, { request_id: ask.request_id, at: now, type: 'channel_failed', actor: 'system', data: { ask_id: ask.id, expert_id: ask.expert_id, channel: failed, error: code, ...hintOf(code) } });
    await tx.asks.update(ask.id, { channel: next });
    const elements = (await tx.outbox.askElements(ask.id)) ?? [];
    await queueMessage(tx, { expert_id: ask.expert_id, request_id: ask.request_id, ask_id: ask.id, purpose: 'ask', channel: next, text: elements.join('\n'), elements }, now);
    await audit(engine, tx, { request_id: ask.request_id, at: now, type: 'asked', actor: 'system', data: { ask_id: ask.id, expert_id: ask.expert_id, expert_name: expert.name, via: ask.via, channel: next } });
    engine.log.warn({ request_id: ask.request_id, ask_id: ask.id, expert_id: ask.expert_id, channel: failed, next, code }, `ask undeliverable on ${failed}; sent on ${next} instead`);
    return;
  }
  const request = (await tx.requests.get(ask.request_id))!;
  await audit(engine, tx, { request_id: request.id, at: now, type: 'ask_undeliverable', actor: 'system', data: { ask_id: ask.id, expert_id: ask.expert_id, code, ...hintOf(code) } });
  await passOn(engine, tx, request, ask, 'undeliverable', now);
  await placeWaiting(engine, tx, new Set((await tx.asks.listFor(request.id)).map((a) => a.expert_id)), now);
  engine.log.warn({ request_id: request.id, ask_id: ask.id, expert_id: ask.expert_id, code }, 'ask undeliverable; passed on');
}

/** What to do about a failure an admin can fix, said in its audit row. */
const HINTS: Record<string, string> = {
  not_installed:
    'The expertq app is not installed for this person in Teams, so the bot cannot write to them: install it for everyone with a Teams app setup policy (see teams.md, "Install the app for everyone").',
};

function hintOf(code: string): { hint?: string } {
  return HINTS[code] ? { hint: HINTS[code] } : {};
}
