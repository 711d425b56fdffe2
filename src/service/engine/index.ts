/**
 * What every operation runs on: the `Engine` (store, clock, config, experts, caches), the parts of it
 * operations declare they read (`Roster`, `Attendance`, `Routing`, `Drafting`, `Intake`), and the writes
 * many capabilities share — an audit row, an outbox event, a message to an expert, the request row, an
 * LLM job row, failing a request. Imports no other capability.
 */
export { closeAsk, expertName, tellExpert, tellInThread } from './close-ask.js';
export { expertTrail, failRequest } from './effects.js';
export { type Attendance, audit, countOne, DECISION_TIMES_KEPT, type Drafting, emitEvent, type Engine, type Intake, liveStates, nextDayStartOfAny, queueMessage, type ReviewSettings, type Roster, type Routing, type ServiceCounters, subscribersAmong, zoneOf } from './engine.js';
export { type KnownKeys, libraryKey, libraryTopics, quotaConsumers } from './known-keys.js';
export { type AskSender, noteFirstAsk, withLeasedAsks } from './leased-messages.js';
export { LlmBacklog } from './llm-backlog.js';
export { draftsQuestion, MAX_LLM_ATTEMPTS, queueDraft, queueMatch, queueStructuring, type UnstructuredProposal } from './llm-jobs.js';
export { countAskSent, countDecision, countEscalation, countHold, countPass, countProposal, countSentBack } from './insight-counts.js';
export { gatherChanges, isNewRequest, newRequest, updateRequest, writeChanges, writeNewRequest } from './new-request.js';
export { PresenceCache } from './presence-cache.js';
