/**
 * Who can be asked now: presence, aways in force, quiet hours and working days, the topics experts
 * cover, and what a waiting request waits for. Reads only.
 */
export { awaysAt, inForce, isAway } from './away-state.js';
export { awayByStatus, expertAvailability, isAwayNow, routingFacts } from './expert-availability.js';
export { listTopics, suggestTopics, type TopicView } from './topics.js';
export { givesUpAt, waitingOf } from './waiting.js';
