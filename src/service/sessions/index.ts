/**
 * Signed-in reviewer sessions, and which role may perform which operation.
 */
export { mayPerform, type Operation, OPERATION_WORDS, type Role } from './permissions.js';
export { endSession, isSessionLive, listSessions, revokeSessions, type SignedIn, startSession } from './sessions.js';
