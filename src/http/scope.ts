import { forbidden, notFound } from '../errors.js';
import type { RequestView } from '../service/requests/index.js';
import type { Caller } from './auth.js';

/**
 * A consumer token acts only as the consumer its name says (submits as it, registers only itself):
 * otherwise one consumer could submit as another or subscribe to everyone's answers.
 */
export function actAsOwnConsumer(caller: Caller, consumerId: string, what: string): void {
  if (caller.role === 'consumer' && caller.name !== consumerId) {
    throw forbidden(`This consumer token may only ${what} as consumer "${caller.name}", not "${consumerId}".`);
  }
}

/**
 * A consumer token sees only requests it submitted or is subscribed to; any other is answered as if
 * it did not exist, so request ids of other consumers cannot be probed.
 */
export function ownRequest(caller: Caller, request: RequestView): RequestView {
  if (caller.role === 'consumer' && request.consumer_id !== caller.name && !request.subscribers.includes(caller.name!)) {
    throw notFound('Request', request.id);
  }
  return request;
}
