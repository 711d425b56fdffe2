import { placeWaiting } from './place-waiting.js';
import type { Tx } from '../../store/store.js';
import { audit, type Routing } from '../engine/index.js';
import { passOn } from './pass-on.js';

/**
 * The transport refused an ask for good (Slack: `user_not_found`, `account_inactive`, …): the ask is
 * passed on exactly as a `skip` would pass it, with the audit row `ask_undeliverable` carrying the
 * platform's error code. Runs in the caller's transaction (the dispatcher's outcome commit).
 */
export async function askUndeliverable(engine: Routing, tx: Tx, askId: string, code: string, now: number): Promise<void> {
  const ask = await tx.asks.get(askId);
  if (!ask || ask.state !== 'open') return;
  const request = (await tx.requests.get(ask.request_id))!;
  await audit(engine, tx, { request_id: request.id, at: now, type: 'ask_undeliverable', actor: 'system', data: { ask_id: ask.id, expert_id: ask.expert_id, code } });
  await passOn(engine, tx, request, ask, 'undeliverable', now);
  await placeWaiting(engine, tx, new Set((await tx.asks.listFor(request.id)).map((a) => a.expert_id)), now);
  engine.log.warn({ request_id: request.id, ask_id: ask.id, expert_id: ask.expert_id, code }, 'ask undeliverable; passed on');
}
