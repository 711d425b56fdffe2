import type { RequestRecord } from '../domain/records.js';
import type { RequestPatch, Tx } from '../store/store.js';

/**
 * Requests being submitted, not written yet. A submit writes its request once, after routing, in the
 * state routing left it in (asked, held or failed) rather than inserting it queued and updating it:
 * one write instead of two, and the request's indexes are maintained once. The rows routing writes
 * first (audit, asks, messages) refer to it; the store checks those references at commit.
 */
const unwritten = new WeakSet<RequestRecord>();

/** A request object for a submit: changes made through `updateRequest` stay in it until `writeNewRequest`. */
export function newRequest(request: RequestRecord): RequestRecord {
  unwritten.add(request);
  return request;
}

/** Writes the submitted request as it now is (once: later calls do nothing). */
export async function writeNewRequest(tx: Tx, request: RequestRecord): Promise<void> {
  if (unwritten.delete(request)) await tx.requests.insert(request);
}

/** Applies a change to a request: to the object, and to the stored row unless the request is not written yet. */
export async function updateRequest(tx: Tx, request: RequestRecord, patch: RequestPatch): Promise<void> {
  Object.assign(request, patch);
  if (!unwritten.has(request)) await tx.requests.update(request.id, patch);
}
