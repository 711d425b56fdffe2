/**
 * Choosing the experts to ask and sending asks: live routing, placing held and waiting requests,
 * passing an ask on (escalation, away, mute), and what happens when an ask cannot be delivered.
 */
export { askUndeliverable } from './ask-undeliverable.js';
export { escalateAsk } from './escalate-ask.js';
export { nextInChain, passOn, passOnForAway } from './pass-on.js';
export { planAsk } from './place-asks.js';
export { guarded, mayPlace, placeAsksOf, placeWaiting, type WakeScope } from './place-waiting.js';
export { routeAndAsk } from './route-and-ask.js';
