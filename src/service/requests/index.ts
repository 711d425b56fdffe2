/**
 * Requests from consumers: submit (one or a batch), offer a library answer, cancel, the request
 * views and waiting for a decision.
 */
export { cancelRequest } from './cancel-request.js';
export { giveUp } from './give-up.js';
export { reuseCandidates, reuseEntry } from './reuse-answer.js';
export { libraryFor, submitAll, SubmitBatcher, workMadeBy } from './submit-batch.js';
export { type SubmitInput, type SubmitResult } from './submit-request.js';
export { auditTrail, expertAuditTrail, listRequests, requestView, type RequestView } from './views.js';
export { waitForDecision } from './wait-for-decision.js';
export { warnExpiring } from './warn-expiring.js';
