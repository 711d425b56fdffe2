import { placeWaiting } from './place-waiting.js';
import { audit, type Engine } from './engine.js';
import { passOn } from './pass-on.js';

/**
 * The transport refused an ask for good (Slack: `user_not_found`, `account_inactive`, …): the ask is
 * passed on exactly as a `skip` would pass it, with the audit row `ask_undeliverable` carrying the
 * platform's error code. Runs in the caller's transaction (the dispatcher's outcome commit).
 */
export function askUndeliverable(engine: Engine, askId: string, code: string, now: number): void {
  const ask = engine.store.getAsk(askId);
  if (!ask || ask.state !== 'open') return;
  const request = engine.store.getRequest(ask.request_id)!;
  audit(engine, { request_id: request.id, at: now, type: 'ask_undeliverable', actor: 'system', data: { ask_id: ask.id, expert_id: ask.expert_id, code } });
  passOn(engine, request, ask, 'undeliverable', now);
  placeWaiting(engine, new Set(engine.store.listAsks(request.id).map((a) => a.expert_id)), now);
  engine.log.warn({ request_id: request.id, ask_id: ask.id, expert_id: ask.expert_id, code }, 'ask undeliverable; passed on');
}
