import type { RequestRecord } from '../../domain/records.js';

/**
 * Requests being submitted, not written yet. A submit writes its request once, after routing, in the
 * state routing left it in (asked, held or failed) rather than inserting it queued and updating it:
 * one write instead of two, and the request's indexes are maintained once. The rows routing writes
 * first (audit, asks, messages) refer to it; the store checks those references at commit.
 */
export const unwritten = new WeakSet<RequestRecord>();

/** A request object for a submit: changes made through `updateRequest` stay in it until `writeNewRequest`. */
export function newRequest(request: RequestRecord): RequestRecord {
  unwritten.add(request);
  return request;
}

/** Whether `request` is being submitted in this transaction (not written yet). */
export function isNewRequest(request: RequestRecord): boolean {
  return unwritten.has(request);
}
